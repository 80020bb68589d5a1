import CSQLite
import Foundation
@testable import ObservationJournal
import Testing

@Suite struct SchemaTests {
    /// The schema the library creates is exactly what the sqlite3 shell makes of
    /// Migrations/*.sql applied in order.
    @Test func libraryCreatesTheSchemaOfTheMigrationFiles() throws {
        let scratch = Scratch()
        let fromLibrary = scratch.path("library.sqlite")
        let fromShell = scratch.path("shell.sqlite")
        _ = try Journal.open(path: fromLibrary)

        let files = try FileManager.default.contentsOfDirectory(atPath: migrationsFolder)
            .filter { $0.hasSuffix(".sql") }.sorted()
        #expect(files.count == JournalSchema.latestVersion)
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
        #expect(embedded.map(\.version) == Array(1...files.count))
        for (migration, file) in zip(embedded, files) {
            #expect(String(format: "%04d_%@.sql", migration.version, migration.name) == file)
            #expect(migration.sql == (try String(contentsOfFile: "\(migrationsFolder)/\(file)", encoding: .utf8)))
        }
    }

    @Test func newJournalIdentifiesItselfAndRecordsItsMigrations() throws {
        let scratch = Scratch()
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
        let scratch = Scratch()
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

    /// A migration that fails leaves the journal at the version before it, whole.
    @Test func failingMigrationRollsBackToThePreviousVersion() throws {
        let scratch = Scratch()
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
