import CSQLite
import SystemShim

/// The `open` every file SQLite opens in this process goes through (the unix VFS's
/// replaceable system call), so that what SQLite opens is what was checked.
///
/// Readers check a journal and its side files before SQLite opens them
/// (`JournalFile.checkRegularNonEmptyFile`, `SideFileCheck`), but SQLite opens by name:
/// between the check and its `open`, a file found by a directory scan could be swapped
/// for a FIFO (the open blocks for ever), a symlink or a device. Here every open is made
/// without following a final symlink (`O_NOFOLLOW`: SQLite has resolved the links of a
/// database's name itself by then) and without blocking (`O_NONBLOCK`, cleared again
/// afterwards), and the descriptor opened is checked: only a regular file, a directory
/// (SQLite syncs one after creating a file) or `/dev/urandom` (its randomness) is handed
/// to SQLite; anything else is closed and the open fails (`ENXIO`, which SQLite reports
/// as `SQLITE_CANTOPEN`).
package enum GuardedFileOpen {
    /// Whether the guard is in place: installed once, by the first connection made
    /// (`SQLiteDatabase.init`), before SQLite opens any file through this process's code.
    package static let installed: Bool = {
        guard let vfs = sqlite3_vfs_find(nil), vfs.pointee.iVersion >= 3, let set = vfs.pointee.xSetSystemCall else {
            return false
        }
        let guarded: @convention(c) (UnsafePointer<CChar>?, Int32, Int32) -> Int32 = { path, flags, mode in
            GuardedFileOpen.open(path, flags, mode)
        }
        return set(vfs, "open", unsafeBitCast(guarded, to: sqlite3_syscall_ptr.self)) == SQLITE_OK
    }()

    /// `open(2)` as SQLite calls it, refusing what SQLite must never read or write.
    package static func open(_ path: UnsafePointer<CChar>?, _ flags: Int32, _ mode: Int32) -> Int32 {
        guard let path else {
            errno = EINVAL
            return -1
        }
        let descriptor = systemOpen(String(cString: path), flags | O_NOFOLLOW | O_NONBLOCK, mode_t(mode))
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
