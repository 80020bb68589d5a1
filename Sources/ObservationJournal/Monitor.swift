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
        check(pthread_mutex_init(mutex, nil), "pthread_mutex_init")
    }

    deinit {
        for condition in conditions {
            check(pthread_cond_destroy(condition), "pthread_cond_destroy")
            condition.deallocate()
        }
        check(pthread_mutex_destroy(mutex), "pthread_mutex_destroy")
        mutex.deallocate()
    }

    /// A new condition, on the monotonic clock so timed waits ignore wall-clock changes.
    /// Create conditions before sharing the monitor.
    func makeCondition() -> Condition {
        let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        check(pthread_condattr_init(&attributes), "pthread_condattr_init")
        #if !canImport(Darwin)
        check(pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC), "pthread_condattr_setclock")
        #endif
        check(pthread_cond_init(condition, &attributes), "pthread_cond_init")
        check(pthread_condattr_destroy(&attributes), "pthread_condattr_destroy")
        conditions.append(condition)
        return Condition(pointer: condition)
    }

    @inline(__always) func lock() { check(pthread_mutex_lock(mutex), "pthread_mutex_lock") }
    @inline(__always) func unlock() { check(pthread_mutex_unlock(mutex), "pthread_mutex_unlock") }

    /// Releases the lock until `condition` is signalled. Call with the lock held.
    @inline(__always) func wait(_ condition: Condition) {
        check(pthread_cond_wait(condition.pointer, mutex), "pthread_cond_wait")
    }

    /// Like `wait`, giving up after `nanoseconds`.
    func wait(_ condition: Condition, nanoseconds: UInt64) {
        var deadline = timespec()
        #if canImport(Darwin)
        deadline.tv_sec = Int(nanoseconds / 1_000_000_000)
        deadline.tv_nsec = Int(nanoseconds % 1_000_000_000)
        checkTimedWait(pthread_cond_timedwait_relative_np(condition.pointer, mutex, &deadline))
        #else
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let total = UInt64(deadline.tv_nsec) + nanoseconds % 1_000_000_000
        deadline.tv_sec += Int(nanoseconds / 1_000_000_000 + total / 1_000_000_000)
        deadline.tv_nsec = Int(total % 1_000_000_000)
        checkTimedWait(pthread_cond_timedwait(condition.pointer, mutex, &deadline))
        #endif
    }

    /// A timed wait ends by a signal (0) or at its deadline (`ETIMEDOUT`); anything else
    /// is a bug in the monitor's use.
    @inline(__always) private func checkTimedWait(_ result: Int32) {
        precondition(result == 0 || result == ETIMEDOUT, "pthread_cond_timedwait failed: \(String(cString: strerror(result)))")
    }

    @inline(__always) func signal(_ condition: Condition) { check(pthread_cond_signal(condition.pointer), "pthread_cond_signal") }
    @inline(__always) func broadcast(_ condition: Condition) {
        check(pthread_cond_broadcast(condition.pointer), "pthread_cond_broadcast")
    }
}

/// Stops on a failed pthread call: each failure these calls can report (`EINVAL`,
/// `EDEADLK`, `EPERM`, `EBUSY`) means the monitor is used wrongly, and going on would
/// corrupt the buffer's state or deadlock the app.
@inline(__always)
private func check(_ result: Int32, _ call: StaticString) {
    precondition(result == 0, "\(call) failed: \(String(cString: strerror(result)))")
}
