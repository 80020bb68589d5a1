import SystemShim

/// A mutex with condition variables: what the event buffer needs to let producers, the
/// writer thread and `flush()` wait for each other. `Synchronization.Mutex` has no
/// condition variables, and Foundation's `NSCondition` has one per lock.
///
/// Callers lock, check their state, wait and unlock explicitly; every `wait` must be in a
/// loop re-checking its condition (spurious wake-ups).
final class Monitor: @unchecked Sendable {
    /// One condition of the monitor.
    struct Condition {
        fileprivate let pointer: UnsafeMutablePointer<pthread_cond_t>
    }

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var conditions: [UnsafeMutablePointer<pthread_cond_t>] = []

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        for condition in conditions {
            pthread_cond_destroy(condition)
            condition.deallocate()
        }
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// A new condition, on the monotonic clock so timed waits ignore wall-clock changes.
    /// Create conditions before sharing the monitor.
    func makeCondition() -> Condition {
        let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        #if !canImport(Darwin)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        #endif
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        conditions.append(condition)
        return Condition(pointer: condition)
    }

    @inline(__always) func lock() { pthread_mutex_lock(mutex) }
    @inline(__always) func unlock() { pthread_mutex_unlock(mutex) }

    /// Releases the lock until `condition` is signalled. Call with the lock held.
    @inline(__always) func wait(_ condition: Condition) { pthread_cond_wait(condition.pointer, mutex) }

    /// Like `wait`, giving up after `nanoseconds`.
    func wait(_ condition: Condition, nanoseconds: UInt64) {
        var deadline = timespec()
        #if canImport(Darwin)
        deadline.tv_sec = Int(nanoseconds / 1_000_000_000)
        deadline.tv_nsec = Int(nanoseconds % 1_000_000_000)
        pthread_cond_timedwait_relative_np(condition.pointer, mutex, &deadline)
        #else
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let total = UInt64(deadline.tv_nsec) + nanoseconds % 1_000_000_000
        deadline.tv_sec += Int(nanoseconds / 1_000_000_000 + total / 1_000_000_000)
        deadline.tv_nsec = Int(total % 1_000_000_000)
        pthread_cond_timedwait(condition.pointer, mutex, &deadline)
        #endif
    }

    @inline(__always) func signal(_ condition: Condition) { pthread_cond_signal(condition.pointer) }
    @inline(__always) func broadcast(_ condition: Condition) { pthread_cond_broadcast(condition.pointer) }
}
