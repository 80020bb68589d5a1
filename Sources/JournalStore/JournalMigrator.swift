import Foundation

/// Brings a journal's schema up to date: applies, in order, every migration newer than
/// the journal's `user_version`.
///
/// Forward-only. Each migration runs in its own `BEGIN IMMEDIATE` transaction together
/// with its row in `migrations`, the new `user_version` and the journal's
/// `application_id`, so a journal is always at exactly one version, and two writers
/// opening the same old file cannot both apply a migration.
package enum JournalMigrator {
    /// Applies the migrations the journal lacks; returns the version it had and has now.
    /// - Parameters:
    ///   - database: a read-write connection, outside any transaction.
    ///   - migrations: in increasing version order (the embedded ones unless testing).
    ///   - now: the `applied_at` text (ISO 8601 UTC).
    @discardableResult
    package static func migrate(
        _ database: SQLiteDatabase, migrations: [Migration] = JournalSchema.embeddedMigrations,
        now: () -> String = { JournalClock.isoNow() }
    ) throws(SQLiteError) -> (from: Int, to: Int) {
        var from: Int?
        for (index, migration) in migrations.enumerated() {
            let previous = index == 0 ? 0 : migrations[index - 1].version
            try database.writeTransaction { () throws(SQLiteError) in
                // Read inside the transaction: another writer may have migrated meanwhile.
                let version = Int(try database.scalarInt("PRAGMA user_version"))
                if from == nil { from = version }
                if version == previous { try apply(migration, to: database, now: now) }
            }
        }
        let version = Int(try database.scalarInt("PRAGMA user_version"))
        return (from ?? version, version)
    }

    /// Applies `migration` with its row in `migrations`, the new `user_version` and the
    /// `application_id`, inside the caller's transaction (the journal is at the version of
    /// the migration before it).
    private static func apply(
        _ migration: Migration, to database: SQLiteDatabase, now: () -> String
    ) throws(SQLiteError) {
        try database.execute(migration.sql)
        let record = try database.cached("INSERT INTO migrations (version, name, applied_at) VALUES (?, ?, ?)")
        try record.bind(migration.version, at: 1)
        try record.bind(migration.name, at: 2)
        try record.bind(now(), at: 3)
        try record.run()
        try database.execute("PRAGMA application_id = \(JournalSchema.applicationID)")
        try database.execute("PRAGMA user_version = \(migration.version)")
    }
}

extension JournalMigrator {
    /// Upgrades the journal at `path` in place to the latest schema; returns the version
    /// it had and has now (equal when there was nothing to do, and then nothing is written).
    ///
    /// The journal may come from elsewhere, so a refusal leaves every byte of it and of
    /// its side files as it was: the file is first validated read-only (a file that is not
    /// a journal, is newer, or has a changed schema is never opened for writing); then,
    /// before anything is written, `PRAGMA quick_check` on the writing connection (a
    /// read-only one ignores CHECK constraints) refuses values its own schema forbids,
    /// which a migration would otherwise drop or blank silently (a channel whose policy is
    /// no known name is left out by 0005's join); every migration runs in one
    /// transaction, so a failure part-way leaves the journal at the version it had; and
    /// the connection does not checkpoint a `-wal` into the file when it closes after a
    /// refusal.
    /// - Throws: `JournalError` naming the file and the reason, in one line.
    package static func upgrade(path: String) throws(JournalError) -> (from: Int, to: Int) {
        let version: Int
        do {
            let reader = try JournalFile.openForReading(path: path)
            version = try JournalFile.validate(reader)
        }
        guard version < JournalSchema.latestVersion else { return (version, version) }
        let database: SQLiteDatabase
        do {
            database = try SQLiteDatabase(path: path, mode: .readWrite)
        } catch {
            throw JournalFile.classify(error, path: path)
        }
        database.limitResources()
        database.checkpointsOnClose(false)
        var problems: [String] = []
        do {
            let check = try database.prepare("PRAGMA quick_check(1)")
            while try check.step() { problems.append(check.text(0)) }
        } catch {
            throw JournalFile.classify(error, path: path)
        }
        guard problems == ["ok"] else {
            let problem = problems.first.map(oneLine) ?? "no answer"
            throw .refused(path: path, reason: "refused: not migrated, it holds what its schema \(version) forbids (\(problem)); the file is unchanged")
        }
        let upgraded: (from: Int, to: Int)
        do {
            upgraded = try database.writeTransaction { () throws(SQLiteError) -> (from: Int, to: Int) in
                let from = Int(try database.scalarInt("PRAGMA user_version"))
                var current = from
                for migration in JournalSchema.embeddedMigrations where migration.version > current {
                    try apply(migration, to: database, now: { JournalClock.isoNow() })
                    current = migration.version
                }
                return (from, current)
            }
        } catch {
            throw .refused(path: path, reason: "refused: not migrated (\(error.codeName): \(oneLine(error.message))); the file is unchanged")
        }
        database.checkpointsOnClose(true)
        return upgraded
    }

    /// `text` on one line: SQLite quotes a CHECK constraint as written, newlines included.
    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
