import Dispatch
#if canImport(CDispatch)
// libdispatch's C interface (Linux): `dispatch_get_specific` without the Swift overlay's
// generic boxing. The overlay marks the C function unavailable under its own name.
import CDispatch
#endif

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

    #if canImport(CDispatch)
    /// `key` as libdispatch sees it: the overlay stores a value under the key object's
    /// address, and only the main queue has one (always `true`), so "a value is set" is
    /// "on the main queue". Never written after its initialisation (hence `unsafe`: a raw
    /// pointer is not `Sendable`, though only its address is ever used).
    nonisolated(unsafe) private static let rawKey = UnsafeRawPointer(Unmanaged.passUnretained(key).toOpaque())
    #endif

    /// Whether `queue` is the main queue.
    static func isMain(_ queue: DispatchQueue) -> Bool {
        queue.getSpecific(key: key) == true
    }

    /// Whether the calling code runs on the main queue (a block the main queue is
    /// draining, whichever thread drains it: `dispatchMain()` on Linux uses another).
    ///
    /// Asked for every recorded post (and for deliveries outside a post's loop): on Linux
    /// through the C functions, about 20 instructions on the main queue and 100 elsewhere;
    /// the overlay's generic `DispatchQueue.getSpecific(key:)` took about 220, with a
    /// retain and a release of the key and of the boxed value each time.
    /// (`dispatch_get_current_queue` is marked deprecated in libdispatch's header, as
    /// unreliable for telling where code runs; here it only confirms the main queue, and
    /// specifics still decide every other case.)
    static var isCurrent: Bool {
        #if canImport(CDispatch)
        // The main queue's own blocks (and the main thread outside any other queue, which
        // libdispatch runs as the main queue) answer from the thread's current queue, a
        // thread-local read; `dispatch_get_specific` locks each queue it searches (about
        // 70 instructions). Equality proves it: the key is set on that very queue. Any
        // other current queue may target the main queue, so specifics decide.
        if CDispatch.dispatch_get_current_queue() == CDispatch.dispatch_get_main_queue() { return true }
        return CDispatch.dispatch_get_specific(rawKey) != nil
        #else
        DispatchQueue.getSpecific(key: key) == true
        #endif
    }
}
