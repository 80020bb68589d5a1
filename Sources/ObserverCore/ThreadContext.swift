import SystemShim
import Foundation
import Synchronization

/// Per-thread facts the registry records: a small thread number, whether it is the main
/// thread, and the current dispatch depth. Kept in a pthread key because Swift has no
/// thread-local storage of its own; only used when a sink is installed.
final class ThreadContext {
    let number: UInt64
    let isMain: Bool
    var depth = 0

    private init(number: UInt64, isMain: Bool) {
        self.number = number
        self.isMain = isMain
    }

    private static let nextNumber = Atomic<UInt64>(1)

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            #if canImport(Darwin)
            Unmanaged<ThreadContext>.fromOpaque(pointer).release()
            #else
            if let pointer { Unmanaged<ThreadContext>.fromOpaque(pointer).release() }
            #endif
        }
        return key
    }()

    /// The calling thread's context, created on first use.
    static var current: ThreadContext {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<ThreadContext>.fromOpaque(pointer).takeUnretainedValue()
        }
        let context = ThreadContext(
            number: nextNumber.add(1, ordering: .relaxed).oldValue,
            isMain: Thread.isMainThread
        )
        pthread_setspecific(key, Unmanaged.passRetained(context).toOpaque())
        return context
    }
}

/// What the calling thread has used so far: its CPU time (the thread CPU clock, without
/// the time it was preempted) and how many times it gave up the CPU voluntarily (slept,
/// waited for a lock or I/O; `nil` where the system does not count it per thread).
/// Differences over a callback say what the callback itself spent, and whether it blocked.
struct ThreadUsage {
    var cpuNanoseconds: UInt64
    var voluntarySwitches: UInt64?

    /// The calling thread's usage now.
    ///
    /// On Linux one `getrusage(RUSAGE_THREAD)` gives both: its user + system time is the
    /// thread CPU clock (`CLOCK_THREAD_CPUTIME_ID`, both are the task's exec runtime) to
    /// the microsecond, and a second system call per reading (the thread CPU clock is not
    /// in the vDSO: about 450 ns each here) would take recording over its 1 µs per event.
    @inline(__always)
    static var current: ThreadUsage {
        #if os(Linux)
        var usage = rusage()
        // RUSAGE_THREAD (1) is a GNU extension Swift's Glibc module does not import.
        if getrusage(__rusage_who_t(1), &usage) == 0 {
            let micros = Int64(usage.ru_utime.tv_sec) &* 1_000_000 &+ Int64(usage.ru_utime.tv_usec)
                &+ Int64(usage.ru_stime.tv_sec) &* 1_000_000 &+ Int64(usage.ru_stime.tv_usec)
            return ThreadUsage(
                cpuNanoseconds: UInt64(clamping: micros) &* 1_000, voluntarySwitches: UInt64(clamping: usage.ru_nvcsw)
            )
        }
        #endif
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return ThreadUsage(
            cpuNanoseconds: UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec), voluntarySwitches: nil
        )
    }
}

/// The monotonic clock in nanoseconds (`CLOCK_MONOTONIC`, the same in every process of the
/// machine): what `ObserverEvent.time` and the recorder's session start are read from.
@inline(__always)
package func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
}
