import Foundation
import JournalStore

/// Writes journal files row by row for tests and benchmarks, exactly as schema 1 says
/// the journal writer does: one session row per recording, objects, channels, scopes and
/// registrations inserted when first seen, `registrations.removed_seq/removal_reason` and
/// `objects.dealloc_seq` updated when they happen, gap-free `seq` per session.
///
/// The schema is the one the library embeds (`JournalSchema.embeddedMigrations`, made
/// from `Migrations/*.sql`), applied by the writer's migrator. Rows are written through as
/// they are made, so a million-event fixture needs no memory for its events.
package final class JournalFixture {
    package let path: String
    let database: SQLiteDatabase
    private var statements: [String: SQLiteStatement] = [:]
    private var strings: [String: Int64] = [:]
    private var callSites: [String: Int64] = [:]
    private var nextSessionID: Int64 = 1
    /// The schema version the journal is at, and its rows are written for.
    package let schemaVersion: Int
    /// The event columns of that schema, in `EventColumn` order.
    let eventColumns: [EventColumn]

    /// Creates a new journal at `path` (replacing any file there) with the full schema,
    /// or with the first `schemaVersion` migrations only: a journal as an older release
    /// wrote it (its event kinds as names before schema 4), to test reading and upgrading.
    /// - Parameter wal: use write-ahead logging, as the real writer does.
    package init(path: String, wal: Bool = false, schemaVersion: Int = JournalSchema.latestVersion) throws {
        try? FileManager.default.removeItem(atPath: path)
        self.path = path
        self.schemaVersion = schemaVersion
        eventColumns = EventColumn.columns(schema: schemaVersion)
        database = try SQLiteDatabase(path: path, mode: .readWriteCreate)
        if wal { try database.execute("PRAGMA journal_mode=WAL") }
        // The embedded migrations, in one transaction with the application id: a copy of a
        // WAL fixture cut anywhere holds either no journal or the whole schema, never an
        // older journal that `migrate` would upgrade. A fixed time keeps fixtures repeatable.
        try database.execute("BEGIN IMMEDIATE")
        for migration in JournalSchema.embeddedMigrations.prefix(schemaVersion) {
            try database.execute(migration.sql)
            try run(
                "INSERT INTO migrations (version, name, applied_at) VALUES (?1, ?2, ?3)",
                [.int(Int64(migration.version)), .text(migration.name), .text("2025-01-01T00:00:00Z")]
            )
        }
        statements = [:]
        try database.execute("PRAGMA user_version = \(schemaVersion)")
        try database.execute("PRAGMA application_id = \(JournalSchema.applicationID)")
        try database.execute("COMMIT")
        try database.execute("BEGIN")
    }

    /// Commits everything written; from schema 5 on, then packs the events into
    /// `event_blocks` (schema 5) or `event_packs` (schema 6 on) as the writer stores them
    /// (`packEvents`), unless `packed` is false (a test that edits `event_rows` afterwards).
    /// The fixture cannot be used afterwards.
    package func finish(packed: Bool = true) throws {
        statements = [:]
        try database.execute("COMMIT")
        if packed, schemaVersion >= EventColumn.blocksSince { try packEvents() }
    }

    /// The longest block body (and event) the writer puts in a block; a longer event
    /// stays a row of `event_rows` (docs/EVENT-BLOCKS.md).
    static let maxBodyBytes = 4 << 20

    /// Text bytes per event below which no block of 256 events can pass `maxBodyBytes`
    /// (each byte escaped to at most 6, plus the integers): the blocks are then cut by
    /// SQL alone.
    static let smallEventTextBytes = 2_000

    /// Moves the rows of `event_rows` into blocks of up to 256 events of consecutive seqs
    /// (or 4 MiB of body), per session in seq order, leaving longer events as rows: into
    /// `event_blocks` in schema 5's body, from schema 6 on into `event_packs` in the compact
    /// body (`EventPack`). Each event is encoded by SQLite's own `json_array` (trailing
    /// nulls cut from a pack's by `rtrim`), and a block's events joined by `group_concat`,
    /// not by the writer's encoder, so tests that read these blocks check the format against
    /// an independent encoding. One `INSERT … SELECT … GROUP BY` for all blocks, grouped
    /// along the primary key of the plan, (session, block, seq): SQLite scans it in that
    /// order with no sorter, so each block's events reach `group_concat` in seq order (a
    /// window function ordered by seq says so outright, but copies a block's whole body once
    /// per event: twice the time). The append-only triggers are dropped and restored as
    /// `edit` does, in one transaction.
    package func packEvents() throws {
        try database.execute("BEGIN IMMEDIATE")
        var triggers: [String] = []
        let listed = try database.prepare("SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'event_rows' ORDER BY name")
        while try listed.step() { triggers.append(listed.text(0)) }
        listed.reset()
        try database.execute("DROP TRIGGER IF EXISTS events_no_update; DROP TRIGGER IF EXISTS events_no_delete;")
        // Which block each packed event goes to, by its block's first seq.
        try database.execute("""
            CREATE TEMP TABLE pack_plan (
                session_id INTEGER NOT NULL, block INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (session_id, block, seq)
            ) WITHOUT ROWID
            """)
        let textBytes = try database.prepare("""
            SELECT COALESCE(max(COALESCE(length(CAST(old_value AS BLOB)), 0) + COALESCE(length(CAST(new_value AS BLOB)), 0)
                + COALESCE(length(CAST(reason AS BLOB)), 0) + COALESCE(length(CAST(detail AS BLOB)), 0)), 0) FROM event_rows
            """)
        _ = try textBytes.step()
        let small = textBytes.int(0) < Self.smallEventTextBytes
        textBytes.reset()
        if small {
            // Runs of consecutive seqs (seq - row number is constant along one), cut every 256.
            try database.execute("""
                INSERT INTO pack_plan (session_id, seq, block)
                SELECT session_id, seq, run + ((seq - run) / 256) * 256 FROM (
                  SELECT session_id, seq, min(seq) OVER (PARTITION BY session_id, key) AS run FROM (
                    SELECT session_id, seq, seq - row_number() OVER (PARTITION BY session_id ORDER BY seq) AS key
                    FROM event_rows))
                """)
        } else {
            try planLargeEvents()
        }
        let columns = EventColumn.allCases.dropFirst().map { "e." + $0.name }.joined(separator: ", ")
        let join = "FROM pack_plan p JOIN event_rows e ON e.session_id = p.session_id AND e.seq = p.seq"
        if schemaVersion >= EventPack.since {
            let elements = EventPack.elements.map { column -> String in
                switch column {
                case .timeNs: return "e.time_ns - f.time_ns"
                case .changeSeq: return "e.seq - e.change_seq"
                case .depth, .isPrior: return "NULLIF(e.\(column.name), 0)"
                default: return "e." + column.name
                }
            }.joined(separator: ", ")
            try database.execute("""
                INSERT INTO event_packs (session_id, first_seq, event_count, base_time_ns, body)
                SELECT p.session_id, p.block, count(*), f.time_ns,
                       '[' || group_concat(rtrim(json_array(\(elements)), ',nul]') || ']', ',') || ']'
                \(join) JOIN event_rows f ON f.session_id = p.session_id AND f.seq = p.block
                GROUP BY p.session_id, p.block
                """)
        } else {
            try database.execute("""
                INSERT INTO event_blocks (session_id, first_seq, last_seq, event_count, body)
                SELECT p.session_id, p.block, max(p.seq), count(*), '[' || group_concat(json_array(\(columns)), ',') || ']'
                \(join) GROUP BY p.session_id, p.block
                """)
        }
        try database.execute("""
            DELETE FROM event_rows WHERE (session_id, seq) IN (SELECT session_id, seq FROM pack_plan);
            DROP TABLE pack_plan;
            """)
        for trigger in triggers { try database.execute(trigger) }
        try database.execute("COMMIT")
    }

    /// `pack_plan` for a journal with large texts, event by event as the writer cuts
    /// blocks: an event whose JSON alone passes `maxBodyBytes` stays a row (the block
    /// before it ends), and a block ends before its body would pass it.
    private func planLargeEvents() throws {
        let columns = EventColumn.allCases.dropFirst().map(\.name).joined(separator: ", ")
        // Schema 5's encoding of the event: at least as long as a pack's but for the
        // difference of time_ns, which 21 bytes cover.
        let events = try database.prepare("SELECT session_id, seq, length(json_array(\(columns))) + 21 FROM event_rows ORDER BY session_id, seq")
        let plan = try database.prepare("INSERT INTO pack_plan (session_id, seq, block) VALUES (?1, ?2, ?3)")
        var session: Int64 = 0, first: Int64 = 0, last: Int64 = 0, count = 0, bytes = 0
        while try events.step() {
            let eventSession = events.int(0), seq = events.int(1), length = Int(events.int(2))
            if length + 2 > Self.maxBodyBytes {
                count = 0
                continue
            }
            if count > 0, eventSession != session || seq != last + 1 || count == 256 || bytes + length + 1 > Self.maxBodyBytes {
                count = 0
            }
            if count == 0 {
                session = eventSession
                first = seq
                bytes = 1
            }
            bytes += length + 1
            last = seq
            count += 1
            plan.reset()
            try plan.bind(session, at: 1)
            try plan.bind(seq, at: 2)
            try plan.bind(first, at: 3)
            try plan.run()
        }
        events.reset()
    }

    /// Commits what was written so far and goes on in a new transaction, like the
    /// writer's batches: readers see everything up to here.
    package func commit() throws {
        try database.execute("COMMIT")
        try database.execute("BEGIN")
    }

    /// Starts a session; `clean: false` leaves it as a crash would (no end, not clean).
    package func session(
        label: String = "test", process: String = "App", startedAt: String = "2025-01-01T10:00:00Z",
        endedAt: String? = "2025-01-01T10:00:05Z", clean: Bool = true
    ) throws -> FixtureSession {
        let id = nextSessionID
        nextSessionID += 1
        try run(
            "INSERT INTO sessions (id, label, process, pid, host, started_at, start_ns, ended_at, clean_end, library_version) VALUES (?1, ?2, ?3, 4242, 'testhost', ?4, 1000, ?5, ?6, '0.1.0')",
            [.int(id), .text(label), .text(process), .text(startedAt), clean ? .text(endedAt) : .null, .int(clean ? 1 : 0)]
        )
        return FixtureSession(fixture: self, id: id)
    }

    // MARK: - Rows

    enum Value {
        case int(Int64)
        case text(String?)
        case null

        static func optional(_ value: Int64?) -> Value { value.map(Value.int) ?? .null }
    }

    func run(_ sql: String, _ values: [Value]) throws {
        let statement: SQLiteStatement
        if let cached = statements[sql] {
            statement = cached
            statement.reset()
        } else {
            statement = try database.prepare(sql)
            statements[sql] = statement
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case let .int(number): try statement.bind(number, at: index)
            case let .text(text): try statement.bind(text, at: index)
            case .null: try statement.bind(nil as Int64?, at: index)
            }
        }
        try statement.step()
    }

    func string(_ value: String) throws -> Int64 {
        if let id = strings[value] { return id }
        let id = Int64(strings.count + 1)
        try run("INSERT INTO strings (id, value) VALUES (?1, ?2)", [.int(id), .text(value)])
        strings[value] = id
        return id
    }

    /// A call site from `File.swift:42`, with an optional function name; `File.swift:42 in
    /// deinit` names the function in the site itself.
    func callSite(_ site: String, function: String = "f()") throws -> Int64 {
        if let split = site.range(of: " in ") {
            return try callSite(String(site[..<split.lowerBound]), function: String(site[split.upperBound...]))
        }
        let key = site + "|" + function
        if let id = callSites[key] { return id }
        let colon = site.lastIndex(of: ":")!
        let file = String(site[..<colon])
        let line = Int64(site[site.index(after: colon)...])!
        let id = Int64(callSites.count + 1)
        try run(
            "INSERT INTO call_sites (id, file_id, line, function_id) VALUES (?1, ?2, ?3, ?4)",
            [.int(id), .int(try string("App/" + file)), .int(line), .int(try string(function))]
        )
        callSites[key] = id
        return id
    }
}

extension JournalFixture {
    /// Runs `sql` on the finished journal at `path` as a tool other than the writer
    /// would: the append-only triggers are dropped for it and put back exactly as they
    /// were, so the journal's schema is still the one the reader accepts.
    package static func edit(_ path: String, _ sql: String) throws {
        let database = try SQLiteDatabase(path: path, mode: .readWrite)
        var triggers: [String] = []
        let statement = try database.prepare("SELECT sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY name")
        while try statement.step() { triggers.append(statement.text(0)) }
        try database.execute("""
            DROP TRIGGER IF EXISTS events_no_update; DROP TRIGGER IF EXISTS events_no_delete;
            DROP TRIGGER IF EXISTS event_blocks_no_update; DROP TRIGGER IF EXISTS event_blocks_no_delete;
            DROP TRIGGER IF EXISTS event_packs_no_update; DROP TRIGGER IF EXISTS event_packs_no_delete;
            """)
        try database.execute(sql)
        for trigger in triggers { try database.execute(trigger) }
    }
}
