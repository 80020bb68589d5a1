import CSQLite

/// A failed SQLite call: SQLite's extended result code, its message, and the SQL.
package struct SQLiteError: Error, CustomStringConvertible, Equatable {
    /// The extended result code (`SQLITE_BUSY`, `SQLITE_IOERR_WRITE`, …).
    package var code: Int32
    /// SQLite's message for the failure.
    package var message: String
    /// The statement that failed, if any.
    package var sql: String?

    package init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The primary result code (`SQLITE_BUSY` for `SQLITE_BUSY_SNAPSHOT`).
    package var primaryCode: Int32 { Self.primary(code) }

    /// SQLite keeps the primary result code in the low 8 bits of an extended one
    /// (https://sqlite.org/rescode.html): `SQLITE_IOERR_WRITE & 0xFF == SQLITE_IOERR`.
    static let primaryCodeMask: Int32 = 0xFF

    /// The primary result code of `code`, extended or not.
    static func primary(_ code: Int32) -> Int32 { code & primaryCodeMask }

    /// The C name of the primary result code (`SQLITE_FULL`).
    package var codeName: String {
        switch primaryCode {
        case SQLITE_ERROR: return "SQLITE_ERROR"
        case SQLITE_PERM: return "SQLITE_PERM"
        case SQLITE_ABORT: return "SQLITE_ABORT"
        case SQLITE_BUSY: return "SQLITE_BUSY"
        case SQLITE_LOCKED: return "SQLITE_LOCKED"
        case SQLITE_NOMEM: return "SQLITE_NOMEM"
        case SQLITE_READONLY: return "SQLITE_READONLY"
        case SQLITE_INTERRUPT: return "SQLITE_INTERRUPT"
        case SQLITE_IOERR: return "SQLITE_IOERR"
        case SQLITE_CORRUPT: return "SQLITE_CORRUPT"
        case SQLITE_FULL: return "SQLITE_FULL"
        case SQLITE_CANTOPEN: return "SQLITE_CANTOPEN"
        case SQLITE_CONSTRAINT: return "SQLITE_CONSTRAINT"
        case SQLITE_MISMATCH: return "SQLITE_MISMATCH"
        case SQLITE_NOTADB: return "SQLITE_NOTADB"
        default: return "SQLite error \(primaryCode)"
        }
    }

    package var description: String {
        var text = "\(codeName) (\(code)): \(message)"
        if let sql { text += " [\(sql)]" }
        return text
    }
}
