import SystemShim

/// A value guarded by a mutex.
///
/// `Synchronization.Mutex` would be the first choice, but its `inout sending` contract
/// rejects storing non-`Sendable` objects (weak references to owners and subjects) that
/// the registry must keep; this wrapper makes the same guarantee by construction: the
/// value is only reachable inside `withLock`. It is also what ThreadSanitizer can check:
/// on Linux `Mutex` locks with raw futex calls TSan does not intercept, so anything
/// guarded by one is reported as a race; TSan knows pthread mutexes.
@usableFromInline
final class Protected<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Only between `lock()` and `unlock()`; everything else goes through `withLock`.
    /// The mutex already excludes other accesses: the runtime's dynamic exclusivity check
    /// on a class property (a thread-local access set, per access) would only repeat it
    /// on the registry's hot path.
    @exclusivity(unchecked) @usableFromInline var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Takes the mutex: for code inlined into other modules (which cannot call pthread
    /// themselves), paired with `unlock()` around a use of `value`.
    @usableFromInline
    func lock() { pthread_mutex_lock(mutex) }

    /// Releases the mutex `lock()` took.
    @usableFromInline
    func unlock() { pthread_mutex_unlock(mutex) }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
