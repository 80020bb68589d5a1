// The one place that chooses the C library: every other file imports `SystemShim`, never
// Glibc, Musl or Darwin directly, so the package builds wherever one of them exists and
// says so clearly where none does.
#if canImport(Glibc)
@_exported public import Glibc
#elseif canImport(Musl)
@_exported public import Musl
#elseif canImport(Darwin)
@_exported public import Darwin
#else
#error("ObservationJournal needs a C library module: Glibc, Musl or Darwin")
#endif

/// `open(2)` with a mode, under a name of its own: inside a type that has an `open` method
/// (`Journal.open`), the bare C name would resolve to the method.
/// - Returns: the descriptor, or -1 with `errno` set.
@inlinable
public func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}

/// `write(2)`, under a name of its own for types with a `write` method.
/// - Returns: the bytes written, or -1 with `errno` set.
@inlinable
public func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

/// Sleeps for `nanoseconds` in all: a signal that ends `nanosleep(2)` early (another
/// thread's child exiting sends the process SIGCHLD) resumes the sleep for what is left.
/// For stand-ins of blocking work whose length a test or harness relies on.
package func sleepFully(nanoseconds: Int) {
    var request = timespec(tv_sec: nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR {
        request = remaining
    }
}

/// `getrusage(RUSAGE_THREAD)`: the calling thread's resource usage (its voluntary context
/// switches, `ru_nvcsw`, are what callers read). `false` where the C library has no
/// per-thread usage: Darwin has no `RUSAGE_THREAD`, and no other public per-thread count
/// of voluntary switches (Mach's `thread_basic_info` holds CPU times, not waits).
package func threadResourceUsage(_ usage: inout rusage) -> Bool {
    #if canImport(Glibc)
    // RUSAGE_THREAD (1) is a GNU extension Swift's Glibc module does not import; glibc
    // declares `getrusage(__rusage_who_t, struct rusage *)`.
    return getrusage(__rusage_who_t(1), &usage) == 0
    #elseif canImport(Musl)
    // musl: `getrusage(int, struct rusage *)`, RUSAGE_THREAD 1 (sys/resource.h).
    return getrusage(1, &usage) == 0
    #else
    return false
    #endif
}

/// `getrusage(RUSAGE_SELF)`: the whole process's resource usage.
package func processResourceUsage(_ usage: inout rusage) -> Bool {
    #if canImport(Glibc)
    return getrusage(RUSAGE_SELF.rawValue, &usage) == 0
    #else
    // musl and Darwin: `getrusage(int, struct rusage *)`, RUSAGE_SELF 0.
    return getrusage(0, &usage) == 0
    #endif
}

/// The peak resident set size in `usage`, in bytes: Linux counts `ru_maxrss` in KiB,
/// Darwin in bytes.
package func peakResidentBytes(_ usage: rusage) -> Int {
    #if canImport(Darwin)
    return Int(usage.ru_maxrss)
    #else
    return Int(usage.ru_maxrss) * 1024
    #endif
}

extension sigaction {
    /// The action's `sa_handler` (`nil` is `SIG_DFL`), under one name: the C field is a
    /// macro for a union member each C library names differently (glibc
    /// `__sigaction_handler`, musl `__sa_handler`, Darwin `__sigaction_u.__sa_handler`),
    /// and Swift does not import the macro.
    package var handler: (@convention(c) (Int32) -> Void)? {
        get {
            #if canImport(Glibc)
            return __sigaction_handler.sa_handler
            #elseif canImport(Musl)
            return __sa_handler.sa_handler
            #else
            return __sigaction_u.__sa_handler
            #endif
        }
        set {
            #if canImport(Glibc)
            __sigaction_handler.sa_handler = newValue
            #elseif canImport(Musl)
            __sa_handler.sa_handler = newValue
            #else
            __sigaction_u.__sa_handler = newValue
            #endif
        }
    }
}

/// Takes an exclusive (write) lock on `length` bytes at `start` of the file open as
/// `descriptor`, owned by the open file description rather than the process
/// (`F_OFD_SETLK`, without waiting): unlike a process's `fcntl` lock, it conflicts with
/// every other lock on those bytes, the same process's included, and is released only
/// when that description closes. `descriptor` must be open for writing.
/// - Returns: `true` if the lock is held now; `false` if another lock conflicts, or where
///   the C library has no open-file-description locks (Darwin's are not public API).
package func lockExclusivelyForDescription(_ descriptor: Int32, start: Int64, length: Int64) -> Bool {
    #if os(Linux)
    var lock = flock()
    lock.l_type = Int16(F_WRLCK)
    lock.l_whence = Int16(SEEK_SET)
    lock.l_start = off_t(start)
    lock.l_len = off_t(length)
    // F_OFD_SETLK is 37 on every Linux architecture (asm-generic/fcntl.h); glibc and musl
    // define it only under _GNU_SOURCE, which Swift's C library modules do not import.
    let setOpenFileDescriptionLock: Int32 = 37
    return fcntl(descriptor, setOpenFileDescriptionLock, &lock) == 0
    #else
    return false
    #endif
}
