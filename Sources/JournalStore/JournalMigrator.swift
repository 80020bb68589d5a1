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
    ///   - migrations: versions 1…n in order (the embedded ones unless testing).
    ///   - now: the `applied_at` text (ISO 8601 UTC).
    @discardableResult
    package static func migrate(
        _ database: SQLiteDatabase, migrations: [Migration] = JournalSchema.embeddedMigrations,
        now: () -> String = { JournalClock.isoNow() }
    ) throws(SQLiteError) -> (from: Int, to: Int) {
        var from: Int?
        for migration in migrations {
            let applied = try database.writeTransaction { () throws(SQLiteError) -> Bool in
                // Read inside the transaction: another writer may have migrated meanwhile.
                let version = Int(try database.scalarInt("PRAGMA user_version"))
                if from == nil { from = version }
                guard version == migration.version - 1 else { return false }
                try database.execute(migration.sql)
                let record = try database.cached("INSERT INTO migrations (version, name, applied_at) VALUES (?, ?, ?)")
                try record.bind(migration.version, at: 1)
                try record.bind(migration.name, at: 2)
                try record.bind(now(), at: 3)
                try record.run()
                try database.execute("PRAGMA application_id = \(JournalSchema.applicationID)")
                try database.execute("PRAGMA user_version = \(migration.version)")
                return true
            }
            _ = applied
        }
        let version = Int(try database.scalarInt("PRAGMA user_version"))
        return (from ?? version, version)
    }
}

extension JournalMigrator {
    /// Upgrades the journal at `path` in place to the latest schema; returns the version
    /// it had and has now (equal when there was nothing to do, and then nothing is written).
    ///
    /// The file is first validated read-only, so a file that is not a journal, or is
    /// newer, is refused without ever being opened for writing.
    /// - Throws: `JournalError` naming the file and the reason.
    package static func upgrade(path: String) throws(JournalError) -> (from: Int, to: Int) {
        let version: Int
        do {
            let reader = try JournalFile.openForReading(path: path)
            version = try JournalFile.validate(reader)
        }
        guard version < JournalSchema.latestVersion else { return (version, version) }
        do {
            let database = try SQLiteDatabase(path: path, mode: .readWrite)
            return try migrate(database)
        } catch {
            throw JournalFile.classify(error, path: path)
        }
    }
}
