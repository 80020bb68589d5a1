import CSQLite
import Foundation
@testable import ObservationJournal
import Testing
import TestSupport

@Suite struct SchemaTests {
    /// The schema the library creates is exactly what the sqlite3 shell makes of
    /// Migrations/*.sql applied in order.
    @Test(.tags(.childProcess)) func libraryCreatesTheSchemaOfTheMigrationFiles() throws {
        let scratch = try ScratchDirectory()
        let fromLibrary = scratch.path("library.sqlite")
        let fromShell = scratch.path("shell.sqlite")
        _ = try Journal.open(path: fromLibrary)

        let files = try FileManager.default.contentsOfDirectory(atPath: migrationsFolder)
            .filter { $0.hasSuffix(".sql") }.sorted()
        #expect(files.count == JournalSchema.embeddedMigrations.count)
        for file in files {
            try run("/usr/bin/env", ["sqlite3", "-bail", fromShell, ".read \(migrationsFolder)/\(file)"])
        }
        let query = "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name"
        let shellSchema = try run("/usr/bin/env", ["sqlite3", fromShell, query])
        let librarySchema = try run("/usr/bin/env", ["sqlite3", fromLibrary, query])
        #expect(!shellSchema.isEmpty)
        #expect(librarySchema == shellSchema)
    }

