/// Objects the registry found alive by reading their weak references under its lock,
/// held until the lock is released.
///
/// Reading a weak reference takes a strong one. If the app drops its last reference to
/// that object on another thread in the meantime, the reader's release is the last one
/// and runs the object's `deinit` there and then. Under the registry's lock that is a
/// hang: a `deinit` that releases its tokens (where owners should keep them) or its
/// `ObservableValue`s calls the registry, whose lock its own thread already holds. So
/// every weak read under the lock goes through `isGone`, and the caller releases what it
/// kept after the lock, as it does with its `garbage` entries. (The object may still die
/// on the reading thread then, a moment after the app let it go: a weak reference never
/// promised which thread runs the `deinit`.)
struct KeptAlive {
    /// The first object kept, held without allocating: most callers read one reference.
    private var first: AnyObject?
    private var others: [AnyObject] = []

    /// Whether `object`, one read of a weak reference, found it gone; if not, it is kept.
    mutating func isGone(_ object: AnyObject?) -> Bool {
        guard let object else { return true }
        if first == nil {
            first = object
        } else {
            others.append(object)
        }
        return false
    }
}
