import SystemShim

/// A value guarded by a mutex.
///
/// `Synchronization.Mutex` would be the first choice, but its `inout sending` contract
/// rejects storing non-`Sendable` objects (weak references to owners and subjects) that
/// the registry must keep; this wrapper makes the same guarantee by construction: the
/// value is only reachable inside `withLock`. It is also what ThreadSanitizer can check:
/// on Linux `Mutex` locks with raw futex calls TSan does not intercept, so anything
/// guarded by one is reported as a race; TSan knows pthread mutexes.
final class Protected<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

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

    @inline(__always)
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
