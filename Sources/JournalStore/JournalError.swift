/// Why a journal could not be opened or used. Each case names the file.
public enum JournalError: Error, CustomStringConvertible, Equatable {
    /// Nothing exists at the path.
    case fileNotFound(path: String)
    /// The path is a directory or another non-regular file.
    case notAFile(path: String)
    /// The file is empty (0 bytes): SQLite would open it as a new database, but it is
    /// not a journal.
    case emptyFile(path: String)
    /// The file is not an SQLite database.
    case notSQLite(path: String)
    /// The file is an SQLite database, but damaged (truncated, overwritten).
    case corrupt(path: String, detail: String)
    /// The file is an SQLite database of another application.
    case foreignDatabase(path: String, applicationID: Int32)
    /// The journal was written by a newer version of this library.
    case newerSchema(path: String, found: Int, supported: Int)
    /// The journal was written by an unreleased build (schemas 2 to 6), whose event layout
    /// no release reads.
    case unreleasedSchema(path: String, found: Int)
    /// The journal has an older schema and was opened read-only, so it cannot be upgraded.
    case olderSchema(path: String, found: Int, supported: Int)
    /// The session asked for does not exist in the journal.
    case unknownSession(path: String, session: Int64)
    /// The file is refused: its schema was changed outside ObservationJournal, it holds
    /// something no journal holds (a gigantic value, planner statistics), a query on it
    /// ran past its work budget, or it cannot be read where it is. `reason` says which.
    case refused(path: String, reason: String)
    /// A side file beside the journal (`-wal`, `-shm`, `-journal`) is not one the
    /// journal's owner made: a symlink, a hard link, a FIFO or device, or another user's
    /// file. Opening would apply whatever it holds to the journal, so it is refused;
    /// remove the side file if it is not yours.
    case unsafeSideFile(path: String, sideFile: String, reason: String)
    /// Another connection held the journal's write lock for longer than the options'
    /// `busyTimeoutMilliseconds`.
    case busy(path: String, milliseconds: Int)
    /// Any other SQLite failure.
    case sqlite(path: String, detail: String)

    /// One line a person can act on.
    public var description: String {
        switch self {
        case let .fileNotFound(path):
            return "\(path): no such file"
        case let .notAFile(path):
            return "\(path): not a regular file"
        case let .emptyFile(path):
            return "\(path): empty file, not a journal"
        case let .notSQLite(path):
            return "\(path): not a journal (not an SQLite database)"
        case let .corrupt(path, detail):
            return "\(path): journal is damaged (\(detail))"
        case let .foreignDatabase(path, applicationID):
            return "\(path): not a journal (an SQLite database of another application, application_id \(applicationID))"
        case let .newerSchema(path, found, supported):
            return "\(path): journal schema \(found) is newer than this version supports (\(supported)); upgrade ObservationJournal"
        case let .unreleasedSchema(path, found):
            return "\(path): journal schema \(found) was written by an unreleased build of ObservationJournal and cannot be read; record it again with this version"
        case let .olderSchema(path, found, supported):
            return "\(path): journal schema \(found) is older than \(supported); run: obsreplay migrate \(shellQuoted(path))"
        case let .unknownSession(path, session):
            return "\(path): no session \(session)"
        case let .refused(path, reason):
            return "\(path): \(reason)"
        case let .unsafeSideFile(path, sideFile, reason):
            return "\(path): refusing to open: side file \(sideFile) is not the journal owner's own (\(reason)); remove it if it is not yours"
        case let .busy(path, milliseconds):
            return "\(path): another connection held the write lock longer than the busy timeout (\(milliseconds) ms)"
        case let .sqlite(path, detail):
            return "\(path): \(detail)"
        }
    }
}
