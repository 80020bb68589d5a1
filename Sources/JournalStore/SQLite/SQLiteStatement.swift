import CSQLite

/// A prepared statement: bind, step, read columns, reset and reuse.
///
/// Owned by one thread at a time, like its `SQLiteDatabase`. A statement from `prepare`
/// keeps its connection alive; one from `cached` is owned by the connection's cache and
/// must not outlive the connection.
package final class SQLiteStatement {
    unowned let database: SQLiteDatabase
    /// The strong reference of an uncached statement to its connection.
    private let keptAlive: SQLiteDatabase?
    let handle: OpaquePointer
    package let sql: String
    /// Steps this statement has taken since it started, charged against the
    /// connection's `StepBudget` (if it has one).
    private var spentSteps: Int64 = 0

    init(database: SQLiteDatabase, handle: OpaquePointer, sql: String, keepsDatabaseAlive: Bool) {
        self.database = database
        self.keptAlive = keepsDatabaseAlive ? database : nil
        self.handle = handle
        self.sql = sql
    }

    /// Checks the connection's fault plan before a call at `site` (debug builds only).
    func checkFault(_ site: SQLiteFaultPlan.Site) throws(SQLiteError) {
        #if DEBUG
        if let plan = database.faults, let code = plan.failure(at: site, sql: sql) {
            throw SQLiteFaultPlan.error(code: code, sql: sql)
        }
        #endif
    }

    deinit {
        sqlite3_finalize(handle)
    }

    // MARK: - Binding (1-based indexes, as in SQL)

    /// Binds column `column` of `row`'s current row, whatever its type, exactly.
    package func bind(columnOf row: SQLiteStatement, _ column: Int32, at index: Int32) throws(SQLiteError) {
        let rc = sqlite3_bind_value(handle, index, sqlite3_column_value(row.handle, column))
        guard rc == SQLITE_OK else { throw database.error(rc, sql: sql) }
    }

    package func bind(_ value: Int64?, at index: Int32) throws(SQLiteError) {
        try checkFault(.bind)
        let rc = value.map { sqlite3_bind_int64(handle, index, $0) } ?? sqlite3_bind_null(handle, index)
        guard rc == SQLITE_OK else { throw database.error(rc, sql: sql) }
    }

    package func bind(_ value: Int?, at index: Int32) throws(SQLiteError) {
        try bind(value.map(Int64.init), at: index)
    }

    package func bind(_ value: Double?, at index: Int32) throws(SQLiteError) {
        try checkFault(.bind)
        let rc = value.map { sqlite3_bind_double(handle, index, $0) } ?? sqlite3_bind_null(handle, index)
        guard rc == SQLITE_OK else { throw database.error(rc, sql: sql) }
    }

    /// Binds text by its UTF-8 bytes and their count, so a NUL inside it is kept rather
    /// than ending the text there (as passing it as a C string would).
    package func bind(_ value: String?, at index: Int32) throws(SQLiteError) {
        try checkFault(.bind)
        let rc: Int32
        if var value {
            rc = value.withUTF8 { bytes in
                // An empty buffer may have no address, and SQLite binds a null pointer as NULL.
                guard let start = bytes.baseAddress, !bytes.isEmpty else {
                    return sqlite3_bind_text(handle, index, "", 0, sqliteTransient)
                }
                return UnsafeRawPointer(start).withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_bind_text64(handle, index, $0, sqlite3_uint64(bytes.count), sqliteTransient, UInt8(SQLITE_UTF8))
                }
            }
        } else {
            rc = sqlite3_bind_null(handle, index)
        }
        guard rc == SQLITE_OK else { throw database.error(rc, sql: sql) }
    }

    package func bind(_ value: Bool, at index: Int32) throws(SQLiteError) {
        try bind(Int64(value ? 1 : 0), at: index)
    }

    // MARK: - Binding many rows (one statement's worth of rows, without copies)

    /// Throws the error of result code `rc` unless it is `SQLITE_OK`.
    func check(_ rc: Int32) throws(SQLiteError) {
        guard rc == SQLITE_OK else { throw database.error(rc, sql: sql) }
    }

    // MARK: - Stepping

    /// Advances to the next row: `true` if there is one, `false` when done.
    @discardableResult
    package func step() throws(SQLiteError) -> Bool {
        try checkFault(.step)
        let rc = try stepCharged()
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error(rc, sql: sql)
        }
    }

    /// Runs a statement that returns no rows to completion, then resets it (keeping the
    /// bindings, which the next use overwrites).
    package func run() throws(SQLiteError) {
        try checkFault(.step)
        var rc: Int32
        do {
            rc = try stepCharged()
            while rc == SQLITE_ROW { rc = try stepCharged() }
        } catch {
            sqlite3_reset(handle)
            throw error
        }
        sqlite3_reset(handle)
        guard rc == SQLITE_DONE else { throw database.error(rc, sql: sql) }
    }

    /// `sqlite3_step`, charging the work to this statement's budget: a statement that
    /// starts (again) starts from nothing; one that runs past the connection's budget is
    /// stopped with a message saying so.
    private func stepCharged() throws(SQLiteError) -> Int32 {
        guard let budget = database.stepBudget else { return GuardedFileOpen.guarding { sqlite3_step(handle) } }
        if sqlite3_stmt_busy(handle) == 0 { spentSteps = 0 }
        budget.spent = spentSteps
        budget.exceeded = false
        let rc = GuardedFileOpen.guarding { sqlite3_step(handle) }
        spentSteps = budget.spent
        if SQLiteError.primary(rc) == SQLITE_INTERRUPT && budget.exceeded {
            throw SQLiteError(
                code: SQLITE_INTERRUPT,
                message: "a query was stopped after \(budget.limit) steps, far more than a journal of this size needs",
                sql: sql
            )
        }
        return rc
    }

    /// Whether the statement has been stepped and not yet run to its end or reset.
    package var isBusy: Bool { sqlite3_stmt_busy(handle) != 0 }

    /// Resets for another run and clears the bindings.
    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: - Columns (0-based indexes)

    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    package func int(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// The size of a column's text or blob, in bytes.
    package func byteCount(_ column: Int32) -> Int { Int(sqlite3_column_bytes(handle, column)) }

    /// The column's integer, `nil` for NULL. Read through the column's value, one column
    /// call instead of two: the value is "unprotected" in SQLite's terms, which only asks
    /// that the connection not be used by another thread meanwhile (it never is: see
    /// `SQLiteDatabase`).
    package func optionalInt(_ column: Int32) -> Int64? {
        let value = sqlite3_column_value(handle, column)
        return sqlite3_value_type(value) == SQLITE_NULL ? nil : sqlite3_value_int64(value)
    }

    package func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    /// Text of a column; invalid UTF-8 is repaired with U+FFFD rather than trusted.
    package func text(_ column: Int32) -> String {
        Self.string(sqlite3_column_text(handle, column), count: sqlite3_column_bytes(handle, column))
    }

    /// `count` bytes of text at `bytes` (empty for none), invalid UTF-8 repaired.
    private static func string(_ bytes: UnsafePointer<UInt8>?, count: Int32) -> String {
        guard let bytes else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(count)), as: UTF8.self)
    }

    /// The column's text (repaired as `text`), `nil` for NULL; read as `optionalInt`.
    package func optionalText(_ column: Int32) -> String? {
        let value = sqlite3_column_value(handle, column)
        guard sqlite3_value_type(value) != SQLITE_NULL else { return nil }
        return Self.string(sqlite3_value_text(value), count: sqlite3_value_bytes(value))
    }

    package var columnCount: Int32 { sqlite3_column_count(handle) }
}

