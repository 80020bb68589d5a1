import CSQLite
import Foundation

/// `--only shapes`: rows per second of candidate shapes for the `events` table, in the same
/// rounds, so that the row shape is chosen by measurement. Every shape takes the same rows
/// (a fan-out-1 workload: a `changed` with old and new values and a call site, then its
/// `delivered` with durations and the change's seq), through one prepared multi-row
/// statement, about 10,000 rows per `BEGIN IMMEDIATE` transaction, WAL,
/// `synchronous=NORMAL`, the SQLite C API; each into a new database file.
///
/// The shapes vary one thing at a time from schema 4's table: the key (a `WITHOUT ROWID`
/// table keyed by `(session_id, seq)`, or a rowid table whose `INTEGER PRIMARY KEY` is
/// `session_id << 40 | seq` with `session_id` and `seq` as virtual generated columns), the
/// columns (rare ones moved to a side table that only rare events write; flags packed into
/// `kind`), `STRICT`, the `CHECK`s, rows per statement and page size; and, for comparison,
/// fixed 64-byte records packed 256 to a BLOB (values in a side table), which no SQL view
/// can read without decoding bytes; and events packed 256 to a row as JSON text (an array of
/// each event's 23 columns, values inline), which a view reads with SQLite's `json_each`.
enum Shapes {
    /// One value of a sample row.
    enum Field {
        case session, seq, key, time, kind, kindFlags, flags, changeBack, thread, isMain, channel, registration, owner
        case otherRegistration, callSite, scope, depth, liveCount, duration, isPrior
        case old, new, reason, detail, mainQueue, cpu, waits, changeSeq
    }

    struct Shape {
        var name: String
        /// The statements that make the table (and its triggers, side tables).
        var schema: [String]
        /// The `INSERT` list, in order, and what each column takes.
        var columns: [(name: String, field: Field)]
        var rowsPerStatement = 32
        var pageSize = 4096
        /// Records packed per BLOB row (the packed shape), else 0.
        var packed = 0
        /// Events per JSON row (the JSON-block shape), else 0.
        var json = 0
        /// A query that reads every event's columns back through SQL, for the read rate.
        var readBack: String? = nil
    }

    /// Schema 4's `events` (24 columns), with or without `STRICT` and the `CHECK`s.
    static func schema4(strict: Bool = true, checks: Bool = true) -> [String] {
        let check = { (text: String) in checks ? " CHECK (\(text))" : "" }
        return ["""
            CREATE TABLE events (
                session_id INTEGER NOT NULL, seq INTEGER NOT NULL, time_ns INTEGER NOT NULL,
                kind INTEGER NOT NULL\(check("kind BETWEEN 0 AND 11")), thread INTEGER NOT NULL,
                is_main INTEGER NOT NULL\(check("is_main IN (0, 1)")),
                channel_id INTEGER, registration_id INTEGER, owner_id INTEGER, other_registration_id INTEGER,
                call_site_id INTEGER, scope_id INTEGER, depth INTEGER NOT NULL DEFAULT 0, live_count INTEGER,
                duration_ns INTEGER, is_prior INTEGER NOT NULL DEFAULT 0\(check("is_prior IN (0, 1)")),
                old_value TEXT, new_value TEXT, reason TEXT, detail TEXT,
                main_queue INTEGER\(check("main_queue IN (0, 1)")), cpu_ns INTEGER, waits INTEGER, change_seq INTEGER,
                PRIMARY KEY (session_id, seq)
            )\(strict ? " STRICT," : "") WITHOUT ROWID
            """] + triggers
    }

    static let triggers = [
        "CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'append-only'); END",
        "CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'append-only'); END",
    ]

    static let schema4Columns: [(name: String, field: Field)] = [
        ("session_id", .session), ("seq", .seq), ("time_ns", .time), ("kind", .kind), ("thread", .thread),
        ("is_main", .isMain), ("channel_id", .channel), ("registration_id", .registration), ("owner_id", .owner),
        ("other_registration_id", .otherRegistration), ("call_site_id", .callSite), ("scope_id", .scope),
        ("depth", .depth), ("live_count", .liveCount), ("duration_ns", .duration), ("is_prior", .isPrior),
        ("old_value", .old), ("new_value", .new), ("reason", .reason), ("detail", .detail),
        ("main_queue", .mainQueue), ("cpu_ns", .cpu), ("waits", .waits), ("change_seq", .changeSeq),
    ]

