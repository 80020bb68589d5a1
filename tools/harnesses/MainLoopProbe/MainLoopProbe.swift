import Dispatch
import Foundation
import Synchronization
import ObservationJournal
import ObserverCore

/// Records small correct-or-buggy programs under a real main loop, for the tests that
/// check main-thread and timing verdicts (issue 11 points 2 and 3). Under `swift test` no
/// code runs on the main thread, so these facts can only be seen from a child process.
///
/// Usage: `MainLoopProbe MODE JOURNAL`. Records one session into JOURNAL, closes it, exits 0.
/// - `runloop`: a `queue: .main` observer told of changes posted from a worker thread,
///   with `RunLoop.main.run()` as the main loop (the main thread drains the main queue).
/// - `dispatchmain`: the same with `dispatchMain()`: on Linux the main queue is drained by
///   a thread that is not the main thread.
/// - `dispatchmain-off-main`: as `dispatchmain`, plus a registration that declares it
///   expects the main thread but is delivered on the posting worker (a real bug).
/// - `background-load`: many tiny callbacks on background threads, and tiny ones on the
///   main queue, while two other threads burn CPU: correct code under load.
///
/// `MainLoopProbe queues runloop|dispatchmain` prints the registry's main-queue answers
/// instead (see `QueueAnswers`).
@main
enum MainLoopProbe {
    static func main() {
        let arguments = CommandLine.arguments
        if arguments.count == 2 && (arguments[1] == "--help" || arguments[1] == "-h") {
            print("usage: MainLoopProbe runloop|dispatchmain|dispatchmain-off-main|background-load JOURNAL")
            print("       MainLoopProbe queues runloop|dispatchmain")
            print("Records a small program under RunLoop.main.run() or dispatchMain() into JOURNAL;")
            print("with `queues`, prints whether a change posted from each place was on the main queue.")
            return
        }
        if arguments.count == 3 && arguments[1] == "queues" && ["runloop", "dispatchmain"].contains(arguments[2]) {
            QueueAnswers.run(loop: arguments[2])
        }
        guard arguments.count == 3, let mode = Mode(rawValue: arguments[1]) else {
            fail("usage: MainLoopProbe runloop|dispatchmain|dispatchmain-off-main|background-load JOURNAL")
        }
        let recording: RecordingSession
        do {
            recording = try Journal.open(path: arguments[2]).startSession(label: mode.rawValue)
        } catch {
            fail("\(error)")
        }
        let program = Program(recording: recording, mode: mode)
        // The program starts from the main queue, once the main loop runs.
        DispatchQueue.main.async { program.start() }
        switch mode {
        case .runloop, .backgroundLoad: RunLoop.main.run()
        case .dispatchMain, .dispatchMainOffMain: dispatchMain()
        }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data(("MainLoopProbe: " + message + "\n").utf8))
        exit(2)
    }
}

enum Mode: String {
    case runloop
    case dispatchMain = "dispatchmain"
    case dispatchMainOffMain = "dispatchmain-off-main"
    case backgroundLoad = "background-load"
}

final class Uploader: Sendable {}
final class ProgressBar: Sendable {}
final class Logger: Sendable {}

/// Counts deliveries; finishes the program when the last expected one arrived.
final class Program: @unchecked Sendable {
    let recording: RecordingSession
    let mode: Mode
    let uploader = Uploader()
    let bar = ProgressBar()
    let logger = Logger()
    let progress: ObservableValue<Int>
    var tokens: [ObservationToken] = []
    let lock = NSLock()
    var remaining = 0
    /// Stops the burners.
    let stop = Atomic(false)

    init(recording: RecordingSession, mode: Mode) {
        self.recording = recording
        self.mode = mode
        progress = ObservableValue(0, subject: uploader, key: "progress", registry: recording.registry)
    }

    static let changes = 20
    static let backgroundChanges = 400

    func start() {
        posting.enter()
        tokens.append(progress.observe(owner: bar, queue: .main) { [self] _, _ in delivered() })
        remaining = Self.changes
        if mode == .dispatchMainOffMain {
            // Declares the main thread but is called on whichever thread posts: a bug.
            // Counted too, so the program cannot finish before its last delivery.
            tokens.append(progress.observe(owner: logger, expectsMainThread: true) { [self] _, _ in delivered() })
            remaining += Self.changes
        }
        if mode == .backgroundLoad {
            startBurners()
            let background = ObservableValue(0, subject: uploader, key: "bytes", registry: recording.registry)
            tokens.append(background.observe(owner: logger) { _, change in _ = change.new.map { $0 &* 31 } })
            let queue = DispatchQueue(label: "probe.background")
            tokens.append(background.observe(owner: bar, queue: queue) { _, _ in })
            let group = DispatchGroup()
            for worker in 0..<2 {
                group.enter()
                Thread {
                    for value in 0..<Self.backgroundChanges { background.value = worker * 100_000 + value }
                    group.leave()
                }.start()
            }
            // The queued background deliveries run before the main-queue part begins, so
            // the session holds every delivery when the program finishes.
            group.notify(queue: .global()) { [self] in
                queue.sync {}
                post()
            }
        } else {
            Thread { [self] in post() }.start()
        }
    }

    /// Left when every change was posted (and so every inline delivery recorded).
    let posting = DispatchGroup()

    /// Posts the main-queue observer's changes from a worker thread.
    func post() {
        for value in 1...Self.changes { progress.value = value }
        posting.leave()
    }

    func delivered() {
        lock.lock()
        remaining -= 1
        let done = remaining == 0
        lock.unlock()
        // Finished after this callback returns, so its own delivery is recorded too.
        if done { DispatchQueue.main.async { [self] in finish() } }
    }

    func finish() {
        posting.wait()
        stop.store(true, ordering: .relaxed)
        tokens.removeAll()
        recording.close()
        exit(0)
    }

    /// Two threads that keep the CPUs busy, as another busy process would.
    func startBurners() {
        for _ in 0..<2 {
            Thread { [self] in
                var x: UInt64 = 1
                while !stop.load(ordering: .relaxed) {
                    for _ in 0..<10_000 { x = x &* 6364136223846793005 &+ 1 }
                }
                if x == 0 { print(x) }
            }.start()
        }
    }
}
