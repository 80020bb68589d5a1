/// How the process services its main queue while an app runs: the two ways a Linux
/// command-line program runs a main loop.
package enum MainLoop: String, CaseIterable, Sendable {
    /// `RunLoop.main.run()`: main-queue work runs on the main thread.
    case runLoop = "run-loop"
    /// `dispatchMain()`: on Linux the main queue is drained by a dispatch worker thread,
    /// where `Thread.isMainThread` is false, yet it is still the main queue.
    case dispatchMain = "dispatch-main"
}