    /// A rowid table keyed by `session_id << 40 | seq` with every column of schema 4.
    static let rowidWide = ["""
        CREATE TABLE events (
            key INTEGER PRIMARY KEY,
            session_id INTEGER AS (key >> 40) VIRTUAL, seq INTEGER AS (key & 1099511627775) VIRTUAL,
            time_ns INTEGER NOT NULL, kind INTEGER NOT NULL CHECK (kind BETWEEN 0 AND 11), thread INTEGER NOT NULL,
            is_main INTEGER NOT NULL CHECK (is_main IN (0, 1)),
            channel_id INTEGER, registration_id INTEGER, owner_id INTEGER, other_registration_id INTEGER,
            call_site_id INTEGER, scope_id INTEGER, depth INTEGER NOT NULL DEFAULT 0, live_count INTEGER,
            duration_ns INTEGER, is_prior INTEGER NOT NULL DEFAULT 0 CHECK (is_prior IN (0, 1)),
            old_value TEXT, new_value TEXT, reason TEXT, detail TEXT,
            main_queue INTEGER CHECK (main_queue IN (0, 1)), cpu_ns INTEGER, waits INTEGER, change_seq INTEGER
        ) STRICT
        """] + triggers

    static var rowidWideColumns: [(name: String, field: Field)] {
        [("key", .key)] + schema4Columns.dropFirst(2)
    }

    /// The hot row: what `changed`, `delivered` and `skipped` use; `other_registration_id`,
    /// `scope_id`, `reason` and `detail` move to `event_details`, written by rare events only.
    static func rowidNarrow(checks: Bool) -> [String] {
        let check = { (text: String) in checks ? " CHECK (\(text))" : "" }
        return ["""
            CREATE TABLE events (
                key INTEGER PRIMARY KEY,
                session_id INTEGER AS (key >> 40) VIRTUAL, seq INTEGER AS (key & 1099511627775) VIRTUAL,
                time_ns INTEGER NOT NULL, kind INTEGER NOT NULL\(check("kind BETWEEN 0 AND 11")), thread INTEGER NOT NULL,
                is_main INTEGER NOT NULL\(check("is_main IN (0, 1)")),
                channel_id INTEGER, registration_id INTEGER, owner_id INTEGER, call_site_id INTEGER,
                depth INTEGER NOT NULL DEFAULT 0, live_count INTEGER, duration_ns INTEGER,
                is_prior INTEGER NOT NULL DEFAULT 0\(check("is_prior IN (0, 1)")),
                old_value TEXT, new_value TEXT, main_queue INTEGER\(check("main_queue IN (0, 1)")),
                cpu_ns INTEGER, waits INTEGER, change_seq INTEGER
            ) STRICT
            """, """
            CREATE TABLE event_details (
                key INTEGER PRIMARY KEY, other_registration_id INTEGER, scope_id INTEGER, reason INTEGER, detail TEXT
            ) STRICT
            """] + triggers
    }

    static let rowidNarrowColumns: [(name: String, field: Field)] = [
        ("key", .key), ("time_ns", .time), ("kind", .kind), ("thread", .thread), ("is_main", .isMain),
        ("channel_id", .channel), ("registration_id", .registration), ("owner_id", .owner), ("call_site_id", .callSite),
        ("depth", .depth), ("live_count", .liveCount), ("duration_ns", .duration), ("is_prior", .isPrior),
        ("old_value", .old), ("new_value", .new), ("main_queue", .mainQueue), ("cpu_ns", .cpu), ("waits", .waits),
        ("change_seq", .changeSeq),
    ]

