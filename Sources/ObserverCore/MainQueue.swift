import CThreadContext
import Dispatch

/// Recognises the main queue, through dispatch's documented queue-specific values only: a
/// value set once on the main queue, under a key of this type's, and asked for later.
///
/// On Linux `DispatchQueue.main` returns a new wrapper object on every access, so
/// `queue === DispatchQueue.main` is never true there. A specific value is stored on the
/// underlying queue and seen through every wrapper.
enum MainQueue {
    /// The overlay's key for `isMain`, set on the main queue when first read.
    static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Whether `oj_mark_main_queue` ran (always `true`; reading it runs it, once).
    private static let marked: Bool = {
        oj_mark_main_queue()
        return true
    }()

    /// Whether `queue` is the main queue.
    static func isMain(_ queue: DispatchQueue) -> Bool {
        queue.getSpecific(key: key) == true
    }

    /// Whether the calling code runs on the main queue: a block the main queue is draining,
    /// whichever thread drains it (`dispatchMain()` on Linux uses another), a block of a
    /// queue that targets it, or the main thread outside any other queue.
    ///
    /// Asked for every recorded post, so it goes through libdispatch's C interface
    /// (`CThreadContext`'s `oj_on_main_queue`, `dispatch_get_specific` with a C key) rather
    /// than the overlay's `DispatchQueue.getSpecific(key:)`, which boxes the value and
    /// retains the key on every call. `MainQueueTests` and the `MainLoopProbe` tests pin
    /// its answers under both Linux main loops.
    static var isCurrent: Bool {
        _ = marked
        return oj_on_main_queue()
    }
}
