import CSQLite

/// SQLite's advice for database files from elsewhere ("defense against the dark arts"),
/// applied to every connection that reads a journal: a journal may come from another
/// machine, a bug report or an attacker, and reading it must neither hang, nor exhaust
/// memory, nor run code the file brings with it.
extension SQLiteDatabase {
    /// What a read connection allows: enough for the journal schema and the reader's
    /// own queries, and far less than SQLite's defaults.
    package enum ReadLimits {
        /// The longest text or blob a value may have, in bytes (SQLite's default is a
        /// billion). The writer stores at most `ValueRecording.maxLength` characters of a
        /// value (200 by default); 16 MiB leaves room for four-byte characters of a
        /// four-million-character limit. A longer value fails its query (`SQLITE_TOOBIG`)
        /// instead of being loaded.
        package static let valueBytes: Int32 = 16 << 20
        /// Limits beyond `valueBytes`, as (limit, value). Our longest statement (the
        /// `events` table's definition in the schema) is under 4 KB; the widest table or
        /// result has 22 columns; `timeline --kind` binds at most 10 kinds + 5 values.
        static let others: [(Int32, Int32)] = [
            (SQLITE_LIMIT_SQL_LENGTH, 100_000),
            (SQLITE_LIMIT_COLUMN, 100),
            (SQLITE_LIMIT_EXPR_DEPTH, 100),
            (SQLITE_LIMIT_COMPOUND_SELECT, 4),
            (SQLITE_LIMIT_VDBE_OP, 50_000),
            (SQLITE_LIMIT_FUNCTION_ARG, 8),
            (SQLITE_LIMIT_ATTACHED, 0),
            (SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 100),
            (SQLITE_LIMIT_VARIABLE_NUMBER, 100),
            (SQLITE_LIMIT_TRIGGER_DEPTH, 1),
            (SQLITE_LIMIT_WORKER_THREADS, 0),
        ]
        /// The work one statement may do before it is stopped, in SQLite virtual-machine
        /// steps: `floorSteps`, plus `stepsPerPage` for every page of the file. The
        /// schema is verified before any query, and our queries read each row a bounded
        /// number of times, so their work follows the file's size: the costliest measured
        /// about 3,300 steps per page (`stats` on 100,000 events, `sessions` on 200,000
        /// sessions), thirty times less than the budget.
        package static let floorSteps: Int64 = 100_000_000
        package static let stepsPerPage: Int64 = 100_000
        /// How often, in steps, SQLite calls the budget's handler.
        static let stepsPerCall: Int32 = 10_000
    }

    /// The connection settings for an untrusted file: the `ReadLimits`, no views, no
    /// triggers, no extensions, defensive mode, functions in the schema not trusted,
    /// cell sizes checked, no memory mapping (a damaged file cannot fault us through a
    /// mapping), and a work budget for every statement.
    ///
    /// Call right after opening, before the first statement reads the schema.
    /// - Throws: `SQLiteError` if SQLite refuses a setting (then the connection must
    ///   not be used).
    package func hardenForUntrustedFile() throws(SQLiteError) {
        limitResources()
        let flags: [(Int32, Int32, String)] = [
            (SQLITE_DBCONFIG_DEFENSIVE, 1, "defensive mode"),
            (SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, "untrusted schema"),
            (SQLITE_DBCONFIG_ENABLE_VIEW, 0, "no views"),
            (SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, "no triggers"),
            (SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, "no extension loading"),
        ]
        for (option, value, name) in flags where ojSetDatabaseFlag(handle, option, value) != value {
            throw SQLiteError(code: SQLITE_MISUSE, message: "SQLite refused the setting '\(name)'")
        }
        sqlite3_enable_load_extension(handle, 0)
        for pragma in ["PRAGMA trusted_schema = OFF", "PRAGMA cell_size_check = ON", "PRAGMA mmap_size = 0"] {
            let rc = GuardedFileOpen.guarding { sqlite3_exec(handle, pragma, nil, nil, nil) }
            guard rc == SQLITE_OK else { throw error(rc, sql: pragma) }
        }
        charge(StepBudget(limit: ReadLimits.floorSteps))
    }

    /// Sets the `ReadLimits` on this connection: on every connection that reads or
    /// upgrades a journal from elsewhere (a migration copies every value, so an unlimited
    /// one let a 300-million-character value cost 886 MiB).
    package func limitResources() {
        sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, ReadLimits.valueBytes)
        for (limit, value) in ReadLimits.others { sqlite3_limit(handle, limit, value) }
    }

    /// Whether closing the last connection copies the `-wal` into the database file
    /// (SQLite's default). Off, a connection that wrote nothing leaves both files as they
    /// were: what a refused `migrate` must do.
    package func checkpointsOnClose(_ enabled: Bool) {
        _ = ojSetDatabaseFlag(handle, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, enabled ? 0 : 1)
    }

    /// Sets the work budget of every statement to the floor plus `pages` pages' worth.
    package func setStepBudget(forPages pages: Int64) {
        let (perPages, overflow) = max(pages, 0).multipliedReportingOverflow(by: ReadLimits.stepsPerPage)
        let (total, overflow2) = perPages.addingReportingOverflow(ReadLimits.floorSteps)
        stepBudget?.limit = overflow || overflow2 ? .max : total
    }

    /// Sets the budget of every statement to exactly `steps` (tests).
    package func setStepBudget(steps: Int64) {
        stepBudget?.limit = steps
    }
}

/// The work a connection's current statement may still do, counted by SQLite's progress
/// handler in calls of `ReadLimits.stepsPerCall` steps. `SQLiteStatement.step` switches
/// it to the statement being stepped, so each statement is charged for its own work.
final class StepBudget {
    /// The most steps one statement may take.
    var limit: Int64
    /// Steps taken by the statement being stepped.
    var spent: Int64 = 0
    /// Whether the handler stopped a statement for running past `limit`.
    var exceeded = false

    init(limit: Int64) {
        self.limit = limit
    }

    /// Charges one handler call; `false` when the statement must stop.
    func spend() -> Bool {
        spent += Int64(SQLiteDatabase.ReadLimits.stepsPerCall)
        if spent > limit {
            exceeded = true
            return false
        }
        return true
    }
}
