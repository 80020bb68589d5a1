import CSQLite
import SystemShim

/// `SQLITE_TRANSIENT`, which Swift does not import (a C macro).
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One SQLite connection. Not thread-safe: use it from one thread at a time.
///
/// Every `sqlite3_*` call of the package goes through this file and `SQLiteStatement`,
/// so errors become `SQLiteError`s in one place, and debug builds can make any of them
/// fail on purpose (`SQLiteFaultPlan`). The two files are also the only ones in
/// `JournalStore` (with `StagedEvents`) that hold SQLite's pointers and C callbacks
/// (this one: the connection, its progress handler, `GuardedFileOpen`'s system-call
/// hook); everything else uses their safe API.
package final class SQLiteDatabase {
    /// How to open the file.
    package enum Mode: Sendable {
        /// Read-only through a `file:…?mode=ro` URI, which still sees what a crashed
        /// writer left in the `-wal` file (unlike `immutable=1`).
        case readOnly
        /// Read-only through `file:…?immutable=1`: no locks, no `-shm`, and the `-wal`
        /// file is ignored. Only for a journal with no `-wal` file whose side files the
        /// reader could not remove after `readOnly` (`ReaderSideFiles.plan`), or could not
        /// create at all (a directory it cannot write).
        case readOnlyImmutable
        /// Read and write an existing file.
        case readWrite
        /// Read and write, creating the file if it does not exist.
        case readWriteCreate
    }

    let handle: OpaquePointer
    package let path: String
    /// Failures to inject into this connection's calls (debug builds only).
    let faults: SQLiteFaultPlan?
    /// How long one call waits for another connection's lock.
    package let busyTimeoutMilliseconds: Int32
    /// Statements compiled once and reused, by SQL text.
    private var cache: [String: SQLiteStatement] = [:]
    /// The work budget of each statement, on connections that read untrusted files
    /// (`hardenForUntrustedFile`); `nil` means unbounded.
    var stepBudget: StepBudget?
    /// The main file, as counted in `OpenDatabaseFiles` while this connection is open.
    private let identity: OpenDatabaseFiles.Identity?
    /// What runs once the connection has closed (a reader's `ReaderSideFiles` removal).
    var afterClose: (() -> Void)?

    /// Opens `path`. Does not validate that it is a journal: see `JournalFile`.
    /// - Parameters:
    ///   - path: the database file.
    ///   - mode: read-only, read-write, or read-write creating the file.
    ///   - busyTimeoutMilliseconds: how long a call waits for another connection's lock
    ///     before failing with `SQLITE_BUSY`.
    ///   - faults: failures to inject into this connection's calls (debug builds only).
    package init(
        path: String, mode: Mode, busyTimeoutMilliseconds: Int32 = 5_000, faults: SQLiteFaultPlan? = nil
    ) throws(SQLiteError) {
        #if DEBUG
        if let code = faults?.failure(at: .open, sql: nil) {
            throw SQLiteFaultPlan.error(code: code, sql: nil)
        }
        #endif
        var flags = SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
        var target = Self.uri(path)
        switch mode {
        case .readOnly:
            flags |= SQLITE_OPEN_READONLY
            target += "?mode=ro"
        case .readOnlyImmutable:
            flags |= SQLITE_OPEN_READONLY
            target += "?immutable=1"
        case .readWrite:
            flags |= SQLITE_OPEN_READWRITE
        case .readWriteCreate:
            flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        // Every file SQLite opens for this connection is checked as it is opened, not only
        // before (GuardedFileOpen): its calls run `guarding`.
        _ = GuardedFileOpen.installed
        var db: OpaquePointer?
        let rc = GuardedFileOpen.guarding { sqlite3_open_v2(target, &db, flags, nil) }
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: message)
        }
        self.handle = db
        self.path = path
        self.faults = faults
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        identity = OpenDatabaseFiles.Identity(path: path)
        if let identity { OpenDatabaseFiles.shared.opened(identity) }
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
    }

    deinit {
        // Cached statements must be finalized before the connection can really close.
        cache.removeAll()
        GuardedFileOpen.guarding { _ = sqlite3_close_v2(handle) }
        if let identity { OpenDatabaseFiles.shared.closed(identity) }
        afterClose?()
    }

    /// The `file:` URI SQLite opens `path` by. An absolute path gets an empty authority
    /// (`file://` + path): written `file:` + path, one starting with `//` would have its
    /// first component read as the URI's authority ("invalid uri authority").
    static func uri(_ path: String) -> String {
        (path.hasPrefix("/") ? "file://" : "file:") + uriEscaped(path)
    }

    /// Percent-escapes what a URI path may not hold literally: `%`, `?`, `#`, controls
    /// and every byte of a character beyond ASCII (SQLite decodes `%XX` back into that
    /// very byte, so the path SQLite opens has the bytes of `path`).
    static func uriEscaped(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0..<0x20, 0x7F...:
                let hex = String(byte, radix: 16, uppercase: true)
                out += (hex.count == 1 ? "%0" : "%") + hex
            default:
                out.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return out
    }

    /// The error for the result code `rc` of the last call on this connection.
    func error(_ rc: Int32, sql: String? = nil) -> SQLiteError {
        SQLiteError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
            .withCode(rc)
    }

    /// Runs one or more statements that return no rows we need.
    package func execute(_ sql: String) throws(SQLiteError) {
        #if DEBUG
        if let code = faults?.failure(at: .exec, sql: sql) { throw SQLiteFaultPlan.error(code: code, sql: sql) }
        #endif
        var message: UnsafeMutablePointer<CChar>?
        stepBudget?.spent = 0
        let rc = GuardedFileOpen.guarding { sqlite3_exec(handle, sql, nil, nil, &message) }
        guard rc == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: text, sql: sql)
        }
    }

    /// Compiles one statement.
    package func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try compile(sql, cached: false)
    }

    /// The statement for `sql`, compiled on first use and reused afterwards; reset and
    /// with its bindings cleared. Valid while this connection lives.
    package func cached(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let statement = cache[sql] {
            statement.reset()
            return statement
        }
        let statement = try compile(sql, cached: true)
        cache[sql] = statement
        return statement
    }

    private func compile(_ sql: String, cached: Bool) throws(SQLiteError) -> SQLiteStatement {
        #if DEBUG
        if let code = faults?.failure(at: .prepare, sql: sql) { throw SQLiteFaultPlan.error(code: code, sql: sql) }
        #endif
        var statement: OpaquePointer?
        let rc = GuardedFileOpen.guarding { sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) }
        guard rc == SQLITE_OK, let statement else { throw error(rc, sql: sql) }
        // A cached statement lives in this connection's cache: it must not keep the
        // connection alive too, or neither would ever be freed.
        return SQLiteStatement(database: self, handle: statement, sql: sql, keepsDatabaseAlive: !cached)
    }

    // MARK: - Transactions

    /// Runs `body` in a write transaction begun with `BEGIN IMMEDIATE`, so the write lock
    /// is taken (waiting up to the busy timeout) before anything is read, and a busy
    /// database makes the transaction wait instead of failing halfway. Commits if `body`
    /// returns, rolls back if it throws or the commit fails.
    /// - Parameter withinOneBusyTimeout: give up on a busy database once one busy timeout
    ///   has passed in all (a caller's thread, which must not wait longer than the option
    ///   says), instead of after `busyRetries` more timeouts (the writer's own thread).
    package func writeTransaction<Result>(
        withinOneBusyTimeout: Bool = false, _ body: () throws(SQLiteError) -> Result
    ) throws(SQLiteError) -> Result {
        try beginImmediate(withinOneBusyTimeout: withinOneBusyTimeout)
        do {
            let result = try body()
            try cached("COMMIT").run()
            return result
        } catch {
            rollback()
            throw error
        }
    }

    /// How many more busy timeouts `BEGIN IMMEDIATE` waits before a transaction fails with
    /// `SQLITE_BUSY`: another writer (another session, another process) may hold the write
    /// lock for longer than one timeout — a long batch, a slow disk — and until BEGIN
    /// succeeds nothing has been done, so trying again is safe.
    package static let busyRetries = 11

    /// `BEGIN IMMEDIATE`, tried again while the database stays busy.
    private func beginImmediate(withinOneBusyTimeout: Bool) throws(SQLiteError) {
        var retries = Self.busyRetries
        let deadline = ContinuousClock.now + .milliseconds(busyTimeoutMilliseconds)
        while true {
            do {
                try cached("BEGIN IMMEDIATE").run()
                return
            } catch where error.primaryCode == SQLITE_BUSY {
                // A busy that returned early (SQLite gives up at once on a deadlock, or an
                // injected fault) is tried again while the deadline allows.
                if withinOneBusyTimeout ? ContinuousClock.now >= deadline : retries == 0 { throw error }
                retries -= 1
            }
        }
    }

    /// Rolls back the open transaction, if any. A failure here leaves nothing to do: SQLite
    /// has then already rolled back on its own (as it does after `SQLITE_FULL`).
    package func rollback() {
        if inTransaction {
            GuardedFileOpen.guarding { _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
        }
    }

    /// Whether a transaction is open on this connection.
    package var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// The first column of the first row of `sql`, as an integer (0 if no row).
    package func scalarInt(_ sql: String) throws(SQLiteError) -> Int64 {
        let statement = try prepare(sql)
        return try statement.step() ? statement.int(0) : 0
    }

    /// Whether the file this connection opened is no longer at its path: removed, renamed,
    /// or replaced by another file. SQLite goes on writing into such a file without
    /// complaint, so a writer must ask.
    package func fileHasMoved() throws(SQLiteError) -> Bool {
        var moved: Int32 = 0
        let rc = sqlite3_file_control(handle, "main", SQLITE_FCNTL_HAS_MOVED, &moved)
        guard rc == SQLITE_OK else { throw error(rc) }
        return moved != 0
    }

    /// Makes `budget` this connection's `stepBudget` and has SQLite's progress handler
    /// charge it every `ReadLimits.stepsPerCall` steps, interrupting a statement that runs
    /// past it. The connection keeps `budget` alive for as long as the handler can run.
    func charge(_ budget: StepBudget) {
        stepBudget = budget
        sqlite3_progress_handler(handle, ReadLimits.stepsPerCall, { context in
            // SQLite's progress handler goes on on 0 and interrupts the statement
            // (`SQLITE_INTERRUPT`) on anything else.
            let proceed: Int32 = 0, interrupt: Int32 = 1
            guard let context else { return proceed }
            return Unmanaged<StepBudget>.fromOpaque(context).takeUnretainedValue().spend() ? proceed : interrupt
        }, Unmanaged.passUnretained(budget).toOpaque())
    }

    /// The rowid of the last insert on this connection.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The number of rows the last statement changed.
    package var changes: Int { Int(sqlite3_changes(handle)) }
}