    @Test func embeddedMigrationsAreTheFilesInOrder() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: migrationsFolder)
            .filter { $0.hasSuffix(".sql") }.sorted()
        let embedded = JournalSchema.embeddedMigrations
        #expect(embedded.map { String(format: "%04d", $0.version) } == files.map { String($0.prefix(4)) })
        #expect(embedded.last?.version == JournalSchema.latestVersion)
        for (migration, file) in zip(embedded, files) {
            #expect(String(format: "%04d_%@.sql", migration.version, migration.name) == file)
            #expect(migration.sql == (try String(contentsOfFile: "\(migrationsFolder)/\(file)", encoding: .utf8)))
        }
    }

    /// The checked-in `EmbeddedMigrations.swift` is exactly what `MigrationsCompiler` makes
    /// of the folder: after changing `Migrations/`, regenerate it (see its header).
    @Test(.tags(.childProcess)) func checkedInMigrationsCodeIsGeneratedFromTheFolder() throws {
        let scratch = try ScratchDirectory()
        let files = try FileManager.default.contentsOfDirectory(atPath: migrationsFolder)
            .filter { $0.hasSuffix(".sql") }.sorted().map { "\(migrationsFolder)/\($0)" }
        let output = scratch.path("EmbeddedMigrations.swift")
        try run(try CrashSafetyTests.helperPath("MigrationsCompiler"), [output] + files)
        let checkedIn = "\(migrationsFolder)/../Sources/JournalStore/EmbeddedMigrations.swift"
        #expect(try String(contentsOfFile: output, encoding: .utf8) == (try String(contentsOfFile: checkedIn, encoding: .utf8)))
    }

    /// A schema version names one schema for ever: numbers start at 1 and only increase
    /// (a retired number is skipped, never reused).
    @Test(.tags(.childProcess)) func migrationNumbersThatRepeatAreRefused() throws {
        let scratch = try ScratchDirectory()
        for name in ["0001_initial.sql", "0001_again.sql"] {
            try "SELECT 1;\n".write(toFile: scratch.path(name), atomically: true, encoding: .utf8)
        }
        let output = scratch.path("Out.swift")
        #expect {
            try run(try CrashSafetyTests.helperPath("MigrationsCompiler"), [output, scratch.path("0001_initial.sql"), scratch.path("0001_again.sql")])
        } throws: { error in
            (error as? ChildFailure)?.result.stderr == "MigrationsCompiler: \(scratch.path("0001_initial.sql")): expected a migration number above 1, found 1\n"
        }
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// A journal made at schema 1 and upgraded accepts the removal reasons added since
    /// (`streamEnded`), and still refuses a code nobody defined.
    @Test func upgradedJournalAcceptsTheStreamEndedReason() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let database = try SQLiteDatabase(path: path, mode: .readWriteCreate)
        try JournalMigrator.migrate(database, migrations: [JournalSchema.embeddedMigrations[0]])
        try JournalMigrator.migrate(database)
        let fresh = try SQLiteDatabase(path: path, mode: .readWrite)
        let insert = """
            INSERT INTO registrations (session_id, id, channel_id, owner_id, call_site_id, options, expects_main,
                                       registered_seq, removed_seq, removal_reason)
            VALUES (1, ?1, 1, 1, 1, 'new', 0, 1, 2, ?2)
            """
        try fresh.execute("PRAGMA foreign_keys = OFF")
        let statement = try fresh.prepare(insert)
        try statement.bind(1, at: 1)
        try statement.bind(JournalRemovalReason.streamEnded.code, at: 2)
        try statement.run()
        let wrong = try fresh.prepare(insert)
        try wrong.bind(2, at: 1)
        try wrong.bind(Int64(JournalRemovalReason.allCases.count), at: 2)
        #expect(throws: SQLiteError.self) { try wrong.run() }
        #expect(try fresh.scalarInt("SELECT count(*) FROM registration_log WHERE removal_reason = 'streamEnded'") == 1)
    }

    @Test func newJournalIdentifiesItselfAndRecordsItsMigrations() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        _ = try Journal.open(path: path)
        #expect(try scalar(path, "PRAGMA application_id") == 0x4F4A_524E)
        #expect(try scalar(path, "PRAGMA user_version") == Int64(JournalSchema.latestVersion))
        #expect(try rows(path, "SELECT version, name FROM migrations ORDER BY version")
            == JournalSchema.embeddedMigrations.map { "\($0.version)|\($0.name)" })
        #expect(try rows(path, "PRAGMA journal_mode") == ["wal"])
    }

    /// An older journal is upgraded one migration per transaction; data survives.
    @Test func olderJournalIsUpgradedInOrder() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let first = JournalSchema.embeddedMigrations[0]
        let second = Migration(version: 2, name: "notes", sql: "CREATE TABLE notes (text TEXT NOT NULL) STRICT;")
        let database = try SQLiteDatabase(path: path, mode: .readWriteCreate)
        let created = try JournalMigrator.migrate(database, migrations: [first], now: { "2026-01-01T00:00:00.000Z" })
        #expect(created.from == 0 && created.to == 1)
        try database.execute("INSERT INTO strings (value) VALUES ('kept')")

        let upgraded = try JournalMigrator.migrate(database, migrations: [first, second], now: { "2026-02-02T00:00:00.000Z" })
        #expect(upgraded.from == 1 && upgraded.to == 2)
        #expect(try database.scalarInt("PRAGMA user_version") == 2)
        #expect(try database.scalarInt("PRAGMA application_id") == 0x4F4A_524E)
        let migrations = try database.prepare("SELECT version || '|' || name || '|' || applied_at FROM migrations ORDER BY version")
        var applied: [String] = []
        while try migrations.step() { applied.append(migrations.text(0)) }
        #expect(applied == ["1|initial|2026-01-01T00:00:00.000Z", "2|notes|2026-02-02T00:00:00.000Z"])
        #expect(try database.scalarInt("SELECT count(*) FROM strings WHERE value = 'kept'") == 1)

        // Applying again changes nothing.
        let again = try JournalMigrator.migrate(database, migrations: [first, second])
        #expect(again.from == 2 && again.to == 2)
    }

    /// The upgrade from schema 1 rebuilds `events` into the row table and `event_details`:
    /// a schema-1 journal's rows, triggers and views survive, with the columns recorded
    /// since read as NULL.
    @Test func schemaOneJournalKeepsItsEventsTriggersAndViews() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let database = try SQLiteDatabase(path: path, mode: .readWriteCreate)
        try JournalMigrator.migrate(database, migrations: [JournalSchema.embeddedMigrations[0]])
        try database.execute("""
            INSERT INTO sessions (id, label, process, pid, host, started_at, start_ns, library_version)
                VALUES (1, 'old', 'app', 7, 'host', '2026-01-01T00:00:00Z', 0, '0.1.0');
            INSERT INTO strings (id, value) VALUES (1, 'Player'), (2, 'rate'), (3, 'Screen'), (4, 'Screen.swift'), (5, 'f()');
            INSERT INTO call_sites (id, file_id, line, function_id) VALUES (1, 4, 5, 5);
            INSERT INTO objects (session_id, id, type_id, first_seq) VALUES (1, 1, 1, 1), (1, 2, 3, 1);
            INSERT INTO channels (session_id, id, subject_id, key_id, policy, first_seq) VALUES (1, 1, 1, 2, 'multicast', 1);
            INSERT INTO registrations (session_id, id, channel_id, owner_id, call_site_id, options, expects_main, registered_seq)
                VALUES (1, 1, 1, 2, 1, 'new', 0, 1);
            INSERT INTO events (session_id, seq, time_ns, kind, thread, is_main, channel_id, registration_id, owner_id)
                VALUES (1, 1, 10, 'registered', 1, 1, 1, 1, 2);
            INSERT INTO events (session_id, seq, time_ns, kind, thread, is_main, channel_id, live_count, old_value, new_value, depth, is_prior)
                VALUES (1, 2, 20, 'changed', 1, 1, 1, 1, '1', '2', 3, 1);
            INSERT INTO events (session_id, seq, time_ns, kind, thread, is_main, channel_id, registration_id, owner_id, duration_ns)
                VALUES (1, 3, 30, 'delivered', 2, 0, 1, 1, 2, 1500);
            INSERT INTO events (session_id, seq, time_ns, kind, thread, is_main, reason, detail)
                VALUES (1, 4, 40, 'gap', 1, 0, 'bufferFull', 'dropped=3');
            """)
        let upgraded = try JournalMigrator.migrate(database)
        #expect(upgraded.from == 1 && upgraded.to == JournalSchema.latestVersion)
        let log = try database.prepare("""
            SELECT seq || '|' || kind || '|' || COALESCE(channel, '') || '|' || COALESCE(owner, '') || '|' || is_main || '|'
                || depth || '|' || is_prior || '|' || COALESCE(duration_ns, '') || '|' || COALESCE(main_queue, 'NULL')
                || '|' || COALESCE(cpu_ns, 'NULL') || '|' || COALESCE(waits, 'NULL') || '|' || COALESCE(detail, 'NULL')
            FROM event_log ORDER BY seq
            """)
        var rows: [String] = []
        while try log.step() { rows.append(log.text(0)) }
        #expect(rows == [
            "1|registered|Player#1.rate|Screen#2|1|0|0||NULL|NULL|NULL|NULL",
            "2|changed|Player#1.rate||1|3|1||NULL|NULL|NULL|NULL",
            "3|delivered|Player#1.rate|Screen#2|0|0|0|1500|NULL|NULL|NULL|NULL",
            "4|gap|||0|0|0||NULL|NULL|NULL|dropped=3",
        ])
        #expect(try database.scalarInt("SELECT events FROM session_summary WHERE id = 1") == 4)
        // Still append-only, and the new columns are accepted.
        #expect(throws: SQLiteError.self) { try database.execute("UPDATE events SET time_ns = 0 WHERE seq = 1") }
        #expect(throws: SQLiteError.self) { try database.execute("DELETE FROM events WHERE seq = 1") }
        #expect(throws: SQLiteError.self) { try database.execute("DELETE FROM event_details") }
        try database.execute("""
            INSERT INTO events (session_id, seq, time_ns, kind, thread, flags, registration_id, reason, cpu_ns)
                VALUES (1, 5, 50, 10, 1, 13, 1, 'ownerDeallocated', 25)
            """)
        #expect(try database.scalarInt("SELECT main_queue FROM event_log WHERE seq = 5") == 1)
        #expect(try database.scalarInt("SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'events'") == 2)
        #expect(try database.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name LIKE '%_v7'") == 0)
        #expect(try database.scalarInt("SELECT count(*) FROM pragma_foreign_key_check") == 0)
    }

    /// A migration that fails leaves the journal at the version before it, whole.
    @Test func failingMigrationRollsBackToThePreviousVersion() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let first = JournalSchema.embeddedMigrations[0]
        let broken = Migration(version: 2, name: "broken", sql: "CREATE TABLE half (x INTEGER); CREATE TABLE strings (x);")
        let database = try SQLiteDatabase(path: path, mode: .readWriteCreate)
        try JournalMigrator.migrate(database, migrations: [first])
        #expect(throws: SQLiteError.self) { try JournalMigrator.migrate(database, migrations: [first, broken]) }
        #expect(try database.scalarInt("PRAGMA user_version") == 1)
        #expect(try database.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'half'") == 0)
        #expect(try database.scalarInt("SELECT max(version) FROM migrations") == 1)
    }
}
