import Foundation

/// A copy of an older journal for a reader to upgrade, made row by row: the migrations up
/// to its version applied to a new file, then every row of every table copied into it.
///
/// Copying the file page by page (SQLite's backup API) copied every page, used or not: a
/// 68 KiB sparse file whose header claims 2 GiB of pages wrote 2 GiB into the temporary
/// directory for every read command. Rows are only what the file's tables hold, and the
/// copy is stopped once their text and blobs exceed twice what the file (and its `-wal`)
/// occupies on disk plus a MiB: no journal holds more than it stores.
package enum JournalRowCopy {
    /// Copies the rows of the journal behind `source` (read-only, validated, at schema
    /// `version`) into a new file at `path`, with the schema of `version` and its
    /// `user_version` and `application_id`. CHECK constraints are not checked on the way
    /// (the upgrade checks them, and refuses a copy that breaks them).
    /// - Parameter journal: the user's file, for messages and for the size limit.
    /// - Throws: `JournalError` naming `journal`.
    package static func copy(_ source: SQLiteDatabase, version: Int, journal: String, to path: String) throws(JournalError) {
        let limit = 2 * onDisk(journal) + (1 << 20)
        var copied: Int64 = 0
        do {
            let destination = try SQLiteDatabase(path: path, mode: .readWriteCreate)
            destination.limitResources()
            try destination.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA ignore_check_constraints = 1")
            try destination.execute("BEGIN")
            for migration in JournalSchema.embeddedMigrations where migration.version <= version {
                try destination.execute(migration.sql)
            }
            // One read transaction: every table as of one moment.
            try source.execute("BEGIN")
            defer { source.rollback() }
            var tables: [String] = []
            let listed = try destination.prepare(
                "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
            )
            while try listed.step() { tables.append(listed.text(0)) }
            for table in tables {
                let rows = try source.prepare("SELECT * FROM \"\(table)\"")
                let count = rows.columnCount
                let placeholders = (1...max(count, 1)).map { "?\($0)" }.joined(separator: ", ")
                let insert = try destination.prepare("INSERT INTO \"\(table)\" VALUES (\(placeholders))")
                while try rows.step() {
                    for column in 0..<count {
                        copied += Int64(rows.byteCount(column)) + 1
                        try insert.bind(columnOf: rows, column, at: column + 1)
                    }
                    guard copied <= limit else {
                        throw JournalError.refused(path: journal, reason: """
                            refused: its tables hold more than \(limit) bytes, far more than the \(onDisk(journal)) bytes \
                            it occupies on disk (a damaged or hostile journal)
                            """)
                    }
                    try insert.run()
                }
            }
            try destination.execute("PRAGMA user_version = \(version)")
            try destination.execute("PRAGMA application_id = \(JournalSchema.applicationID)")
            try destination.execute("COMMIT")
        } catch let error as JournalError {
            throw error
        } catch let error as SQLiteError {
            throw JournalFile.classify(error, path: journal)
        } catch {
            throw .sqlite(path: journal, detail: "\(error)")
        }
    }

    /// The bytes the journal and its `-wal` occupy on disk (allocated blocks: a sparse
    /// file's holes take none).
    static func onDisk(_ journal: String) -> Int64 {
        var total: Int64 = 0
        for suffix in ["", "-wal"] {
            var status = stat()
            if stat(journal + suffix, &status) == 0 {
                total += min(Int64(status.st_blocks) * 512, Int64(status.st_size))
            }
        }
        return total
    }
}
