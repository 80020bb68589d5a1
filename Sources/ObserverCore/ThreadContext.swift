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

/// The calling thread's CPU time in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`): what a
/// callback itself spent, without the time its thread was preempted.
@inline(__always)
func threadCPUNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
}

/// How many times the calling thread has given up the CPU voluntarily (slept, waited for
/// a lock, for I/O), or `nil` where the system does not count it per thread. Preemption
/// is not counted: the difference over a callback says whether it *blocked*.
@inline(__always)
func voluntaryContextSwitches() -> UInt64? {
    #if os(Linux)
    var usage = rusage()
    // RUSAGE_THREAD (1) is a GNU extension Swift's Glibc module does not import.
    guard getrusage(__rusage_who_t(1), &usage) == 0 else { return nil }
    return UInt64(clamping: usage.ru_nvcsw)
    #else
    return nil
    #endif
}

/// The monotonic clock in nanoseconds.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
}
