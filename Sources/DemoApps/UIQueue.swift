import Dispatch
import Foundation
import Synchronization

/// Where a scenario's UI work runs, and how the story waits for it to be done.
///
/// A scenario runs its "UI" on the thread that called `run`. What stands for the main
/// queue depends on that thread, because the main queue behaves differently in the two
/// places scenarios run (measured with Swift 6.3 on Linux):
///
/// - In a command-line tool, `main.swift` runs on the main thread and nothing services
///   the main queue until the thread runs its run loop: `RunLoop.main.run(mode:before:)`
///   from top-level code drains it, with every block on the main thread.
/// - Under `swift test`, tests run on a thread pool; the process's entry point has handed
///   the main queue to dispatch, which drains it (and runs `@MainActor` code) on a worker
///   thread where `Thread.isMainThread` is false. No test code ever runs on the main
///   thread, and a test that blocks waiting for the main queue competes with every other
///   test's main-queue work.
///
/// So on the main thread the UI queue is `DispatchQueue.main`, drained by running the
/// main run loop, and registrations declare `expectsMainThread` (`isMain`). On any other
/// thread a private serial queue stands in for the main queue, drained by waiting for it,
/// and nothing claims to be on the main thread. Either way the story drains after every
/// step that queues UI work, so the events come in the same order in both places; only
/// the thread facts differ.
final class UIQueue: Sendable {
    /// The queue UI work and main-queue deliveries go to.
    let queue: DispatchQueue
    /// Whether `queue` is the main queue, run on the main thread.
    let isMain: Bool
    /// Blocks sent with `async`, so `drain` knows when one block queued another.
    private let sent = Atomic<Int>(0)

    /// How long `drain` waits for one pass before it gives up instead of hanging.
    private static let patience: TimeInterval = 10

    private init(queue: DispatchQueue, isMain: Bool) {
        self.queue = queue
        self.isMain = isMain
    }

    /// The UI queue for the calling thread: the main queue on the main thread, a private
    /// serial queue elsewhere.
    static func forCallingThread() -> UIQueue {
        if Thread.isMainThread {
            UIQueue(queue: .main, isMain: true)
        } else {
            UIQueue(queue: DispatchQueue(label: "DemoApps.ui"), isMain: false)
        }
    }

    /// Sends UI work to the queue (the seeds' `dispatch_async(dispatch_get_main_queue(), ...)`).
    func async(_ work: @escaping @Sendable () -> Void) {
        sent.add(1, ordering: .relaxed)
        queue.async(execute: work)
    }

    /// Returns once everything queued so far has run, including UI work those blocks
    /// queued in turn. Registry deliveries queued by a callback running inside a block are
    /// not counted; no scenario makes one.
    /// - Parameter scenario: named in the error.
    /// - Throws: `ScenarioError.mainQueueNotServiced` if the queue does not run a block
    ///   within `patience`: on the main thread that means the caller is itself main-queue
    ///   work, which the run loop cannot re-enter.
    func drain(scenario: String) throws(ScenarioError) {
        while true {
            let before = sent.load(ordering: .relaxed)
            guard passOnce() else { throw .mainQueueNotServiced(scenario: scenario) }
            if sent.load(ordering: .relaxed) == before { return }
        }
    }

    /// Queues a marker behind everything queued so far and waits until it runs.
    private func passOnce() -> Bool {
        let marker = DispatchSemaphore(value: 0)
        queue.async { marker.signal() }
        let deadline = Date(timeIntervalSinceNow: Self.patience)
        guard isMain else { return marker.wait(timeout: .now() + Self.patience) == .success }
        while marker.wait(timeout: .now()) == .timedOut {
            if Date() > deadline { return false }
            // Drains the main queue when called from top-level code; returns at once when
            // nothing is pending, so a short wait keeps this loop from spinning.
            if !RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01)) {
                _ = marker.wait(timeout: .now() + .milliseconds(1))
            }
        }
        return true
    }
}
