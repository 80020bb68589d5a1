import CSQLite
import SystemShim

/// The `open` SQLite calls in this process (the unix VFS's replaceable system call),
/// checking what the journal's own connections open, so that what SQLite opens for them
/// is what was checked, and leaving every other open exactly as SQLite made it.
///
/// Readers check a journal and its side files before SQLite opens them
/// (`JournalFile.checkRegularNonEmptyFile`, `SideFileCheck`), but SQLite opens by name:
/// between the check and its `open`, a file found by a directory scan could be swapped
/// for a FIFO (the open blocks for ever), a symlink or a device. While one of this
/// package's `SQLiteDatabase` calls runs on a thread (`guarding`), every open SQLite
/// makes on that thread is made without following a final symlink (`O_NOFOLLOW`: SQLite
/// has resolved the links of a database's name itself by then) and without blocking
/// (`O_NONBLOCK`, cleared again afterwards), and the descriptor opened is checked: only a
/// regular file, a directory (SQLite syncs one after creating a file) or `/dev/urandom`
/// (its randomness) is handed to SQLite; anything else is closed and the open fails
/// (`ENXIO`, which SQLite reports as `SQLITE_CANTOPEN`).
///
/// The replaceable system call is shared by every unix VFS of the process, so the app's
/// own SQLite goes through it too: outside `guarding`, the call is `open(2)` with the
/// very bytes and flags SQLite passed (a path is never turned into a `String`, which
/// would change bytes that are not UTF-8).
package enum GuardedFileOpen {
    /// Whether the hook is in place: installed once, by the first connection made
    /// (`SQLiteDatabase.init`), before SQLite opens any file through this process's code.
    package static let installed: Bool = {
        guard let vfs = sqlite3_vfs_find(nil), vfs.pointee.iVersion >= 3, let set = vfs.pointee.xSetSystemCall else {
            return false
        }
        let hook: @convention(c) (UnsafePointer<CChar>?, Int32, Int32) -> Int32 = { path, flags, mode in
            GuardedFileOpen.isGuarding ? GuardedFileOpen.openChecked(path, flags, mode) : GuardedFileOpen.openAsAsked(path, flags, mode)
        }
        return set(vfs, "open", unsafeBitCast(hook, to: sqlite3_syscall_ptr.self)) == SQLITE_OK
    }()

    /// The thread-specific mark of a `guarding` call in progress (non-nil while one runs).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key left for GuardedFileOpen")
        return key
    }()

    /// Whether a `guarding` call runs on this thread.
    package static var isGuarding: Bool { pthread_getspecific(key) != nil }

    /// Runs `body` (one of this package's calls into SQLite) with every open SQLite makes
    /// on this thread checked.
    @inline(__always)
    package static func guarding<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let outer = pthread_getspecific(key)
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
        defer { pthread_setspecific(key, outer) }
        return try body()
    }

    /// `open(2)` exactly as SQLite asked for it: the app's own databases.
    package static func openAsAsked(_ path: UnsafePointer<CChar>?, _ flags: Int32, _ mode: Int32) -> Int32 {
        guard let path else {
            errno = EINVAL
            return -1
        }
        return open(path, flags, mode_t(mode))
    }

    /// `open(2)` as SQLite calls it for a journal's connection, refusing what SQLite must
    /// never read or write. The path is passed on as the bytes SQLite gave.
    package static func openChecked(_ path: UnsafePointer<CChar>?, _ flags: Int32, _ mode: Int32) -> Int32 {
        guard let path else {
            errno = EINVAL
            return -1
        }
        let descriptor = open(path, flags | O_NOFOLLOW | O_NONBLOCK, mode_t(mode))
        guard descriptor >= 0 else { return -1 }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let failure = errno
            close(descriptor)
            errno = failure
            return -1
        }
        let type = status.st_mode & S_IFMT
        guard type == S_IFREG || type == S_IFDIR || (type == S_IFCHR && strcmp(path, "/dev/urandom") == 0) else {
            close(descriptor)
            errno = ENXIO
            return -1
        }
        if flags & O_NONBLOCK == 0 {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        }
        return descriptor
    }
}
