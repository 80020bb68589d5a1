import SystemShim

/// The database files this process's `SQLiteDatabase` connections have open, by device
/// and inode.
///
/// Closing any descriptor of a file releases every `fcntl` lock this process holds on it
/// (POSIX record locks belong to the process, not the descriptor), SQLite's included. So
/// code outside SQLite may open and close a database file of its own only while no
/// connection of this process has it open: `ReaderSideFiles` asks here first. Thread-safe.
final class OpenDatabaseFiles: Sendable {
    /// The process's one table.
    static let shared = OpenDatabaseFiles()

    /// A file, as the system tells files apart.
    struct Identity: Hashable {
        var device: UInt64
        var inode: UInt64

        /// The identity of the file at `path` (following links), or `nil` if none is there.
        init?(path: String) {
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            self.init(status)
        }

        init(_ status: stat) {
            device = UInt64(truncatingIfNeeded: status.st_dev)
            inode = UInt64(truncatingIfNeeded: status.st_ino)
        }
    }

    private let lock = Lock()
    nonisolated(unsafe) private var counts: [Identity: Int] = [:]

    /// Counts a connection opened on `identity`.
    func opened(_ identity: Identity) {
        lock.withLock { counts[identity, default: 0] += 1 }
    }

    /// Counts a connection on `identity` closed.
    func closed(_ identity: Identity) {
        lock.withLock {
            let left = (counts[identity] ?? 1) - 1
            counts[identity] = left > 0 ? left : nil
        }
    }

    /// Whether a connection of this process has `identity` open.
    func isOpen(_ identity: Identity) -> Bool {
        lock.withLock { counts[identity] != nil }
    }
}
