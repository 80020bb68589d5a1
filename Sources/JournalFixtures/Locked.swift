import Foundation

/// A value shared between the threads of a harness or a test, behind an `NSLock`.
///
/// Not `Synchronization.Mutex`: on Linux it locks with raw futex calls that ThreadSanitizer
/// does not intercept, so code run under TSan (the soak, the concurrency tests) had a
/// hand-over between two threads under the lock reported as a race (as `Protected` in
/// ObserverCore explains).
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