    /// The narrow row with `kind`, `is_main`, `is_prior` and `main_queue` in one integer
    /// (`kind | is_main << 8 | is_prior << 9 | main_queue << 10 | queue known << 11`).
    static let packedFlags = ["""
        CREATE TABLE events (
            key INTEGER PRIMARY KEY,
            session_id INTEGER AS (key >> 40) VIRTUAL, seq INTEGER AS (key & 1099511627775) VIRTUAL,
            time_ns INTEGER NOT NULL, kind_flags INTEGER NOT NULL, thread INTEGER NOT NULL,
            channel_id INTEGER, registration_id INTEGER, owner_id INTEGER, call_site_id INTEGER,
            depth INTEGER NOT NULL DEFAULT 0, live_count INTEGER, duration_ns INTEGER,
            old_value TEXT, new_value TEXT, cpu_ns INTEGER, waits INTEGER, change_seq INTEGER
        ) STRICT
        """] + triggers

    static let packedFlagsColumns: [(name: String, field: Field)] = [
        ("key", .key), ("time_ns", .time), ("kind_flags", .kindFlags), ("thread", .thread),
        ("channel_id", .channel), ("registration_id", .registration), ("owner_id", .owner), ("call_site_id", .callSite),
        ("depth", .depth), ("live_count", .liveCount), ("duration_ns", .duration),
        ("old_value", .old), ("new_value", .new), ("cpu_ns", .cpu), ("waits", .waits), ("change_seq", .changeSeq),
    ]

    /// Schema 7's `events` (`Migrations/0007_event_table.sql`): the columns of
    /// `EventColumn`, flags in one column and the change as a distance; `generated` adds
    /// the decoded columns as VIRTUAL generated ones (not taken: SQLite computes them on
    /// every insert); `wide` stores all 20 decoded columns instead.
    static func schema7(wide: Bool = false, generated: Bool = false) -> [String] {
        if wide {
            return ["""
                CREATE TABLE events (
                    session_id INTEGER NOT NULL, seq INTEGER NOT NULL, time_ns INTEGER NOT NULL, kind INTEGER NOT NULL,
                    thread INTEGER NOT NULL, is_main INTEGER NOT NULL, is_prior INTEGER NOT NULL, main_queue INTEGER,
                    depth INTEGER NOT NULL, channel_id INTEGER, registration_id INTEGER, owner_id INTEGER, change_seq INTEGER,
                    duration_ns INTEGER, cpu_ns INTEGER, live_count INTEGER, call_site_id INTEGER, old_value TEXT,
                    new_value TEXT, reason TEXT, PRIMARY KEY (session_id, seq)
                ) STRICT, WITHOUT ROWID
                """] + triggers
        }
        return ["""
            CREATE TABLE events (
                session_id INTEGER NOT NULL, seq INTEGER NOT NULL, time_ns INTEGER NOT NULL, kind INTEGER NOT NULL,
                thread INTEGER NOT NULL, flags INTEGER NOT NULL, channel_id INTEGER, registration_id INTEGER,
                owner_id INTEGER, change_back INTEGER, duration_ns INTEGER, cpu_ns INTEGER, live_count INTEGER,
                call_site_id INTEGER, old_value TEXT, new_value TEXT, reason TEXT,\(generated ? """

                is_main INTEGER AS (flags & 1) VIRTUAL, is_prior INTEGER AS ((flags >> 1) & 1) VIRTUAL,
                main_queue INTEGER AS (CASE WHEN flags & 4 THEN (flags >> 3) & 1 END) VIRTUAL,
                depth INTEGER AS (flags >> 4) VIRTUAL, change_seq INTEGER AS (seq - change_back) VIRTUAL,
                """ : "")
                PRIMARY KEY (session_id, seq)
            ) STRICT, WITHOUT ROWID
            """] + triggers
    }

    static let schema7Columns: [(name: String, field: Field)] = [
        ("session_id", .session), ("seq", .seq), ("time_ns", .time), ("kind", .kind), ("thread", .thread),
        ("flags", .flags), ("channel_id", .channel), ("registration_id", .registration), ("owner_id", .owner),
        ("change_back", .changeBack), ("duration_ns", .duration), ("cpu_ns", .cpu), ("live_count", .liveCount),
        ("call_site_id", .callSite), ("old_value", .old), ("new_value", .new), ("reason", .reason),
    ]

