import CSQLite
import Foundation
import JournalFixtures

/// `--profile enum-…`: what storing `channels.policy` and `registrations.removal_reason`
/// costs per row, with the writer's own statements, in a journal of schema 4 (names checked
/// by `CHECK (x IN (…))`) or of the latest schema (codes checked by a range). Only for
/// callgrind (`tools/benchmarks/callgrind-per-event.sh JournalBenchmark enum-registration-4`):
/// one row per statement, 10,000 statements per transaction, WAL, `synchronous=NORMAL`.
///
/// Why: SQLite builds a temporary B-tree of the names for every row a `CHECK … IN` list
/// checks (see `CheckCost`); a registration is inserted, and updated at its removal, once
/// each, so the list cost is paid twice per registration.
enum EnumerationCost {
    enum What: String, CaseIterable {
        /// COUNT channel inserts.
        case channel
        /// COUNT registration inserts.
        case registration
        /// COUNT registration inserts, then COUNT removals (subtract `registration`).
        case removal
    }

    /// Parses `enum-WHAT-SCHEMA`: `enum-removal-4` (a journal as schema 4 made it: names),
    /// `enum-removal-latest` (this version's schema: codes). `nil` schema: the latest.
    static func parse(_ profile: String) -> (what: What, schema: Int?)? {
        let parts = profile.split(separator: "-")
        guard parts.count == 3, parts[0] == "enum", let what = What(rawValue: String(parts[1])) else { return nil }
        if parts[2] == "latest" { return (what, nil) }
        // Schemas 1-4 store names; a higher number would be a schema this version does not have.
        guard let schema = Int(parts[2]), (1...4).contains(schema) else { return nil }
        return (what, schema)
    }

    static func run(_ what: What, schema: Int?, path: String, count: Int) throws {
        let fixture = try schema.map { try JournalFixture(path: path, wal: true, schemaVersion: $0) }
            ?? JournalFixture(path: path, wal: true)
        _ = try fixture.session(label: "enum")
        try fixture.finish()
        let codes = fixture.schemaVersion >= 5
        let database = try RawSQLite(path: path)
        try database.execute("PRAGMA synchronous = NORMAL")
        try database.execute("""
            INSERT INTO strings (id, value) VALUES (1001, 'enum.rate'), (1002, 'enum/File.swift'), (1003, 'enum.f()');
            INSERT INTO call_sites (id, file_id, line, function_id) VALUES (1001, 1002, 10, 1003);
            """)
        // The writer's statements (SessionWriter), as it binds them.
        let channel = try database.prepare("""
            INSERT INTO channels (session_id, id, subject_id, key_id, policy, first_seq) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """)
        let registration = try database.prepare("""
            INSERT INTO registrations (session_id, id, channel_id, owner_id, call_site_id, options, queue_id,
                expects_main, sender_id, scope_id, registered_seq)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """)
        let removal = try database.prepare("""
            UPDATE registrations SET removed_seq = ?, removal_reason = ?
            WHERE session_id = ? AND id = ? AND removed_seq IS NULL
            """)
        defer { for statement in [channel, registration, removal] { sqlite3_finalize(statement) } }
        func batches(_ body: (Int64) throws -> Void) throws {
            var id: Int64 = 1
            while id <= Int64(count) {
                try database.execute("BEGIN IMMEDIATE")
                for _ in 0..<10_000 where id <= Int64(count) {
                    try body(id)
                    // Each statement must have written its row, or the figure measures nothing.
                    guard sqlite3_changes(database.handle) == 1 else { throw RawSQLiteError(message: "row \(id) not written") }
                    id += 1
                }
                try database.execute("COMMIT")
            }
        }
        func bind(_ statement: OpaquePointer, _ index: Int32, name: String, code: Int64) {
            if codes {
                sqlite3_bind_int64(statement, index, code)
            } else {
                sqlite3_bind_text(statement, index, name, -1, transient)
            }
        }
        if what == .channel {
            try batches { id in
                sqlite3_bind_int64(channel, 1, 1)
                sqlite3_bind_int64(channel, 2, id)
                sqlite3_bind_int64(channel, 3, 0)
                sqlite3_bind_int64(channel, 4, 1001)
                // singleSlot: the last of the two names.
                bind(channel, 5, name: "singleSlot", code: 1)
                sqlite3_bind_int64(channel, 6, id)
                try database.step(channel)
            }
            return
        }
        try batches { id in
            sqlite3_bind_int64(registration, 1, 1)
            sqlite3_bind_int64(registration, 2, id)
            sqlite3_bind_int64(registration, 3, 1)
            sqlite3_bind_int64(registration, 4, id)
            sqlite3_bind_int64(registration, 5, 1001)
            sqlite3_bind_text(registration, 6, "new", -1, transient)
            sqlite3_bind_null(registration, 7)
            sqlite3_bind_int64(registration, 8, 0)
            sqlite3_bind_null(registration, 9)
            sqlite3_bind_null(registration, 10)
            sqlite3_bind_int64(registration, 11, id)
            try database.step(registration)
        }
        guard what == .removal else { return }
        try batches { id in
            sqlite3_bind_int64(removal, 1, Int64(count) + id)
            // ownerDeallocated: the fifth of eight names, the app's usual end.
            bind(removal, 2, name: "ownerDeallocated", code: 4)
            sqlite3_bind_int64(removal, 3, 1)
            sqlite3_bind_int64(removal, 4, id)
            try database.step(removal)
        }
    }
}
