import SystemShim

/// A value shared between the threads of a harness or a test, behind SystemShim's `Lock`.
///
/// Not `Synchronization.Mutex`: on Linux it locks with raw futex calls that ThreadSanitizer
/// does not intercept, so code run under TSan (the soak, the concurrency tests) had a
/// hand-over between two threads under the lock reported as a race (see `Lock`).
package final class Locked<Value>: @unchecked Sendable {
    private let lock = Lock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
