import CThreadContext
import Dispatch

/// Recognises the main queue.
///
/// On Linux `DispatchQueue.main` returns a new wrapper object on every access, so
/// `queue === DispatchQueue.main` is never true there. A specific value set once on the
/// main queue is stored on the underlying queue and seen through every wrapper.
enum MainQueue {
    static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// What `oj_on_main_queue` compares with: `key` as libdispatch sees it (the overlay
    /// stores a value under the key object's address, and only the main queue has one, so
    /// "a value is set" is "on the main queue") and the main queue's label. Never written
    /// after its initialisation (hence `unsafe`: raw pointers are not `Sendable`, though
    /// only their addresses are ever used); one value, so one initialisation check per use.
    nonisolated(unsafe) private static let main = (
        key: UnsafeRawPointer(Unmanaged.passUnretained(key).toOpaque()), label: oj_main_queue_label()
    )

    /// Whether `queue` is the main queue.
    static func isMain(_ queue: DispatchQueue) -> Bool {
        queue.getSpecific(key: key) == true
    }

    /// Whether the calling code runs on the main queue: a block the main queue is draining,
    /// whichever thread drains it (`dispatchMain()` on Linux uses another), a block of a
    /// queue that targets it, or the main thread outside any other queue.
    ///
    /// Asked for every recorded post, so it goes through libdispatch's C interface
    /// (`CThreadContext`'s `oj_on_main_queue`: the current queue's label, then
    /// `dispatch_get_specific`) rather than the overlay's `DispatchQueue.getSpecific(key:)`,
    /// which boxes the value and retains the key on every call. `MainQueueTests` and the
    /// `MainLoopProbe` tests pin its answers under both Linux main loops.
    static var isCurrent: Bool {
        oj_on_main_queue(main.key, main.label)
    }
}
