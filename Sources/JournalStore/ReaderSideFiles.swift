import SystemShim

/// The `-wal` and `-shm` a read creates beside a WAL journal that had none, removed when
/// the read is over if nothing else uses them.
///
/// A read goes through SQLite's WAL protocol, so that an app that starts recording into
/// the journal meanwhile cannot change what the read sees: the read's mark in the `-shm`
/// keeps the app's checkpoints from writing pages the read still needs (`immutable=1`
/// takes no locks, and reads beside a recording app lost rows). But SQLite's read-only
/// connection creates an empty `-wal` and a `-shm` and never removes them; only the last
/// writer's close does. So after the read's connection has closed, `removeIfUnused`
/// removes them, under two conditions that must stay true:
/// - it holds an exclusive lock on SQLite's shared-lock bytes of the journal, owned by
///   its open file description: a connection in WAL mode holds a shared lock there for as
///   long as it is open, so the lock fails while any other connection, of any process,
///   has the journal open, and one that opens meanwhile waits for it in SQLite's busy
///   handler;
/// - the `-wal` is still empty: an app that recorded while the read went on, and closed
///   first, left its committed transactions there, and they are the journal's.
///
/// The journal is opened for writing only to take that lock (Linux's open-file-description
/// locks need it); nothing is written to it.
package struct ReaderSideFiles: Sendable {
    /// SQLite's lock bytes in the main file: `PENDING_BYTE` (1 GiB) + 2, for 510 bytes.
    static let sharedLockStart: Int64 = 0x4000_0000 + 2
    static let sharedLockLength: Int64 = 510

    let journal: String
    let identity: OpenDatabaseFiles.Identity

    /// The plan for a read-only connection about to open `path`, which has no side file;
    /// `nil` where its side files could not be removed safely afterwards: this process may
    /// not create files beside it or open it for writing, a connection of this process has
    /// it open (closing a descriptor of it would release that connection's locks), or the
    /// platform has no open-file-description locks.
    package static func plan(for path: String) -> ReaderSideFiles? {
        #if os(Linux)
        guard JournalFile.directoryIsWritable(path), access(path, W_OK) == 0,
            let identity = OpenDatabaseFiles.Identity(path: path),
            !OpenDatabaseFiles.shared.isOpen(identity)
        else { return nil }
        return ReaderSideFiles(journal: path, identity: identity)
        #else
        return nil
        #endif
    }

    /// Removes the journal's `-wal` and `-shm` if the `-wal` is empty and no connection
    /// has the journal open; otherwise leaves everything as it is. Call after the read's
    /// own connection has closed.
    /// - Returns: whether they were removed.
    @discardableResult
    package func removeIfUnused() -> Bool {
        guard !OpenDatabaseFiles.shared.isOpen(identity) else { return false }
        let descriptor = systemOpen(journal, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0)
        guard descriptor >= 0 else { return false }
        // Closing the descriptor releases the lock.
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
            OpenDatabaseFiles.Identity(status) == identity,
            lockExclusivelyForDescription(descriptor, start: Self.sharedLockStart, length: Self.sharedLockLength)
        else { return false }
        guard let wal = ownedRegularFile(journal + "-wal"), wal.st_size == 0,
            ownedRegularFile(journal + "-shm") != nil
        else { return false }
        return unlink(journal + "-wal") == 0 && unlink(journal + "-shm") == 0
    }

    /// The status of `path` if it is a regular file of this user with one link.
    private func ownedRegularFile(_ path: String) -> stat? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid(),
            status.st_nlink == 1
        else { return nil }
        return status
    }
}
