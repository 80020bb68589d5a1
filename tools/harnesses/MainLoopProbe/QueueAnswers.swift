import Dispatch
import Foundation
import ObserverCore

/// `MainLoopProbe queues runloop|dispatchmain`: posts one change from each place code can
/// run in a Linux program, one after the other, and prints for each whether the registry
/// recorded it on the main queue and on the main thread, one line per place:
/// `PLACE queue=main|other thread=main|other`. Then exits 0.
///
/// What is pinned is the answer of the registry's main-queue check (libdispatch's current
/// queue and its specifics), which a toolchain could change: the test compares every line.
enum QueueAnswers {
    /// The places, in the order they are visited (`timer` only under `RunLoop.main.run()`,
    /// the one loop that fires timers of the main run loop).
    static func places(_ loop: String) -> [String] {
        ["main-thread-before-loop", "main-queue-block"] + (loop == "runloop" ? ["main-run-loop-timer"] : [])
            + ["serial-queue", "serial-queue-sync-from-main-queue", "queue-targeting-main",
               "main-queue-sync-from-thread", "queue-labelled-like-main", "thread"]
    }

    final class Subject {}
    final class Owner {}

    /// Posts one change through a registry of its own and returns the line for `place`.
    static func post(_ place: String) -> String {
        let sink = InMemoryEventSink()
        let registry = ObserverRegistry(sink: sink)
        let subject = Subject()
        let owner = Owner()
        let value = ObservableValue(0, subject: subject, key: place, registry: registry)
        let token = value.observe(owner: owner) { _, _ in }
        value.value = 1
        token.cancel()
        guard let changed = sink.events.first(where: { $0.kind == .changed }) else {
            return "\(place) no changed event"
        }
        return "\(place) queue=\(changed.isMainQueue ? "main" : "other") thread=\(changed.isMainThread ? "main" : "other")"
    }

    static func run(loop: String) -> Never {
        let lines = Locked()
        lines.append(post("main-thread-before-loop"))
        Thread {
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.main.async {
                lines.append(post("main-queue-block"))
                done.signal()
            }
            done.wait()
            if loop == "runloop" {
                DispatchQueue.main.async {
                    // Fired by the run loop on the main thread, after this block and
                    // outside any main-queue block.
                    RunLoop.main.add(Timer(timeInterval: 0.001, repeats: false) { _ in
                        lines.append(post("main-run-loop-timer"))
                        done.signal()
                    }, forMode: .default)
                }
                done.wait()
            }
            DispatchQueue(label: "probe.serial").async {
                lines.append(post("serial-queue"))
                done.signal()
            }
            done.wait()
            DispatchQueue.main.async {
                DispatchQueue(label: "probe.sync").sync { lines.append(post("serial-queue-sync-from-main-queue")) }
                done.signal()
            }
            done.wait()
            DispatchQueue(label: "probe.targeting-main", target: .main).async {
                lines.append(post("queue-targeting-main"))
                done.signal()
            }
            done.wait()
            DispatchQueue.main.sync { lines.append(post("main-queue-sync-from-thread")) }
            DispatchQueue(label: DispatchQueue.main.label).async {
                lines.append(post("queue-labelled-like-main"))
                done.signal()
            }
            done.wait()
            lines.append(post("thread"))
            print(lines.all.joined(separator: "\n"))
            exit(0)
        }.start()
        if loop == "runloop" {
            while true { _ = RunLoop.main.run(mode: .default, before: .distantFuture) }
        }
        dispatchMain()
    }

    /// The lines so far, appended from several threads.
    final class Locked: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }
}