extension SQLiteError {
    /// Keeps SQLite's extended code when it refines `rc`, else `rc` itself.
    func withCode(_ rc: Int32) -> SQLiteError {
        var copy = self
        if SQLiteError.primary(code) != SQLiteError.primary(rc) { copy.code = rc }
        return copy
    }
}

/// The `open` SQLite calls in this process (the unix VFS's replaceable system call),
/// checking what the journal's own connections open, so that what SQLite opens for them
/// is what was checked, and leaving every other open exactly as SQLite made it.
///
/// Readers check a journal and its side files before SQLite opens them
/// (`JournalFile.checkRegularNonEmptyFile`, `SideFileCheck`), but SQLite opens by name:
/// between the check and its `open`, a file found by a directory scan could be swapped
/// for a FIFO (the open blocks for ever), a symlink or a device. While one of this
/// package's `SQLiteDatabase` calls runs on a thread (`guarding`), every open SQLite
/// makes on that thread is made without following a final symlink (`O_NOFOLLOW`: SQLite
/// has resolved the links of a database's name itself by then) and without blocking
/// (`O_NONBLOCK`, cleared again afterwards), and the descriptor opened is checked: only a
/// regular file, a directory (SQLite syncs one after creating a file), `/dev/urandom`
/// (its randomness) or `/dev/null` is handed to SQLite; anything else is closed and the
/// open fails (`ENXIO`, which SQLite reports as `SQLITE_CANTOPEN`). `/dev/null` must stay
/// admitted: in a process started with standard input, output or error closed (a
/// SwiftPM command plugin's tool, a daemon), SQLite's first open gets descriptor 0, 1 or
/// 2, which it never uses for a database, and it fills that slot with `/dev/null` before
/// opening again; refusing it made every journal fail to open there.
///
/// The replaceable system call is shared by every unix VFS of the process, so the app's
/// own SQLite goes through it too: outside `guarding`, the call is `open(2)` with the
/// very bytes and flags SQLite passed (a path is never turned into a `String`, which
/// would change bytes that are not UTF-8).
package enum GuardedFileOpen {
    /// Whether the hook is in place: installed once, by the first connection made
    /// (`SQLiteDatabase.init`), before SQLite opens any file through this process's code.
    package static let installed: Bool = {
        guard let vfs = sqlite3_vfs_find(nil), vfs.pointee.iVersion >= 3, let set = vfs.pointee.xSetSystemCall else {
            return false
        }
        let hook: @convention(c) (UnsafePointer<CChar>?, Int32, Int32) -> Int32 = { path, flags, mode in
            GuardedFileOpen.isGuarding ? GuardedFileOpen.openChecked(path, flags, mode) : GuardedFileOpen.openAsAsked(path, flags, mode)
        }
        return set(vfs, "open", unsafeBitCast(hook, to: sqlite3_syscall_ptr.self)) == SQLITE_OK
    }()

    /// The thread-specific mark of a `guarding` call in progress (non-nil while one runs).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key left for GuardedFileOpen")
        return key
    }()

    /// Whether a `guarding` call runs on this thread.
    package static var isGuarding: Bool { pthread_getspecific(key) != nil }

    /// Runs `body` (one of this package's calls into SQLite) with every open SQLite makes
    /// on this thread checked.
    ///
    /// Inside another `guarding` call, `body` runs as it is: a reader guards a whole
    /// pass, so that the steps within it do not each set and clear the mark.
    @inline(__always)
    package static func guarding<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        if pthread_getspecific(key) != nil { return try body() }
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
        defer { pthread_setspecific(key, nil) }
        return try body()
    }

    /// `open(2)` exactly as SQLite asked for it: the app's own databases.
    package static func openAsAsked(_ path: UnsafePointer<CChar>?, _ flags: Int32, _ mode: Int32) -> Int32 {
        guard let path else {
            errno = EINVAL
            return -1
        }
        return open(path, flags, mode_t(mode))
    }

    /// `open(2)` as SQLite calls it for a journal's connection, refusing what SQLite must
    /// never read or write. The path is passed on as the bytes SQLite gave.
    package static func openChecked(_ path: UnsafePointer<CChar>?, _ flags: Int32, _ mode: Int32) -> Int32 {
        guard let path else {
            errno = EINVAL
            return -1
        }
        let descriptor = open(path, flags | O_NOFOLLOW | O_NONBLOCK, mode_t(mode))
        guard descriptor >= 0 else { return -1 }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let failure = errno
            close(descriptor)
            errno = failure
            return -1
        }
        let type = status.st_mode & S_IFMT
        let admittedDevice = type == S_IFCHR && (strcmp(path, "/dev/urandom") == 0 || strcmp(path, "/dev/null") == 0)
        guard type == S_IFREG || type == S_IFDIR || admittedDevice else {
            close(descriptor)
            errno = ENXIO
            return -1
        }
        if flags & O_NONBLOCK == 0 {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        }
        return descriptor
    }
}
