// The package's one home for pthread locks: every `pthread_mutex_*` and `pthread_cond_*`
// call is made here, and every return code is checked. Everything else that locks builds
// on `Lock` (ObserverCore's `Protected`, the recorder's buffer, the test harnesses'
// `Locked`), or is a `Synchronization.Mutex` where ThreadSanitizer never needs to see it.

/// A pthread mutex.
///
/// Not `Synchronization.Mutex`: on Linux that locks with raw futex calls ThreadSanitizer
/// does not intercept, so anything guarded by one is reported as a race under TSan (the
/// concurrency tests, the soak); TSan knows pthread mutexes. And a `Lock` has condition
/// variables (`LockCondition`).
///
/// Every call's return code is checked: each failure these calls can report (`EINVAL`,
/// `EDEADLK`, `EPERM`, `EBUSY`, `EAGAIN`, `ENOMEM`) means a lock used wrongly or a system
/// out of resources, and going on would corrupt what the lock guards or deadlock the app,
/// so it stops the process with the call's name and error. Debug builds make the mutex an
/// error-checking one, so locking it twice on a thread or unlocking it from another thread
/// stops there instead of deadlocking or going unnoticed.
///
/// Noncopyable: it owns its mutex, in memory of its own (pthread needs a fixed address),
/// and destroys it when it ends.
///
/// `public` (SystemShim is no product: only the package's modules see it), because only
/// public `@inlinable` code is inlined into other modules without cross-module
/// optimisation: a `package` lock and unlock stayed calls, a dozen instructions per
/// locked section on the registry's post path.
public struct Lock: ~Copyable, @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// A new, unlocked mutex.
    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        checkPthread(pthread_mutexattr_init(&attributes), "pthread_mutexattr_init")
        #if DEBUG
        checkPthread(
            pthread_mutexattr_settype(&attributes, .init(PTHREAD_MUTEX_ERRORCHECK)), "pthread_mutexattr_settype"
        )
        #endif
        checkPthread(pthread_mutex_init(mutex, &attributes), "pthread_mutex_init")
        checkPthread(pthread_mutexattr_destroy(&attributes), "pthread_mutexattr_destroy")
    }

    deinit {
        checkPthread(pthread_mutex_destroy(mutex), "pthread_mutex_destroy")
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Takes the mutex, waiting for it if another thread holds it.
    @inlinable @inline(__always)
    public func lock() {
        let result = pthread_mutex_lock(mutex)
        if result != 0 { pthreadFailed(result, "pthread_mutex_lock") }
    }

    /// Releases the mutex this thread took.
    @inlinable @inline(__always)
    public func unlock() {
        let result = pthread_mutex_unlock(mutex)
        if result != 0 { pthreadFailed(result, "pthread_mutex_unlock") }
    }

    /// Runs `body` holding the mutex.
    @inlinable @inline(__always)
    public func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Releases the mutex until `condition` is signalled, then takes it again. Call with
    /// the mutex held, in a loop that re-checks what is waited for (a wait may end
    /// without a signal).
    package func wait(_ condition: borrowing LockCondition) {
        checkPthread(pthread_cond_wait(condition.condition, mutex), "pthread_cond_wait")
    }

    /// Like `wait(_:)`, giving up after `nanoseconds` (on the monotonic clock: a change of
    /// the wall clock neither shortens nor stretches it).
    package func wait(_ condition: borrowing LockCondition, nanoseconds: UInt64) {
        var deadline = timespec()
        #if canImport(Darwin)
        deadline.tv_sec = Int(nanoseconds / 1_000_000_000)
        deadline.tv_nsec = Int(nanoseconds % 1_000_000_000)
        let result = pthread_cond_timedwait_relative_np(condition.condition, mutex, &deadline)
        #else
        checkPthread(clock_gettime(CLOCK_MONOTONIC, &deadline) == 0 ? 0 : errno, "clock_gettime")
        let total = UInt64(deadline.tv_nsec) + nanoseconds % 1_000_000_000
        deadline.tv_sec += Int(nanoseconds / 1_000_000_000 + total / 1_000_000_000)
        deadline.tv_nsec = Int(total % 1_000_000_000)
        let result = pthread_cond_timedwait(condition.condition, mutex, &deadline)
        #endif
        // A timed wait ends by a signal (0) or at its deadline.
        if result != ETIMEDOUT { checkPthread(result, "pthread_cond_timedwait") }
    }
}

/// A pthread condition variable, waited for with a `Lock` (`Lock.wait`), on the monotonic
/// clock. Every call's return code is checked, as `Lock`'s are.
package struct LockCondition: ~Copyable {
    @usableFromInline let condition: UnsafeMutablePointer<pthread_cond_t>

    /// A new condition, whose timed waits run on the monotonic clock.
    package init() {
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        checkPthread(pthread_condattr_init(&attributes), "pthread_condattr_init")
        #if !canImport(Darwin)
        checkPthread(pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC), "pthread_condattr_setclock")
        #endif
        checkPthread(pthread_cond_init(condition, &attributes), "pthread_cond_init")
        checkPthread(pthread_condattr_destroy(&attributes), "pthread_condattr_destroy")
    }

    deinit {
        checkPthread(pthread_cond_destroy(condition), "pthread_cond_destroy")
        condition.deinitialize(count: 1)
        condition.deallocate()
    }

    /// Wakes one thread waiting for the condition, if any.
    package func signal() {
        checkPthread(pthread_cond_signal(condition), "pthread_cond_signal")
    }

    /// Wakes every thread waiting for the condition.
    package func broadcast() {
        checkPthread(pthread_cond_broadcast(condition), "pthread_cond_broadcast")
    }
}

/// Stops unless `result`, the return code of the pthread call `call`, is 0.
@inline(__always)
private func checkPthread(_ result: Int32, _ call: StaticString) {
    if result != 0 { pthreadFailed(result, call) }
}

/// Stops the process: pthread call `call` returned the error `result`. Out of line, so
/// the checks inlined into every lock and unlock stay a compare and a branch;
/// `fatalError`, whose message optimised builds print too.
@usableFromInline @inline(never)
package func pthreadFailed(_ result: Int32, _ call: StaticString) -> Never {
    fatalError("\(call) failed: error \(result) (\(String(cString: strerror(result))))")
}
