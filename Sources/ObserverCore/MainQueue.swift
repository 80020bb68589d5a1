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

    /// Whether `queue` is the main queue.
    static func isMain(_ queue: DispatchQueue) -> Bool {
        queue.getSpecific(key: key) == true
    }

    /// Whether the calling code runs on the main queue (a block the main queue is
    /// draining, whichever thread drains it: `dispatchMain()` on Linux uses another).
    static var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) == true
    }
}
