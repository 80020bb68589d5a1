import SystemShim

/// Refuses a journal whose side files someone else may have planted.
///
/// SQLite trusts whatever `-wal` it finds beside a database: opening applies it, and the
/// next checkpoint copies its pages into the database. In a directory others can write
/// (`/tmp`, a shared folder), another local user could plant `NAME-wal` holding pages of
/// their own, and the owner's sessions would be silently replaced. So before the writer
/// opens a journal, each side file that exists (`-wal`, `-shm`, `-journal`) must be a
/// regular file (not a symlink, FIFO or device), owned by the journal's owner, with a
/// single link (not a hard link to a file elsewhere). Checked with `lstat`, so links are
/// seen rather than followed.
///
/// Readers check too (`JournalFile.openForReading`), for what SQLite does to side files
/// even on a read-only connection: it opens a `-journal` to see whether it is hot (a
/// FIFO there blocked every command forever) and writes the `-shm` (a hard link there
/// had its other name overwritten with the WAL index).
package enum SideFileCheck {
    package static let suffixes = ["-wal", "-shm", "-journal"]

    /// Throws `JournalError.unsafeSideFile` for the first side file of the journal at
    /// `path` that fails the rules; does nothing if the journal itself does not exist.
    /// - Parameter reader: a user whose own side files are accepted too: a reader's
    ///   connection creates the `-wal` and `-shm` of a journal it reads if they are
    ///   missing, owned by the reader, and reading it again must not refuse them.
    package static func check(journal path: String, alsoOwnedBy reader: UInt32? = nil) throws(JournalError) {
        var journal = stat()
        guard stat(path, &journal) == 0 else { return }
        for suffix in suffixes {
            let side = path + suffix
            var status = stat()
            guard lstat(side, &status) == 0 else { continue }
            let type = status.st_mode & S_IFMT
            let reason: String? =
                if type == S_IFLNK {
                    "it is a symbolic link"
                } else if type != S_IFREG {
                    "it is not a regular file"
                } else if status.st_uid != journal.st_uid && status.st_uid != reader {
                    "it is owned by uid \(status.st_uid), the journal by uid \(journal.st_uid)"
                } else if status.st_nlink != 1 {
                    "it has \(status.st_nlink) hard links"
                } else {
                    nil
                }
            if let reason { throw .unsafeSideFile(path: path, sideFile: side, reason: reason) }
        }
    }
}
