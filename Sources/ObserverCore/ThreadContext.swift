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

/// The monotonic clock in nanoseconds.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
}
