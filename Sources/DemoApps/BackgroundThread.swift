import Dispatch
import Foundation

/// Runs `work` on a new thread and returns when it has finished: a genuine other thread,
/// as an upload's progress reports or a player's timer use. `work` must not wait for the
/// UI queue (the calling thread is blocked here), so it always finishes.
func onBackgroundThread(_ work: @escaping @Sendable () -> Void) {
    let finished = DispatchSemaphore(value: 0)
    let thread = Thread {
        work()
        finished.signal()
    }
    thread.start()
    finished.wait()
}
