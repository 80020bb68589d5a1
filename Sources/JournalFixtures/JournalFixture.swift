import Foundation
import JournalStore

/// Writes journal files row by row for tests and benchmarks, exactly as the schema says
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
    /// Made at the first event, when the table exists.
    private var staged: StagedEvents?
    private var strings: [String: Int64] = [:]
    private var callSites: [String: Int64] = [:]
    private var nextSessionID: Int64 = 1
    /// The schema version the journal is at, and its rows are written for: the latest, or
    /// 1 (a journal as 0.1.0 wrote it, with kinds, policies and reasons as names).
    package let schemaVersion: Int

    /// Creates a new journal at `path` (replacing any file there) with the full schema,
    /// or with the migrations up to `schemaVersion` only (1: as 0.1.0 wrote it), to test
    /// reading and upgrading.
    /// - Parameter wal: use write-ahead logging, as the real writer does.
    package init(path: String, wal: Bool = false, schemaVersion: Int = JournalSchema.latestVersion) throws {
        try? FileManager.default.removeItem(atPath: path)
        self.path = path
        self.schemaVersion = schemaVersion
        database = try SQLiteDatabase(path: path, mode: .readWriteCreate)
        if wal { try database.execute("PRAGMA journal_mode=WAL") }
        // The embedded migrations, in one transaction with the application id: a copy of a
        // WAL fixture cut anywhere holds either no journal or the whole schema, never an
        // older journal that `migrate` would upgrade. A fixed time keeps fixtures repeatable.
        try database.execute("BEGIN IMMEDIATE")
        for migration in JournalSchema.embeddedMigrations where migration.version <= schemaVersion {
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

    /// Commits everything written. The fixture cannot be used afterwards.
    package func finish() throws {
        statements = [:]
        try database.execute("COMMIT")
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

    /// The statement for `sql`, reset, compiled on first use.
    private func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        let statement = try database.prepare(sql)
        statements[sql] = statement
        return statement
    }

    /// Inserts an event's row, and its details unless empty, staged as the writer stages them.
    func insert(_ event: StoredEvent, _ details: StoredEventDetails) throws {
        let staged = try self.staged ?? StagedEvents(database: database, capacity: 1)
        self.staged = staged
        try staged.append(event)
        try staged.insert()
        guard !details.isEmpty else { return }
        let insertDetails = try statement(EventDetailColumn.insertSQL)
        try insertDetails.bind(details)
        try insertDetails.step()
    }

    func run(_ sql: String, _ values: [Value]) throws {
        let statement = try statement(sql)
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
        var triggers: [(name: String, sql: String)] = []
        let statement = try database.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY name")
        while try statement.step() { triggers.append((statement.text(0), statement.text(1))) }
        statement.reset()
        for trigger in triggers { try database.execute("DROP TRIGGER \"\(trigger.name)\"") }
        try database.execute(sql)
        for trigger in triggers { try database.execute(trigger.sql) }
    }
}
