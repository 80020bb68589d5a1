import JournalStore
import CSQLite
import SystemShim
import Foundation

/// A journal file: the SQLite flight recorder of everything an observer registry does.
///
/// Open (or create) one with `Journal.open(path:options:)`, then record with
/// `startSession(label:onError:)`. One file holds many sessions; several sessions, also
/// from several processes, may record into it at once.
///
/// Thread-safe.
public final class Journal: Sendable {
    /// The version of this library, stored in every session it records.
    public static let libraryVersion = "0.2.0"

    /// The journal's file.
    public let path: String
    /// The options it was opened with; its sessions record with them.
    public let options: Options

    private init(path: String, options: Options) {
        self.path = path
        self.options = options
    }

    /// Opens the journal at `path`, creating it if asked, upgrading an older schema.
    ///
    /// A new journal is created with mode 0600 (journals may hold user data), built beside
    /// `path` and linked into place complete, so several openers racing to create it all
    /// end up with the same journal; what a creator killed mid-way left beside the path
    /// (`NAME.new-PID-RANDOM`, see `CreationLitter`) is removed once its process is gone.
    /// An existing file is first checked read-only; a file that is not a journal is
    /// refused and left byte for byte as it was, and so is a journal whose `-wal`, `-shm`
    /// or `-journal` is not a regular, single-link file of the journal's owner (one
    /// planted by someone else would be applied to it).
    /// - Parameters:
    ///   - path: the journal's file.
    ///   - options: whether to create it, and how its sessions record.
    /// - Throws: `JournalError` naming the file and the reason: no such file, an empty
    ///   file (unless `options.creation` is `.createIfMissingOrEmpty`), not SQLite,
    ///   another application's database, a damaged file, a newer schema, an unsafe side
    ///   file (`unsafeSideFile`), or an SQLite failure while creating or upgrading.
    public static func open(path: String, options: Options = Options()) throws(JournalError) -> Journal {
        var version = 0
        CreationLitter.removeStale(besides: path)
        var status = stat()
        if stat(path, &status) != 0 {
            guard errno == ENOENT, options.creation != .openExisting else {
                if errno == ENOENT { throw .fileNotFound(path: path) }
                throw .sqlite(path: path, detail: "cannot open: \(errorText(errno))")
            }
            if try create(path, options: options) { return Journal(path: path, options: options) }
            // Another opener's journal appeared meanwhile, complete: open it.
            try SideFileCheck.check(journal: path)
            version = try validatedVersion(path, options: options)
        } else if (status.st_mode & S_IFMT) != S_IFREG {
            throw .notAFile(path: path)
        } else if status.st_size == 0 {
            guard options.creation == .createIfMissingOrEmpty else { throw .emptyFile(path: path) }
            try SideFileCheck.check(journal: path)
        } else {
            try SideFileCheck.check(journal: path)
            version = try validatedVersion(path, options: options)
        }
        do {
            try prepare(path, version: version, options: options)
        } catch {
            throw JournalFile.classify(error, path: path)
        }
        return Journal(path: path, options: options)
    }