    static let schema7WideColumns: [(name: String, field: Field)] = [
        ("session_id", .session), ("seq", .seq), ("time_ns", .time), ("kind", .kind), ("thread", .thread),
        ("is_main", .isMain), ("is_prior", .isPrior), ("main_queue", .mainQueue), ("depth", .depth),
        ("channel_id", .channel), ("registration_id", .registration), ("owner_id", .owner), ("change_seq", .changeSeq),
        ("duration_ns", .duration), ("cpu_ns", .cpu), ("live_count", .liveCount), ("call_site_id", .callSite),
        ("old_value", .old), ("new_value", .new), ("reason", .reason),
    ]

    static let shapes: [Shape] = {
        var list = [
            Shape(name: "schema 4: 24 columns, STRICT, WITHOUT ROWID, CHECKs", schema: schema4(), columns: schema4Columns),
            Shape(name: "schema 4, no CHECKs", schema: schema4(checks: false), columns: schema4Columns),
            Shape(name: "schema 4, not STRICT", schema: schema4(strict: false), columns: schema4Columns),
            Shape(name: "schema 4, 64 rows per statement", schema: schema4(), columns: schema4Columns, rowsPerStatement: 64),
            Shape(name: "schema 4, page_size 16384", schema: schema4(), columns: schema4Columns, pageSize: 16384),
            Shape(name: "rowid key, 24 columns (22 stored)", schema: rowidWide, columns: rowidWideColumns),
            Shape(name: "rowid key, hot row 19 columns, rare ones in a side table", schema: rowidNarrow(checks: true),
                  columns: rowidNarrowColumns),
            Shape(name: "  the same, no CHECKs", schema: rowidNarrow(checks: false), columns: rowidNarrowColumns),
            Shape(name: "rowid key, hot row 16 columns, flags packed into kind", schema: packedFlags, columns: packedFlagsColumns),
        ]
        let narrow = list[6]
        for rows in [64, 128] {
            var shape = narrow
            shape.name = "  hot row 19 columns, \(rows) rows per statement"
            shape.rowsPerStatement = rows
            list.append(shape)
        }
        for size in [8192, 16384] {
            var shape = narrow
            shape.name = "  hot row 19 columns, page_size \(size)"
            shape.pageSize = size
            list.append(shape)
        }
        list.append(Shape(
            name: "packed: 64-byte records, 256 per BLOB row (values in a side table)",
            schema: [
                "CREATE TABLE event_blocks (key INTEGER PRIMARY KEY, records BLOB NOT NULL) STRICT",
                "CREATE TABLE event_values (key INTEGER PRIMARY KEY, old_value TEXT, new_value TEXT) STRICT",
            ],
            columns: [("key", .key), ("old_value", .old), ("new_value", .new)], packed: 256
        ))
        list[0].readBack = readBackQuery("events")
        // Schema 7 with bound rows, 64 per statement (the writer before it staged rows for
        // `INSERT … SELECT`), and its wide variant.
        list.append(Shape(
            name: "schema 7: 17 columns (flags, change_back), STRICT, WITHOUT ROWID, 64 rows per statement",
            schema: schema7(), columns: schema7Columns, rowsPerStatement: 64,
            readBack: "SELECT count(*), sum(seq), sum(time_ns), sum(kind), sum(registration_id), sum(duration_ns), "
                + "sum(seq - change_back), sum(length(old_value)), sum(length(new_value)), sum(flags & 8) FROM events"
        ))
        list.append(Shape(
            name: "  the same + 5 generated columns (is_main, is_prior, main_queue, depth, change_seq)",
            schema: schema7(generated: true), columns: schema7Columns, rowsPerStatement: 64, readBack: readBackQuery("events")
        ))
        list.append(Shape(
            name: "schema 7 wide: the same 20 columns all stored, 64 rows per statement",
            schema: schema7(wide: true), columns: schema7WideColumns, rowsPerStatement: 64, readBack: readBackQuery("events")
        ))
        list.append(Shape(
            name: "JSON blocks: 256 events per row, an array of 23 columns each (values inline), view via json_each",
            schema: jsonBlocks, columns: schema4Columns, json: 256, readBack: readBackQuery("events_view")
        ))
        return list
    }()

