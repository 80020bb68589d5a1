import CSQLite
import Foundation
import ObservationJournal
import ObserverCore

/// (a) The raw ceiling: the rows the recorder writes for a fan-out-1 workload (a `changed`
/// with old and new values, then a `delivered`), inserted with the SQLite C API into the
/// journal's own `events` table, through one prepared statement, about 10,000 rows per
/// `BEGIN IMMEDIATE` transaction, WAL, `synchronous=NORMAL`; no registry, no recorder.
///
/// The row shape is not written out here: a short recording writes a `changed` and a
/// `delivered` row, and the ceiling re-inserts copies of those two rows (every column the
/// table stores, as the recorder filled it), with new `seq`, `time_ns` and value texts. So
/// the reference follows the schema the recorder writes, whatever its version. (The
/// details of `event_details` are written by rare events only, none of these.)
/// With `rowsPerStatement` above 1 one statement inserts that many rows at once.
enum RawCeiling {
    static func run(path: String, rows: Int, rowsPerStatement: Int = 1) throws -> Double {
        let sample = try sampleRows(path: path)
        let database = try RawSQLite(path: path)
        try database.execute("PRAGMA synchronous = NORMAL")
        let columns = try database.rows("PRAGMA table_info(events)").map { $0[1]! }
        // The two rows to copy: seq 2 (`changed`) and 3 (`delivered`) of the sample session.
        let templates = try (2...3).map { seq in
            try copyRow(database, session: sample, seq: seq, columns: columns)
        }
        defer { for row in templates { for value in row { sqlite3_value_free(value) } } }
        let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        let insert = try database.prepare(
            "INSERT INTO events (\(columns.joined(separator: ", "))) VALUES "
                + Array(repeating: row, count: rowsPerStatement).joined(separator: ", ")
        )
        defer { sqlite3_finalize(insert) }
        let seqColumn = columns.firstIndex(of: "seq")!
        let timeColumn = columns.firstIndex(of: "time_ns")
        let valueColumns = Set(["old_value", "new_value"].compactMap { columns.firstIndex(of: $0) })
        precondition(rows % rowsPerStatement == 0)
        let start = now()
        var seq: Int64 = 1_000
        let last = seq + Int64(rows)
        while seq < last {
            try database.execute("BEGIN IMMEDIATE")
            for _ in 0..<(10_000 / rowsPerStatement) where seq < last {
                for index in 0..<rowsPerStatement {
                    let template = templates[Int(seq % 2)]
                    let base = Int32(index * columns.count)
                    for column in columns.indices {
                        let parameter = base + Int32(column) + 1
                        if column == seqColumn {
                            sqlite3_bind_int64(insert, parameter, seq)
                        } else if column == timeColumn {
                            sqlite3_bind_int64(insert, parameter, seq * 300)
                        } else if valueColumns.contains(column), sqlite3_value_type(template[column]) == SQLITE_TEXT {
                            sqlite3_bind_text(insert, parameter, String(seq / 2), -1, transient)
                        } else {
                            sqlite3_bind_value(insert, parameter, template[column])
                        }
                    }
                    seq += 1
                }
                try database.step(insert)
            }
            try database.execute("COMMIT")
        }
        let elapsed = now() - start
        return Double(rows) / (Double(elapsed) / 1e9)
    }

    /// Records a few changes at fan-out 1 into a new journal at `path` through the recorder;
    /// returns the session's id.
    static func sampleRows(path: String) throws -> Int64 {
        let recording = try Journal.open(path: path).startSession(label: "raw ceiling sample")
        let subject = Subject()
        let owner = Owner()
        let value = ObservableValue(0, subject: subject, key: "value", registry: recording.registry)
        let token = value.observe(owner: owner) { _, _ in }
        for number in 1...10 { value.value = number }
        recording.close()
        withExtendedLifetime((token, owner, subject)) {}
        return recording.sessionID
    }

    /// One event's stored `columns`, each copied out of SQLite (free with `sqlite3_value_free`).
    static func copyRow(_ database: RawSQLite, session: Int64, seq: Int64, columns: [String]) throws -> [OpaquePointer] {
        let columnCount = columns.count
        let select = try database.prepare("SELECT \(columns.joined(separator: ", ")) FROM events WHERE session_id = ? AND seq = ?")
        defer { sqlite3_finalize(select) }
        sqlite3_bind_int64(select, 1, session)
        sqlite3_bind_int64(select, 2, seq)
        guard sqlite3_step(select) == SQLITE_ROW, sqlite3_column_count(select) == Int32(columnCount) else {
            throw RawSQLiteError(message: "the sample session has no event \(seq)")
        }
        return (0..<Int32(columnCount)).map { sqlite3_value_dup(sqlite3_column_value(select, $0))! }
    }
}
