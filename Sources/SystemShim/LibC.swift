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