    /// Events packed as JSON text: `body` is `[[seq, time_ns, kind, …], …]` in schema 4's column
    /// order without `session_id`; the view gives them back as rows.
    static let jsonBlocks = [
        """
        CREATE TABLE event_blocks (
            session_id INTEGER NOT NULL, first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL, body TEXT NOT NULL,
            PRIMARY KEY (session_id, first_seq)
        ) STRICT, WITHOUT ROWID
        """,
        "CREATE VIEW events_view AS SELECT b.session_id, "
            + schema4Columns.dropFirst().enumerated().map { "j.value ->> \($0.offset) AS \($0.element.name)" }
                .joined(separator: ", ")
            + " FROM event_blocks b, json_each(b.body) j",
    ]

    /// Reads every column that varies, so that decoding cannot be skipped.
    static func readBackQuery(_ table: String) -> String {
        "SELECT count(*), sum(seq), sum(time_ns), sum(kind), sum(registration_id), sum(duration_ns), "
            + "sum(change_seq), sum(length(old_value)), sum(length(new_value)), sum(main_queue) FROM \(table)"
    }

    /// Events per second read back by `shape.readBack` from the database at `path`, which
    /// must hold `rows` events.
    static func readRate(_ shape: Shape, path: String, rows: Int) throws -> Double? {
        guard let query = shape.readBack else { return nil }
        let database = try RawSQLite(path: path)
        let start = now()
        let result = try database.rows(query)
        let elapsed = Double(now() - start) / 1e9
        guard let count = result.first?.first.flatMap({ $0 }).flatMap({ Int($0) }), count == rows else {
            throw RawSQLiteError(message: "read back \(result), expected \(rows) events")
        }
        return Double(count) / elapsed
    }

    /// The JSON-block shape: each event's columns as a JSON array, written into a fixed byte
    /// buffer (integers in decimal, text quoted), `shape.json` events per row, about 10,000
    /// events per transaction. The buffer is written through a pointer so that the figure is
    /// SQLite's and the text's, not `Array.append`'s checks.
    static func runJSON(_ shape: Shape, database: RawSQLite, rows: Int) throws -> Double {
        let insert = try database.prepare(
            "INSERT INTO event_blocks (session_id, first_seq, last_seq, body) VALUES (1, ?, ?, ?)"
        )
        defer { sqlite3_finalize(insert) }
        let rows = rows - rows % shape.json
        let fields = shape.columns.dropFirst().map(\.field)
        var body = JSONText(capacity: shape.json * (fields.count * 21 + 8) + 8)
        defer { body.deallocate() }
        let start = now()
        var seq: Int64 = 1
        while seq <= Int64(rows) {
            try database.execute("BEGIN IMMEDIATE")
            for _ in 0..<max(1, 10_000 / shape.json) where seq <= Int64(rows) {
                let first = seq
                body.count = 0
                body.byte(UInt8(ascii: "["))
                for index in 0..<shape.json {
                    if index > 0 { body.byte(UInt8(ascii: ",")) }
                    body.byte(UInt8(ascii: "["))
                    for position in fields.indices {
                        if position > 0 { body.byte(UInt8(ascii: ",")) }
                        appendJSON(&body, fields[position], seq: seq)
                    }
                    body.byte(UInt8(ascii: "]"))
                    seq += 1
                }
                body.byte(UInt8(ascii: "]"))
                sqlite3_bind_int64(insert, 1, first)
                sqlite3_bind_int64(insert, 2, seq - 1)
                body.base.withMemoryRebound(to: CChar.self, capacity: body.count) {
                    _ = sqlite3_bind_text(insert, 3, $0, Int32(body.count), nil)
                }
                try database.step(insert)
            }
            try database.execute("COMMIT")
        }
        return Double(rows) / (Double(now() - start) / 1e9)
    }