// MARK: - Blobs (a reader's temporary database: bytes this process wrote, read back)

extension SQLiteStatement {
    /// Binds `bytes` as a blob (copied: the array may go away before the step).
    package func bind(blob bytes: [UInt8], at index: Int32) throws(SQLiteError) {
        try checkFault(.bind)
        try check(bytes.withUnsafeBytes { bindBlob($0, at: index) })
    }

    /// Binds the bytes of `value` as a blob, for `value(ofBlob:as:)` to read back in this
    /// process (the same layout): only for a database the process made for itself.
    package func bind<Value: BitwiseCopyable>(bytesOf value: Value, at index: Int32) throws(SQLiteError) {
        try checkFault(.bind)
        try check(withUnsafeBytes(of: value) { bindBlob($0, at: index) })
    }

    /// Binds a copy of `buffer` as a blob; an empty one as an empty blob, not NULL (SQLite
    /// binds a null pointer as NULL, and an empty buffer may have no address).
    private func bindBlob(_ buffer: UnsafeRawBufferPointer, at index: Int32) -> Int32 {
        guard let start = buffer.baseAddress, !buffer.isEmpty else { return sqlite3_bind_zeroblob(handle, index, 0) }
        return sqlite3_bind_blob64(handle, index, start, sqlite3_uint64(buffer.count), sqliteTransient)
    }

    /// A blob column's bytes (empty for NULL or an empty blob).
    package func blob(_ column: Int32) -> [UInt8] {
        // sqlite3_column_blob before sqlite3_column_bytes: the count is then of the blob.
        guard let start = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(handle, column))))
    }

    /// The value whose bytes `bind(bytesOf:at:)` stored in a blob column; `nil` if the
    /// blob is not the size of one.
    package func value<Value: BitwiseCopyable>(ofBlob column: Int32, as type: Value.Type) -> Value? {
        guard let start = sqlite3_column_blob(handle, column),
              Int(sqlite3_column_bytes(handle, column)) == MemoryLayout<Value>.size
        else { return nil }
        return start.loadUnaligned(as: Value.self)
    }
}
