import Foundation
import ObservationJournal
import ObserverCore

/// Records a busy workload into a journal until it is killed: the subject of the crash
/// test, which SIGKILLs it at random moments and then checks the journal.
///
/// Usage: `JournalCrashHelper JOURNAL LABEL [CHANGES]`. Prints `ready SESSION_ID` once the
/// session is recording. Without CHANGES it runs until killed; with CHANGES each of its
/// two threads makes that many changes, then the session is closed cleanly and it prints
/// `closed`.
@main
enum JournalCrashHelper {
    static func main() {
        let arguments = CommandLine.arguments
        if arguments.count == 2 && (arguments[1] == "--help" || arguments[1] == "-h") {
            print("usage: JournalCrashHelper JOURNAL LABEL [CHANGES]\nRecords CHANGES changes (or forever) into JOURNAL; the crash tests kill it mid-write.")
            exit(0)
        }
        guard arguments.count == 3 || arguments.count == 4 else {
            fail("usage: JournalCrashHelper JOURNAL LABEL [CHANGES]")
        }
        let limit = arguments.count == 4 ? Int(arguments[3]) : nil
        let recording: RecordingSession
        do {
            recording = try Journal.open(path: arguments[1]).startSession(label: arguments[2])
        } catch {
            fail("\(error)")
        }
        say("ready \(recording.sessionID)")
        let group = DispatchGroup()
        for worker in 0..<2 {
            group.enter()
            Thread {
                Workload(registry: recording.registry, worker: worker).run(changes: limit)
                group.leave()
            }.start()
        }
        group.wait()
        recording.close()
        say("closed")
    }

    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data(("JournalCrashHelper: " + message + "\n").utf8))
        exit(2)
    }
}

final class Player {}
final class Screen {
    var tokens: [ObservationToken] = []
}

/// Registrations coming and going, changes, notifications, replacements, removals of
/// the unregistered and deallocated owners: every table of the journal gets rows.
struct Workload {
    let registry: ObserverRegistry
    let worker: Int

    func run(changes limit: Int?) {
        var done = 0
        var round = 0
        while limit.map({ done < $0 }) ?? true {
            round += 1
            let player = Player()
            let isPlaying = ObservableValue(false, subject: player, key: "isPlaying", registry: registry)
            let position = ObservableValue(0, subject: player, key: "position", registry: registry)
            let slot = CallbackProperty<Int>(subject: player, key: "progress", registry: registry)
            let scope = registry.beginScope("screen \(worker).\(round)")
            var screens = (0..<3).map { _ in Screen() }
            for screen in screens {
                screen.tokens.append(isPlaying.observe(owner: screen, options: [.new, .onlyWhenChanged], scope: scope) { _, _ in })
                screen.tokens.append(position.observe(owner: screen) { _, _ in })
                screen.tokens.append(registry.observe(notification: "tick", owner: screen) { _, _ in })
                slot.assign(owner: screen) { _, _ in }
            }
            for step in 0..<50 {
                isPlaying.value = step % 3 == 0
                position.value = step
                slot.call(step)
                if step % 10 == 0 { registry.post(notification: "tick", payload: step) }
                done += 1
            }
            screens[0].tokens[0].cancel()
            screens[0].tokens[0].cancel()
            registry.removeObservers(owner: screens[1], subject: player, key: "positon")
            scope.end()
            screens.removeLast()   // its tokens go with it
            registry.removeObservers(owner: screens[0])
            screens.removeAll()
            registry.sweep()
        }
    }
}