    /// One sample value (the same as `bind`'s) as JSON; the sample texts are digits, so they
    /// need no escaping.
    static func appendJSON(_ body: inout JSONText, _ field: Field, seq: Int64) {
        switch field {
        case .old, .new:
            guard seq % 2 == 1 else { return body.null() }
            body.byte(UInt8(ascii: "\""))
            body.decimal(seq / 2 + (field == .new ? 1 : 0))
            body.byte(UInt8(ascii: "\""))
        default:
            if let value = integer(field, seq: seq) { body.decimal(value) } else { body.null() }
        }
    }

    /// A byte buffer of fixed capacity that JSON text is written into; the caller sizes it.
    struct JSONText {
        let base: UnsafeMutablePointer<UInt8>
        var count = 0

        init(capacity: Int) { base = .allocate(capacity: capacity) }

        func deallocate() { base.deallocate() }

        mutating func byte(_ value: UInt8) {
            base[count] = value
            count += 1
        }

        mutating func null() {
            base[count] = UInt8(ascii: "n")
            base[count + 1] = UInt8(ascii: "u")
            base[count + 2] = UInt8(ascii: "l")
            base[count + 3] = UInt8(ascii: "l")
            count += 4
        }

        /// At most 20 bytes.
        mutating func decimal(_ value: Int64) {
            if value < 0 { byte(UInt8(ascii: "-")) }
            var magnitude = value.magnitude
            var end = count
            repeat {
                end += 1
                magnitude /= 10
            } while magnitude > 0
            magnitude = value.magnitude
            var position = end
            repeat {
                position -= 1
                base[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            count = end
        }
    }

    /// Rows per second of `shape` into a new database at `path`.
    static func run(_ shape: Shape, path: String, rows: Int) throws -> Double {
        let database = try RawSQLite(path: path)
        try database.execute("PRAGMA page_size = \(shape.pageSize)")
        try database.execute("PRAGMA journal_mode = WAL")
        try database.execute("PRAGMA synchronous = NORMAL")
        for statement in shape.schema { try database.execute(statement) }
        if shape.packed > 0 { return try runPacked(shape, database: database, rows: rows) }
        if shape.json > 0 { return try runJSON(shape, database: database, rows: rows) }
        let perRow = Int32(shape.columns.count)
        let row = "(" + Array(repeating: "?", count: shape.columns.count).joined(separator: ", ") + ")"
        let insert = try database.prepare(
            "INSERT INTO events (\(shape.columns.map(\.name).joined(separator: ", "))) VALUES "
                + Array(repeating: row, count: shape.rowsPerStatement).joined(separator: ", ")
        )
        defer { sqlite3_finalize(insert) }
        let rows = rows - rows % shape.rowsPerStatement
        let start = now()
        var seq: Int64 = 1
        while seq <= Int64(rows) {
            try database.execute("BEGIN IMMEDIATE")
            for _ in 0..<max(1, 10_000 / shape.rowsPerStatement) where seq <= Int64(rows) {
                for index in 0..<Int32(shape.rowsPerStatement) {
                    var parameter = index * perRow + 1
                    for column in shape.columns {
                        bind(insert, parameter, column.field, seq: seq)
                        parameter += 1
                    }
                    seq += 1
                }
                try database.step(insert)
            }
            try database.execute("COMMIT")
        }
        return Double(rows) / (Double(now() - start) / 1e9)
    }

    /// The packed shape: each event a 64-byte record (key, time, kind and flags, thread,
    /// channel, registration, owner, call site, depth/live count, durations, change seq) in
    /// blocks of `packed`; a `changed` event's value texts a row of `event_values`, 32 per
    /// statement.
    static func runPacked(_ shape: Shape, database: RawSQLite, rows: Int) throws -> Double {
        let insertBlock = try database.prepare("INSERT INTO event_blocks (key, records) VALUES (?, ?)")
        defer { sqlite3_finalize(insertBlock) }
        let valuesPerStatement = 32
        let insertValues = try database.prepare(
            "INSERT INTO event_values (key, old_value, new_value) VALUES "
                + Array(repeating: "(?, ?, ?)", count: valuesPerStatement).joined(separator: ", ")
        )
        defer { sqlite3_finalize(insertValues) }
        let rows = rows - rows % (2 * valuesPerStatement)
        var block = [UInt64](repeating: 0, count: shape.packed * 8)
        var inBlock = 0
        var pendingValues = 0
        var blockKey: Int64 = 0
        let start = now()
        var seq: Int64 = 1
        while seq <= Int64(rows) {
            try database.execute("BEGIN IMMEDIATE")
            for _ in 0..<10_000 where seq <= Int64(rows) {
                let changed = seq % 2 == 1
                let base = inBlock * 8
                block[base] = UInt64(key(seq))
                block[base + 1] = UInt64(seq * 300)
                block[base + 2] = (changed ? 4 : 5) | 1 << 8 | 1 << 10 | 1 << 11 | 1 << 32
                block[base + 3] = 1 | (changed ? 0 : 1 << 32)
                block[base + 4] = changed ? 0 : 2
                block[base + 5] = changed ? 2 : 0
                block[base + 6] = changed ? 1 : 120 | 90 << 32
                block[base + 7] = changed ? 0 : UInt64(seq - 1)
                inBlock += 1
                if inBlock == shape.packed {
                    blockKey += 1
                    sqlite3_bind_int64(insertBlock, 1, blockKey)
                    block.withUnsafeBytes { bytes in
                        _ = sqlite3_bind_blob(insertBlock, 2, bytes.baseAddress, Int32(bytes.count), nil)
                    }
                    try database.step(insertBlock)
                    inBlock = 0
                }
                if changed {
                    let parameter = Int32(pendingValues * 3 + 1)
                    bind(insertValues, parameter, .key, seq: seq)
                    bind(insertValues, parameter + 1, .old, seq: seq)
                    bind(insertValues, parameter + 2, .new, seq: seq)
                    pendingValues += 1
                    if pendingValues == valuesPerStatement {
                        try database.step(insertValues)
                        pendingValues = 0
                    }
                }
                seq += 1
            }
            try database.execute("COMMIT")
        }
        return Double(rows) / (Double(now() - start) / 1e9)
    }

    static func key(_ seq: Int64) -> Int64 { 1 << 40 | seq }

    /// Binds one sample value: odd seqs are `changed` rows, even ones their `delivered`.
    static func bind(_ statement: OpaquePointer, _ parameter: Int32, _ field: Field, seq: Int64) {
        switch field {
        case .old, .new:
            if seq % 2 == 1 {
                sqlite3_bind_text(statement, parameter, String(seq / 2 + (field == .new ? 1 : 0)), -1, transient)
            } else {
                sqlite3_bind_null(statement, parameter)
            }
        default:
            if let value = integer(field, seq: seq) {
                sqlite3_bind_int64(statement, parameter, value)
            } else {
                sqlite3_bind_null(statement, parameter)
            }
        }
    }

    /// A sample row's integer for `field` (nil: NULL; the texts are not integers).
    static func integer(_ field: Field, seq: Int64) -> Int64? {
        let changed = seq % 2 == 1
        switch field {
        case .session: return 1
        case .seq: return seq
        case .key: return key(seq)
        case .time: return seq * 300
        case .kind: return changed ? 4 : 5
        case .kindFlags: return (changed ? 4 : 5) | 1 << 8 | 1 << 10 | 1 << 11
        case .flags: return 1 | 4 | 8 | (changed ? 0 : 1 << 4)
        case .changeBack: return changed ? nil : 1
        case .thread: return 1
        case .isMain: return 1
        case .channel: return 1
        case .registration: return changed ? nil : 1
        case .owner: return changed ? nil : 2
        case .callSite: return changed ? 2 : nil
        case .depth: return changed ? 0 : 1
        case .liveCount: return changed ? 1 : nil
        case .duration: return changed ? nil : 120
        case .isPrior: return 0
        case .mainQueue: return 1
        case .cpu: return changed ? nil : 90
        case .waits: return changed ? nil : 0
        case .changeSeq: return changed ? nil : seq - 1
        case .otherRegistration, .scope, .reason, .detail: return nil
        case .old, .new: return nil
        }
    }
}
