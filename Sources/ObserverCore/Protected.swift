// Public: `lock()` and `unlock()` are inlined into the app's modules (see `Lock`).
public import SystemShim

/// A value guarded by a mutex (SystemShim's `Lock`, which checks every pthread call).
///
/// `Synchronization.Mutex` would be the first choice, but its `inout sending` contract
/// rejects storing non-`Sendable` objects (weak references to owners and subjects) that
/// the registry must keep; this wrapper makes the same guarantee by construction: the
/// value is only reachable inside `withLock`. It is also what ThreadSanitizer can check
/// (see `Lock`).
@usableFromInline
final class Protected<Value>: @unchecked Sendable {
    @usableFromInline let mutex = Lock()
    /// Only between `lock()` and `unlock()`; everything else goes through `withLock`.
    /// The mutex already excludes other accesses: the runtime's dynamic exclusivity check
    /// on a class property (a thread-local access set, per access) would only repeat it
    /// on the registry's hot path.
    @exclusivity(unchecked) @usableFromInline var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Takes the mutex: for code inlined into other modules, paired with `unlock()`
    /// around a use of `value`. Inlined there too: a call per lock and unlock was the
    /// largest part of a bare post's lock cost.
    @inlinable
    func lock() { mutex.lock() }

    /// Releases the mutex `lock()` took.
    @inlinable
    func unlock() { mutex.unlock() }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        mutex.lock()
        defer { mutex.unlock() }
        return try body(&value)
    }
}
