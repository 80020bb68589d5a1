import SystemShim

/// A journal's `-wal` and `-shm` files as a writer's connection found them.
///
/// When the journal is removed or replaced while a session records, SQLite leaves the
/// connection's `-wal` beside the path (it does not checkpoint a moved file), and the next
/// connection to open whatever is at the path then would apply that WAL to it: a stale
/// session's pages over a replacement journal, or over a new journal created at the path.
/// The writer therefore removes these files itself, but only while they are still the
/// very files it found (same device and inode), never another writer's.
struct SideFiles {
    private struct Identity {
        var path: String
        var device: UInt64
        var inode: UInt64
    }

    private let identities: [Identity]

    /// The side files of the journal at `path` that exist now.
    init(journal path: String) {
        identities = ["-wal", "-shm"].compactMap { suffix in
            Self.identity(of: path + suffix).map { Identity(path: path + suffix, device: $0.device, inode: $0.inode) }
        }
    }

    /// Removes each side file that is still the one found at `init`.
    func removeIfUnchanged() {
        for file in identities {
            guard let now = Self.identity(of: file.path), now.device == file.device, now.inode == file.inode else {
                continue
            }
            unlink(file.path)
        }
    }

    private static func identity(of path: String) -> (device: UInt64, inode: UInt64)? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return (UInt64(status.st_dev), UInt64(status.st_ino))
    }
}
