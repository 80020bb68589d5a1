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

/// Puts `/dev/null` on each of standard input, output and error that is closed, opened
/// for the other direction (input write-only, output and error read-only), so that a
/// read or write there still fails (`EBADF`) as it would have, while no file the process
/// opens later can take that number. A tool started with one of them closed (a SwiftPM
/// command plugin's tool runs with standard input closed) would otherwise hand descriptor
/// 0, 1 or 2 to its next `open`, and its messages or data would go into that file.
package func reserveStandardDescriptors() {
    for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
        // The lowest free number: this one, since any lower one was filled first. Not
        // close-on-exec: a child gets the same stand-in.
        let null = open("/dev/null", descriptor == 0 ? O_WRONLY : O_RDONLY)
        if null >= 0, null != descriptor { close(null) }
    }
}

/// Whether every byte of `text`'s UTF-8 is printable ASCII (space to `~`): read in place
/// where the string's storage is contiguous (a native string), which decoding it byte by
/// byte through `String.UTF8View` is not.
package func isPrintableASCII(_ text: String) -> Bool {
    // `byte &- 0x20 < 0x5F`: below space wraps past it, DEL (0x7F) lands on it.
    text.utf8.withContiguousStorageIfAvailable { bytes in bytes.allSatisfy { $0 &- 0x20 < 0x5F } }
        ?? text.utf8.allSatisfy { $0 &- 0x20 < 0x5F }
}

/// The C library's text for the error `code` (an `errno` value), `strerror(3)`.
package func errorText(_ code: Int32) -> String {
    String(cString: strerror(code))
}

/// `unlink(2)`.
/// - Returns: 0, or -1 with `errno` set.
@discardableResult
package func systemUnlink(_ path: String) -> Int32 {
    unlink(path)
}

/// `rename(2)`.
/// - Returns: 0, or -1 with `errno` set.
package func systemRename(_ source: String, _ destination: String) -> Int32 {
    rename(source, destination)
}

/// `stat(2)`: what `path` names, following symlinks; `nil` with `errno` set when it
/// cannot be read (nothing there, a dangling symlink, no permission).
package func fileStatus(_ path: String) -> stat? {
    var status = stat()
    return stat(path, &status) == 0 ? status : nil
}

/// `lstat(2)`: what `path` itself is (a symlink is not followed); `nil` with `errno` set
/// when it cannot be read.
package func linkStatus(_ path: String) -> stat? {
    var status = stat()
    return lstat(path, &status) == 0 ? status : nil
}

/// Writes all of `bytes` to `descriptor` with `write(2)`, retrying interrupted and short
/// writes.
/// - Returns: 0, or the `errno` of the failure (`EPIPE` when a reader went away).
package func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Int32 {
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return 0
    }
}

/// Writes all of `text`'s UTF-8 to `descriptor` (see `writeAll(_:_:)` for bytes).
/// - Returns: 0, or the `errno` of the failure.
package func writeAll(_ descriptor: Int32, _ text: String) -> Int32 {
    writeAll(descriptor, Array(text.utf8))
}

/// The names in the directory at `path` (as the bytes the file system holds, without
/// `.` and `..`), in the order `readdir(3)` gives them; `nil` if it cannot be opened.
package func directoryEntryNames(_ path: [UInt8]) -> [[UInt8]]? {
    guard let stream = opendir(path.map { CChar(bitPattern: $0) } + [0]) else { return nil }
    defer { closedir(stream) }
    var names: [[UInt8]] = []
    while let entry = readdir(stream) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
        if name != [UInt8(ascii: ".")], name != [UInt8(ascii: "."), UInt8(ascii: ".")] { names.append(name) }
    }
    return names
}

/// The names in the directory at `path`, as `directoryEntryNames(_:)`, decoded as UTF-8
/// (a byte that is not UTF-8 becomes U+FFFD).
package func directoryEntryNames(_ path: String) -> [String]? {
    directoryEntryNames(Array(path.utf8))?.map { String(decoding: $0, as: UTF8.self) }
}

/// Hands the pages the allocator holds free back to the system with glibc's
/// `malloc_trim`, looked up at run time (glibc's `RTLD_DEFAULT` is the null handle;
/// elsewhere the null handle means something else, or nothing, so no look-up).
/// - Returns: whether this C library could (`false` on musl and Darwin, which return
///   memory on their own terms).
@discardableResult
package func releaseFreeHeapPages() -> Bool {
    guard let trim = mallocTrim else { return false }
    _ = trim(0)
    return true
}

#if canImport(Glibc)
private let mallocTrim: (@convention(c) (Int) -> Int32)? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim")
    .map { unsafeBitCast($0, to: (@convention(c) (Int) -> Int32).self) }
#else
private let mallocTrim: (@convention(c) (Int) -> Int32)? = nil
#endif

/// A fixed table of paths kept as C strings, for a signal handler to remove the files
/// (or directories) they name: the handler may interrupt any thread, so it reads only
/// whole pointers from fixed slots and calls only `unlink`/`rmdir`. A slot is filled only
/// once its string is complete, and emptied before the string is freed.
///
/// Not synchronised: callers serialise `add` and `remove` (the handler only reads).
package final class SignalSafePaths {
    /// How many paths the table holds at once.
    package let capacity: Int
    private let slots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

    /// A table of `capacity` free slots; never freed (it lives as long as the process).
    package init(capacity: Int) {
        self.capacity = capacity
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: nil, count: capacity)
    }

    /// Keeps `path` in a free slot; returns the slot, or `nil` when all are taken.
    package func add(_ path: String) -> Int? {
        guard let slot = (0..<capacity).first(where: { slots[$0] == nil }) else { return nil }
        slots[slot] = strdup(path)
        return slot
    }

    /// Empties `slot` and frees its path.
    package func remove(_ slot: Int) {
        let path = slots[slot]
        slots[slot] = nil
        free(path)
    }

    /// Calls `unlink` on every path kept, then `rmdir` on every path kept (a directory
    /// whose files were among them is empty by then). Async-signal-safe.
    package func removeAllFiles() {
        for slot in 0..<capacity {
            if let path = slots[slot] { unlink(path) }
        }
        for slot in 0..<capacity {
            if let path = slots[slot] { rmdir(path) }
        }
    }
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
