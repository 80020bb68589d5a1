import CSQLite
import Foundation

/// `--only check`: what the `CHECK` on `events.kind` costs per inserted row. The same rows
/// (a fan-out-1 workload: `changed` with old and new values, then `delivered`) go into
/// tables of the events table's shape (schema 2's 23 columns, STRICT, WITHOUT ROWID,
/// primary key (session_id, seq)) that differ only in how `kind` is checked; one row per
/// statement, 10,000 rows per transaction, WAL, `synchronous=NORMAL`, C API.
///
/// Why: SQLite codes `x IN (list of constants)` as a probe into a small temporary B-tree
/// filled with the list. In a query a `Once` opcode builds it once per statement; in a CHECK
/// constraint nothing does, so it is emptied (at a statement's first row: opened) and
/// filled again for every row checked, one B-tree insert per list item, where the same
/// test as an `OR` chain or an integer range is a few comparisons.
enum CheckCost {
    static let kinds = [
        "registered", "replaced", "removed", "removeUnregistered", "changed", "delivered", "skipped",
        "scopeBegan", "scopeEnded", "gap", "cancelAfterAutoRemoval", "ownerGone",
    ]

    struct Variant {
        var name: String
        var kindColumn: String
        var integerKind: Bool
        var otherChecks = true
    }

    static let variants: [Variant] = [
        Variant(name: "text kind, CHECK (kind IN (12 names)) (schema 2)",
                kindColumn: "kind TEXT NOT NULL CHECK (kind IN (\(kinds.map { "'\($0)'" }.joined(separator: ", "))))", integerKind: false),
        Variant(name: "text kind, the same check as an OR chain",
                kindColumn: "kind TEXT NOT NULL CHECK (\(kinds.map { "kind = '\($0)'" }.joined(separator: " OR ")))", integerKind: false),
        Variant(name: "text kind, no check on kind", kindColumn: "kind TEXT NOT NULL", integerKind: false),
        Variant(name: "integer kind, CHECK (kind BETWEEN 0 AND 11)",
                kindColumn: "kind INTEGER NOT NULL CHECK (kind BETWEEN 0 AND 11)", integerKind: true),
        Variant(name: "integer kind, no CHECK at all (nor on is_main, is_prior, main_queue)",
                kindColumn: "kind INTEGER NOT NULL", integerKind: true, otherChecks: false),
    ]

    static func table(_ variant: Variant, name: String) -> String {
        let flag = { (column: String, notNull: Bool) in
            "\(column) INTEGER\(notNull ? " NOT NULL" : "")\(variant.otherChecks ? " CHECK (\(column) IN (0, 1))" : "")"
        }
        return """
            CREATE TABLE \(name) (
                session_id INTEGER NOT NULL, seq INTEGER NOT NULL, time_ns INTEGER NOT NULL,
                \(variant.kindColumn), thread INTEGER NOT NULL, \(flag("is_main", true)),
                channel_id INTEGER, registration_id INTEGER, owner_id INTEGER, other_registration_id INTEGER,
                call_site_id INTEGER, scope_id INTEGER, depth INTEGER NOT NULL DEFAULT 0, live_count INTEGER,
                duration_ns INTEGER, \(flag("is_prior", true)) DEFAULT 0,
                old_value TEXT, new_value TEXT, reason TEXT, detail TEXT,
                \(flag("main_queue", false)), cpu_ns INTEGER, waits INTEGER,
                PRIMARY KEY (session_id, seq)
            ) STRICT, WITHOUT ROWID
            """
    }

    /// Rows per second into a new table of `variant`'s shape in the database at `path`,
    /// `rowsPerStatement` rows per execution of the insert (the journal's writer uses 32).
    static func run(_ variant: Variant, path: String, rows: Int, rowsPerStatement: Int = 1) throws -> Double {
        let database = try RawSQLite(path: path)
        try database.execute("PRAGMA journal_mode = WAL")
        try database.execute("PRAGMA synchronous = NORMAL")
        let name = "events_\(UInt32.random(in: 0...UInt32.max))"
        try database.execute(table(variant, name: name))
        let insert = try database.prepare("""
            INSERT INTO \(name) (session_id, seq, time_ns, kind, thread, is_main, channel_id, registration_id,
                owner_id, other_registration_id, call_site_id, scope_id, depth, live_count, duration_ns,
                is_prior, old_value, new_value, reason, detail, main_queue, cpu_ns, waits)
            VALUES \(Array(repeating: "(" + Array(repeating: "?", count: 23).joined(separator: ", ") + ")", count: rowsPerStatement).joined(separator: ", "))
            """)
        defer { sqlite3_finalize(insert) }
        let start = now()
        precondition(rows % rowsPerStatement == 0)
        var seq: Int64 = 1
        while seq <= Int64(rows) {
            try database.execute("BEGIN IMMEDIATE")
            for _ in 0..<(10_000 / rowsPerStatement) where seq <= Int64(rows) {
                for index in 0..<Int32(rowsPerStatement) {
                    let row = Row(statement: insert, base: index * 23)
                    let changed = seq % 2 == 1
                    row.int(1, 1)
                    row.int(2, seq)
                    row.int(3, seq * 300)
                    if variant.integerKind {
                        row.int(4, changed ? 4 : 5)
                    } else {
                        row.text(4, changed ? "changed" : "delivered")
                    }
                    row.int(5, 1)
                    row.int(6, 0)
                    row.int(7, 1)
                    row.int(8, changed ? nil : 1)
                    row.int(9, changed ? nil : 2)
                    row.null(10)
                    row.int(11, changed ? 2 : nil)
                    row.null(12)
                    row.int(13, 0)
                    row.int(14, changed ? 1 : nil)
                    row.int(15, changed ? nil : 120)
                    row.int(16, 0)
                    if changed {
                        row.text(17, String(seq / 2))
                        row.text(18, String(seq / 2 + 1))
                    } else {
                        row.null(17)
                        row.null(18)
                    }
                    row.null(19)
                    row.null(20)
                    row.int(21, 0)
                    row.int(22, changed ? nil : 90)
                    row.int(23, changed ? nil : 0)
                    seq += 1
                }
                try database.step(insert)
            }
            try database.execute("COMMIT")
        }
        let elapsed = now() - start
        return Double(rows) / (Double(elapsed) / 1e9)
    }

    /// One row's parameters in a multi-row statement: its parameter 1 is `base + 1`.
    struct Row {
        var statement: OpaquePointer
        var base: Int32

        func int(_ index: Int32, _ value: Int64?) {
            if let value { sqlite3_bind_int64(statement, base + index, value) } else { null(index) }
        }

        func null(_ index: Int32) { sqlite3_bind_null(statement, base + index) }

        func text(_ index: Int32, _ value: String) { sqlite3_bind_text(statement, base + index, value, -1, transient) }
    }
}
