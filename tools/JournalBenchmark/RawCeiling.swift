import Foundation
import ObservationJournal

/// (a) The same rows as a fan-out-1 workload writes (a `changed` with old and new values,
/// then a `delivered`), through one prepared statement, 10,000 rows per transaction, on a
/// journal with the real schema, WAL and `synchronous=NORMAL`. With `rowsPerStatement`
/// above 1 the statement inserts that many rows at once, as the journal's writer does.
enum RawCeiling {
    static func run(path: String, rows: Int, rowsPerStatement: Int = 1) throws -> Double {
        let journal = try Journal.open(path: path)
        // A session row for the events to belong to.
        let session = try journal.startSession(label: "raw")
        let sessionID = session.sessionID
        session.close()
        let database = try SQLiteDatabase(path: path, mode: .readWrite)
        try database.execute("PRAGMA synchronous = NORMAL")
        let row = "(" + Array(repeating: "?", count: 20).joined(separator: ", ") + ")"
        let insert = try database.prepare("""
            INSERT INTO events (session_id, seq, time_ns, kind, thread, is_main, channel_id, registration_id,
                owner_id, other_registration_id, call_site_id, scope_id, depth, live_count, duration_ns,
                is_prior, old_value, new_value, reason, detail)
            VALUES \(Array(repeating: row, count: rowsPerStatement).joined(separator: ", "))
            """)
        // About 10,000 rows per transaction, in whole statements.
        precondition(rows % rowsPerStatement == 0)
        let start = now()
        var seq: Int64 = 1
        while seq <= Int64(rows) {
            try database.writeTransaction { () throws(SQLiteError) in
                for _ in 0..<(10_000 / rowsPerStatement) where seq <= Int64(rows) {
                    for index in 0..<Int32(rowsPerStatement) {
                        let base = index * 20
                        let changed = seq % 2 == 1
                        try insert.bind(sessionID, at: base + 1)
                        try insert.bind(seq, at: base + 2)
                        try insert.bind(seq * 300, at: base + 3)
                        try insert.bind((changed ? JournalEventKind.changed : .delivered).code, at: base + 4)
                        try insert.bind(Int64(1), at: base + 5)
                        try insert.bind(false, at: base + 6)
                        try insert.bind(Int64(1), at: base + 7)
                        try insert.bind(changed ? nil : Int64(1), at: base + 8)
                        try insert.bind(changed ? nil : Int64(2), at: base + 9)
                        try insert.bind(Int64?.none, at: base + 10)
                        try insert.bind(changed ? Int64(2) : nil, at: base + 11)
                        try insert.bind(Int64?.none, at: base + 12)
                        try insert.bind(Int64(0), at: base + 13)
                        try insert.bind(changed ? Int64(1) : nil, at: base + 14)
                        try insert.bind(changed ? nil : Int64(120), at: base + 15)
                        try insert.bind(false, at: base + 16)
                        try insert.bind(changed ? String(seq / 2) : nil, at: base + 17)
                        try insert.bind(changed ? String(seq / 2 + 1) : nil, at: base + 18)
                        try insert.bind(literal: nil, at: base + 19)
                        try insert.bind(String?.none, at: base + 20)
                        seq += 1
                    }
                    try insert.run()
                }
            }
        }
        let elapsed = now() - start
        return Double(rows) / (Double(elapsed) / 1e9)
    }
}
