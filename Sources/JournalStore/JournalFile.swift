import CSQLite
import Foundation

/// Opens journal files and checks that they are journals before anything reads them.
package enum JournalFile {
    /// Opens an existing journal read-only, hardened for a file from elsewhere, and
    /// validates it: the connection every read command uses.
    ///
    /// The file's bytes are never modified. A journal still being written (or left by a
    /// crashed writer) is readable: read-only opening still sees its `-wal` file. The
    /// connection has the settings of `SQLiteDatabase.hardenForUntrustedFile()`, the
    /// journal's schema objects must be exactly those its migrations create
    /// (`JournalSchemaObjects`), and every statement gets a work budget that follows the
    /// file's size. In a directory the reader cannot write, a journal without a `-wal`
    /// file is read as it is on disk (`immutable=1`); one with a `-wal` file but no
    /// `-shm` cannot be read there, and the error says why. A journal with no side file is
    /// read through SQLite's locks, and the side files that creates are removed when the
    /// connection closes (`connectForReading`). Side files SQLite would block
    /// on or write through (a FIFO, a device, a symlink, a hard link, another user's file:
    /// `SideFileCheck`) are refused before SQLite opens anything.
    /// - Throws: `JournalError` naming the file and the reason.
    package static func openForReading(path: String) throws(JournalError) -> SQLiteDatabase {
        try openValidated(path: path).database
    }

    /// `openForReading`, with the schema version its validation read (`validate`): for
    /// callers that need it, without validating the file again.
    package static func openValidated(path: String) throws(JournalError) -> (database: SQLiteDatabase, version: Int) {
        try checkRegularNonEmptyFile(path)
        try SideFileCheck.check(journal: path, alsoOwnedBy: geteuid())
        let database = try connectForReading(path)
        let version = try validate(database)
        // Readers of this version understand every schema from 1 up; nothing older.
        if version < 1 { throw .notSQLite(path: path) }
        do {
            if let difference = try JournalSchemaObjects.difference(database, version: version, path: path) {
                throw JournalError.refused(path: path, reason: "refused: \(difference)")
            }
            if let difference = try JournalVocabulary.difference(database) {
                throw JournalError.refused(path: path, reason: "refused: \(difference)")
            }
            database.setStepBudget(forPages: try database.scalarInt("PRAGMA page_count"))
        } catch let error as JournalError {
            throw error
        } catch let error as SQLiteError {
            throw classify(error, path: path)
        } catch {
            throw .sqlite(path: path, detail: "\(error)")
        }
        return (database, version)
    }

    /// Makes every later query of `database` (from `openForReading`) see the journal as
    /// of one moment, while an app may be recording into it: one read transaction, for as
    /// long as the connection is open, with the work budget of that moment's size.
    ///
    /// Only for a journal in WAL mode, where a read transaction never holds up a writer
    /// (it only keeps checkpoints from copying past it); a journal in another mode is left
    /// as it was, since a long read there would block every write.
    /// - Throws: `JournalError` naming the file.
    package static func holdSnapshot(_ database: SQLiteDatabase) throws(JournalError) {
        do {
            let mode = try database.prepare("PRAGMA journal_mode")
            guard try mode.step(), mode.text(0) == "wal" else { return }
            try database.execute("BEGIN")
            database.setStepBudget(forPages: try database.scalarInt("PRAGMA page_count"))
        } catch {
            throw classify(error, path: database.path)
        }
    }

    /// A hardened read-only connection that has read the file's header, falling back to
    /// `immutable=1` where that is the only way (see `openForReading`).
    ///
    /// A journal with no side file at all (no `-wal`, `-shm` or `-journal`: no writer has
    /// it open, and none crashed) is read through SQLite's locks like any other, so an app
    /// that starts recording into it meanwhile cannot change what the read sees; the empty
    /// `-wal` and the `-shm` SQLite's read-only connection creates for that are removed
    /// when the connection closes, if nothing else uses them (`ReaderSideFiles`): a read
    /// leaves the directory as it found it (a tree of 10,000 journals diagnosed once gained
    /// 20,000 files). Where they could not be removed safely (see `ReaderSideFiles.plan`),
    /// the journal is read as it is on disk (`immutable=1`), creating none.
    private static func connectForReading(_ path: String) throws(JournalError) -> SQLiteDatabase {
        if !hasSideFiles(path) {
            let sideFiles = ReaderSideFiles.plan(for: path)
            do {
                return try connect(path, mode: sideFiles == nil ? .readOnlyImmutable : .readOnly) { database in
                    database.afterClose = sideFiles.map { plan in { plan.removeIfUnused() } }
                }
            } catch where sideFiles != nil && [SQLITE_CANTOPEN, SQLITE_READONLY].contains(error.primaryCode) {
                // Let the immutable read below say what is wrong, or read the file.
            } catch {
                throw classify(error, path: path)
            }
            do {
                return try connect(path, mode: .readOnlyImmutable)
            } catch {
                throw classify(error, path: path)
            }
        }
        do {
            return try connect(path, mode: .readOnly)
        } catch where [SQLITE_CANTOPEN, SQLITE_READONLY].contains(error.primaryCode) && !directoryIsWritable(path) {
            // mode=ro still needs the -shm file of a WAL journal, and SQLite could not
            // create it here (SQLITE_CANTOPEN on a read-only mount, SQLITE_READONLY_DIRECTORY
            // in another user's directory). Without a -wal file everything is in the main
            // file, which can then be read as it is; with one, reading the main file alone
            // would silently miss what the -wal holds.
            if FileManager.default.fileExists(atPath: path + "-wal") {
                throw .refused(path: path, reason: """
                    cannot be read here: its -wal file holds changes SQLite reads only through a -shm file, \
                    which is missing and cannot be created in this directory; copy \(path) and \(path)-wal \
                    to a writable directory and read the copy
                    """)
            }
            do {
                return try connect(path, mode: .readOnlyImmutable)
            } catch {
                throw classify(error, path: path)
            }
        } catch {
            throw classify(error, path: path)
        }
    }

    /// Opens, hardens and reads the header; `prepare` runs first on the new connection
    /// (before anything that can fail, so what it sets happens on every path).
    private static func connect(
        _ path: String, mode: SQLiteDatabase.Mode, prepare: (SQLiteDatabase) -> Void = { _ in }
    ) throws(SQLiteError) -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: path, mode: mode)
        prepare(database)
        try database.hardenForUntrustedFile()
        // The first read opens the -wal and -shm files of a WAL journal.
        _ = try database.scalarInt("PRAGMA application_id")
        return database
    }

    /// Whether any of SQLite's side files exists beside `path` (as a name: a link or a
    /// FIFO counts, and `SideFileCheck` has judged it).
    static func hasSideFiles(_ path: String) -> Bool {
        SideFileCheck.suffixes.contains { suffix in
            var status = stat()
            return lstat(path + suffix, &status) == 0
        }
    }

    /// Whether this process may create files in the directory of `path`.
    static func directoryIsWritable(_ path: String) -> Bool {
        let directory = (path as NSString).deletingLastPathComponent
        return access(directory.isEmpty ? "." : directory, W_OK) == 0
    }

    /// Checks that `path` is an existing, non-empty regular file.
    package static func checkRegularNonEmptyFile(_ path: String) throws(JournalError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            if let bytes = namedBytes(path) {
                var status = stat()
                if lstat(bytes.map { CChar(bitPattern: $0) } + [0], &status) == 0 {
                    throw .refused(path: path, reason: "cannot be read: its name is not UTF-8 (shown with \\x escapes); rename it to read it")
                }
            }
            throw .fileNotFound(path: path)
        }
        if isDirectory.boolValue { throw .notAFile(path: path) }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        if let type = attributes?[.type] as? FileAttributeType, type != .typeRegular {
            throw .notAFile(path: path)
        }
        if let size = attributes?[.size] as? NSNumber, size.intValue == 0 {
            throw .emptyFile(path: path)
        }
    }

    /// A file or folder name as a `String`: UTF-8 as it is, each byte that is not UTF-8 as
    /// `\xHH` (a name no `String` can hold exactly; `namedBytes` reads it back).
    package static func shownName(_ name: [UInt8]) -> String {
        if let text = utf8(name) { return text }
        var shown = ""
        var rest = name[...]
        while !rest.isEmpty {
            // The longest valid UTF-8 prefix is kept as it is; the byte after it is escaped.
            var length = rest.count
            while length > 0, utf8(rest.prefix(length)) == nil { length -= 1 }
            shown += String(decoding: rest.prefix(length), as: UTF8.self).replacingOccurrences(of: "\\", with: "\\x5C")
            rest = rest.dropFirst(length)
            if let byte = rest.first {
                shown += "\\x" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
                rest = rest.dropFirst()
            }
        }
        return shown
    }

    /// `bytes` as a `String` if they are valid UTF-8.
    private static func utf8(_ bytes: some Collection<UInt8>) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil
    }

    /// The bytes of a path `shownName` wrote with `\xHH` escapes, or `nil` if it has none.
    static func namedBytes(_ path: String) -> [UInt8]? {
        guard path.contains("\\x") else { return nil }
        var bytes: [UInt8] = []
        var utf8 = Array(path.utf8)[...]
        while let byte = utf8.first {
            if byte == UInt8(ascii: "\\"), utf8.count >= 4, utf8.dropFirst().first == UInt8(ascii: "x"),
               let value = UInt8(String(decoding: utf8.dropFirst(2).prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(4)
            } else {
                bytes.append(byte)
                utf8 = utf8.dropFirst()
            }
        }
        return bytes
    }

    /// Reads and checks `application_id` and `user_version`; returns the schema version.
    package static func validate(_ database: SQLiteDatabase) throws(JournalError) -> Int {
        let path = database.path
        let applicationID: Int64
        let version: Int64
        do {
            applicationID = try database.scalarInt("PRAGMA application_id")
            version = try database.scalarInt("PRAGMA user_version")
            // Reading the schema touches every page of sqlite_schema: a truncated or
            // overwritten file fails here rather than halfway through a command.
            _ = try database.scalarInt("SELECT count(*) FROM sqlite_schema")
        } catch {
            throw classify(error, path: path)
        }
        guard Int32(truncatingIfNeeded: applicationID) == JournalSchema.applicationID else {
            if applicationID == 0 && version == 0 { throw .notSQLite(path: path) }
            throw .foreignDatabase(path: path, applicationID: Int32(truncatingIfNeeded: applicationID))
        }
        if JournalSchema.unreleasedVersions.contains(Int(version)) {
            throw .unreleasedSchema(path: path, found: Int(version))
        }
        if version > Int64(JournalSchema.latestVersion) {
            throw .newerSchema(path: path, found: Int(version), supported: JournalSchema.latestVersion)
        }
        return Int(version)
    }

    /// `SQLITE_READONLY_ROLLBACK`, a macro Swift does not import.
    static let readOnlyRollback = SQLITE_READONLY | (3 << 8)

    /// Turns an SQLite failure into the journal error a person understands.
    package static func classify(_ error: SQLiteError, path: String) -> JournalError {
        switch error.primaryCode {
        case SQLITE_NOTADB: return .notSQLite(path: path)
        case SQLITE_CORRUPT: return .corrupt(path: path, detail: error.message)
        case SQLITE_CANTOPEN: return .sqlite(path: path, detail: "cannot open: \(error.message)")
        case SQLITE_READONLY where error.code == readOnlyRollback:
            // A non-empty -journal beside the file: a crashed writer's (or a planted) hot
            // journal, which only a connection allowed to write may roll back into the file.
            return .refused(path: path, reason: "refused: its -journal file holds a transaction a writer did not finish, which a reader cannot roll back without changing the journal; remove \(path)-journal if it is not a crashed writer's")
        case SQLITE_TOOBIG:
            return .refused(path: path, reason: "refused: it holds a value longer than \(SQLiteDatabase.ReadLimits.valueBytes >> 20) MiB, which ObservationJournal never writes")
        case SQLITE_INTERRUPT where error.message.hasPrefix("a query was stopped"):
            return .refused(path: path, reason: "refused: \(error.message) (a damaged or hostile journal)")
        default: return .sqlite(path: path, detail: error.description)
        }
    }
}