    /// Starts recording a new session into this journal.
    ///
    /// The returned wrapper owns a registry: pass `recording.registry` to
    /// `ObservableValue`, `CallbackProperty` and the notification calls exactly as you
    /// would a plain `ObserverRegistry`, and everything it does is recorded.
    /// - Parameters:
    ///   - label: what this run is (`"UI test: playback"`), stored with the session; one longer
    ///     than 1,024 UTF-8 bytes is shortened, as every name is (docs/NAMES.md).
    ///   - onError: called once, on the writer thread, if recording stops on an error,
    ///     before `flush()` or `close()` waiting on other threads return. It may call
    ///     the session's methods (`close()` there returns at once).
    /// Blocks the calling thread for at most about `options.busyTimeoutMilliseconds` while
    /// another connection holds the journal's write lock, then throws `JournalError.busy`.
    /// - Throws: `JournalError` if the session cannot be started (the journal is gone,
    ///   the disk is full, another connection holds the write lock, a side file is not
    ///   the journal owner's own, …).
    public func startSession(
        label: String, onError: (@Sendable (JournalError) -> Void)? = nil
    ) throws(JournalError) -> RecordingSession {
        // The side files may have been planted since `open`.
        try SideFileCheck.check(journal: path)
        let writer: SessionWriter
        do {
            let database = try Self.connect(path, options: options)
            // Validate again: the file may have been replaced since `open`.
            let version = try JournalFile.validate(database)
            guard version == JournalSchema.latestVersion else {
                throw JournalError.olderSchema(path: path, found: version, supported: JournalSchema.latestVersion)
            }
            try database.execute("PRAGMA synchronous = NORMAL")
            writer = try SessionWriter(database: database, label: label, values: options.values, run: options.resolvedRun)
        } catch let error as JournalError {
            throw error
        } catch let error as SQLiteError {
            // The session's row is written once, waiting one busy timeout at most: this is
            // the app's thread, and the option says how long a write may wait.
            if error.primaryCode == SQLITE_BUSY && error.sql == "BEGIN IMMEDIATE" {
                throw .busy(path: path, milliseconds: options.busyTimeoutMilliseconds)
            }
            throw JournalFile.classify(error, path: path)
        } catch {
            throw .sqlite(path: path, detail: "\(error)")
        }
        return RecordingSession(writer: writer, options: options, onError: onError)
    }

    // MARK: - Opening

    /// A read-write connection with the options' busy timeout and fault plan.
    static func connect(_ path: String, options: Options) throws(SQLiteError) -> SQLiteDatabase {
        try SQLiteDatabase(
            path: path, mode: .readWrite,
            busyTimeoutMilliseconds: Int32(clamping: options.busyTimeoutMilliseconds), faults: options.faults
        )
    }

    /// Checks an existing non-empty file through a read-only connection, so a file that is
    /// not a journal is never opened for writing; returns its schema version.
    private static func validatedVersion(_ path: String, options: Options) throws(JournalError) -> Int {
        let database: SQLiteDatabase
        do {
            database = try SQLiteDatabase(path: path, mode: .readOnly, faults: options.faults)
        } catch {
            throw JournalFile.classify(error, path: path)
        }
        return try JournalFile.validate(database)
    }

    /// Puts WAL mode on and brings the schema of the file at `path` up to date.
    private static func prepare(_ path: String, version: Int, options: Options) throws(SQLiteError) {
        let database = try connect(path, options: options)
        try database.execute("PRAGMA journal_mode = WAL")
        if version < JournalSchema.latestVersion {
            try JournalMigrator.migrate(database)
        }
    }

    /// Builds a new journal beside `path` (mode 0600) and links it into place only when it
    /// is complete, so no opener ever finds an empty or half-made journal at `path`.
    /// - Returns: `false` if another opener's journal got there first.
    private static func create(_ path: String, options: Options) throws(JournalError) -> Bool {
        let temporary = CreationLitter.temporaryName(for: path)
        let descriptor = systemOpen(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .sqlite(path: path, detail: "cannot create: \(errorText(errno))")
        }
        close(descriptor)
        defer { removeFiles(temporary) }
        do {
            // The connection closes at the end of `prepare`, folding the WAL into the file.
            try prepare(temporary, version: 0, options: options)
        } catch {
            throw JournalFile.classify(error, path: path)
        }
        // link(2) fails if `path` exists: the check and the appearance are one step.
        if link(temporary, path) == 0 { return true }
        if errno == EEXIST { return false }
        // A file system without hard links: rename, unless something is there by now.
        if access(path, F_OK) != 0 && rename(temporary, path) == 0 { return true }
        throw .sqlite(path: path, detail: "cannot create: \(errorText(errno))")
    }

    /// Removes a file this library made and no longer needs, with SQLite's side files.
    private static func removeFiles(_ path: String) {
        for suffix in [""] + SideFileCheck.suffixes { unlink(path + suffix) }
    }
}
