import CSQLite
import Foundation

/// The SQLite C API, used directly: the references here measure SQLite itself, with nothing
/// of the journal's own wrapper in the way (and whatever module that wrapper lives in).
/// Opened `SQLITE_OPEN_NOMUTEX`, as the journal opens its connections: in the default
/// (serialized) mode every `sqlite3_bind_*` call locks and unlocks the connection's mutex,
/// about 14% of a row's instructions, which the recorder does not pay.
final class RawSQLite {
    let handle: OpaquePointer

    init(path: String) throws {
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let handle else {
            if let handle { sqlite3_close_v2(handle) }
            throw RawSQLiteError(message: "cannot open \(path): \(String(cString: sqlite3_errstr(status)))")
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(handle, sql, nil, nil, &message) != SQLITE_OK {
            defer { sqlite3_free(message) }
            throw RawSQLiteError(message: "\(sql.prefix(60)): \(message.map { String(cString: $0) } ?? "failed")")
        }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
              let statement
        else { throw RawSQLiteError(message: "\(sql.prefix(60)): \(String(cString: sqlite3_errmsg(handle)))") }
        return statement
    }

    /// Runs a statement whose parameters are bound, and resets it.
    func step(_ statement: OpaquePointer) throws {
        let status = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard status == SQLITE_DONE else { throw RawSQLiteError(message: String(cString: sqlite3_errmsg(handle))) }
    }

    /// Every row of a query, as text (NULL as nil).
    func rows(_ sql: String) throws -> [[String?]] {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        var rows: [[String?]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append((0..<sqlite3_column_count(statement)).map { column in
                sqlite3_column_text(statement, column).map { String(cString: $0) }
            })
        }
        return rows
    }
}

struct RawSQLiteError: Error, CustomStringConvertible {
    var message: String
    var description: String { "SQLite: \(message)" }
}

/// SQLite's SQLITE_TRANSIENT (a C macro Swift does not import): copy the bound bytes.
let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
