import CSQLite
import Foundation

/// Opens journal files and checks that they are journals before anything reads them.
package enum JournalFile {
    /// Opens an existing journal read-only and validates it.
    ///
    /// The file's bytes are never modified. A journal still being written (or left by a
    /// crashed writer) is readable: read-only opening still sees its `-wal` file.
    /// - Throws: `JournalError` naming the file and the reason.
    package static func openForReading(path: String) throws(JournalError) -> SQLiteDatabase {
        try checkRegularNonEmptyFile(path)
        let database: SQLiteDatabase
        do {
            database = try SQLiteDatabase(path: path, mode: .readOnly)
        } catch {
            throw classify(error, path: path)
        }
        let version = try validate(database)
        if version < JournalSchema.latestVersion {
            // Readers of this version understand every schema from 1 up; nothing older.
            if version < 1 { throw .notSQLite(path: path) }
        }
        return database
    }

    /// Checks that `path` is an existing, non-empty regular file.
    package static func checkRegularNonEmptyFile(_ path: String) throws(JournalError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
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
        if version > Int64(JournalSchema.latestVersion) {
            throw .newerSchema(path: path, found: Int(version), supported: JournalSchema.latestVersion)
        }
        return Int(version)
    }

    /// Turns an SQLite failure into the journal error a person understands.
    package static func classify(_ error: SQLiteError, path: String) -> JournalError {
        switch error.primaryCode {
        case SQLITE_NOTADB: return .notSQLite(path: path)
        case SQLITE_CORRUPT: return .corrupt(path: path, detail: error.message)
        case SQLITE_CANTOPEN: return .sqlite(path: path, detail: "cannot open: \(error.message)")
        default: return .sqlite(path: path, detail: error.description)
        }
    }
}
