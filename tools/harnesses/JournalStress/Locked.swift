import Foundation

/// A value shared between the harness's threads, behind an `NSLock`.
///
/// Not `Synchronization.Mutex`: on Linux it locks with raw futex calls that ThreadSanitizer
/// does not intercept, so the TSan-built soak reported a hand-over between two threads
/// under the lock as a race (as `Protected` in ObserverCore explains).
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
