import Foundation
import ObservationJournal

/// (a) The same rows as a fan-out-1 workload writes (a `changed` with old and new values,
/// then a `delivered`), through one prepared statement, 10,000 rows per transaction, on a
/// journal with the real schema, WAL and `synchronous=NORMAL`.
enum RawCeiling {
    static func run(path: String, rows: Int) throws -> Double {
        let journal = try Journal.open(path: path)
        // A session row for the events to belong to.
        let session = try journal.startSession(label: "raw")
        let sessionID = session.sessionID
        session.close()
        let database = try SQLiteDatabase(path: path, mode: .readWrite)
        try database.execute("PRAGMA synchronous = NORMAL")
        let insert = try database.prepare("""
            INSERT INTO events (session_id, seq, time_ns, kind, thread, is_main, channel_id, registration_id,
                owner_id, other_registration_id, call_site_id, scope_id, depth, live_count, duration_ns,
                is_prior, old_value, new_value, reason, detail)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let start = now()
        var seq: Int64 = 1
        while seq <= Int64(rows) {
            try database.writeTransaction { () throws(SQLiteError) in
                for _ in 0..<10_000 where seq <= Int64(rows) {
                    let changed = seq % 2 == 1
                    try insert.bind(sessionID, at: 1)
                    try insert.bind(seq, at: 2)
                    try insert.bind(seq * 300, at: 3)
                    try insert.bind(literal: changed ? "changed" : "delivered", at: 4)
                    try insert.bind(Int64(1), at: 5)
                    try insert.bind(false, at: 6)
                    try insert.bind(Int64(1), at: 7)
                    try insert.bind(changed ? nil : Int64(1), at: 8)
                    try insert.bind(changed ? nil : Int64(2), at: 9)
                    try insert.bind(Int64?.none, at: 10)
                    try insert.bind(changed ? Int64(2) : nil, at: 11)
                    try insert.bind(Int64?.none, at: 12)
                    try insert.bind(Int64(0), at: 13)
                    try insert.bind(changed ? Int64(1) : nil, at: 14)
                    try insert.bind(changed ? nil : Int64(120), at: 15)
                    try insert.bind(false, at: 16)
                    try insert.bind(changed ? String(seq / 2) : nil, at: 17)
                    try insert.bind(changed ? String(seq / 2 + 1) : nil, at: 18)
                    try insert.bind(literal: nil, at: 19)
                    try insert.bind(String?.none, at: 20)
                    try insert.run()
                    seq += 1
                }
            }
        }
        let elapsed = now() - start
        return Double(rows) / (Double(elapsed) / 1e9)
    }
}
