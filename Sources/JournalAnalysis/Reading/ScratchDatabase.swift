import JournalStore

/// A private temporary SQLite database, for what a reader must keep until the end of a
/// pass and cannot hold in memory: a rule's groups (`ScratchTable`), a diagnosis's findings
/// (`FindingSpool`).
///
/// Opened with an empty name: SQLite makes an anonymous database, held in its page cache
/// (at most `cacheKiB`) and, past that, in a file of the temporary directory that SQLite
/// deletes as soon as it has opened it, so nothing is left there, even after a crash or a
/// kill. Its rollback journal is in memory (a failed write is undone, not half done); it
/// is never synced: its data lives and dies with the connection. Opened only once
/// something must be spilled: most sessions never need one.
enum ScratchDatabase {
    /// The page cache of a scratch database: what it holds in memory before it writes
    /// pages to its file.
    static let cacheKiB = 32

    /// A new scratch database with `schema` created.
    /// - Parameters:
    ///   - schema: the tables to create.
    ///   - cacheKiB: its page cache (tests pass a small one, so that pages reach the file).
    ///   - faults: failures to inject into its calls (tests; debug builds only).
    static func open(
        schema: String, cacheKiB: Int = ScratchDatabase.cacheKiB, faults: SQLiteFaultPlan? = nil
    ) throws(SQLiteError) -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: "", mode: .readWriteCreate, faults: faults)
        // temp_store = FILE: the anonymous database itself, and the sorter's runs, go to
        // files past the cache (MEMORY would keep them all in memory). Small pages: an
        // ORDER BY's sorter holds up to 250 pages in memory before it writes a run out,
        // whatever the cache.
        try database.execute("""
            PRAGMA page_size = 1024;
            PRAGMA temp_store = FILE;
            PRAGMA journal_mode = MEMORY;
            PRAGMA synchronous = OFF;
            PRAGMA cache_size = -\(max(cacheKiB, 1));
            \(schema)
            """)
        return database
    }

    /// The error a failed call on a scratch database makes: the rule's verdicts or the
    /// findings would be incomplete.
    static func failure(_ error: SQLiteError) -> AnalysisError {
        .output(path: "temporary database", detail: "\(error.codeName): \(error.message)")
    }

    /// `database.prepare(sql)`, its failure as `failure(_:)`.
    static func prepare(_ sql: String, on database: SQLiteDatabase) throws(AnalysisError) -> SQLiteStatement {
        do throws(SQLiteError) {
            return try database.prepare(sql)
        } catch {
            throw failure(error)
        }
    }

    /// `rows.step()`, its failure as `failure(_:)`.
    static func step(_ rows: SQLiteStatement) throws(AnalysisError) -> Bool {
        do throws(SQLiteError) {
            return try rows.step()
        } catch {
            throw failure(error)
        }
    }
}
