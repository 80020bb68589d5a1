import JournalStore
import CSQLite
import Foundation
import ObserverCore

/// Writes one session's events, one row of `events` each, on the writer thread.
///
/// Interns strings and call sites, and inserts the rows of objects, channels, scopes and
/// registrations the first time an event names them, so each event holds only ids.
/// Keeps what it has written in memory to avoid a query per event; when a transaction
/// fails, recording stops, so that memory never disagrees with a file still written to.
/// Of objects, channels, scopes and registrations it keeps only the live ones (see
/// `SessionWriter+Interning`): memory follows the app's live state, not the session's
/// history; strings and call sites are few and kept.
///
/// Used by one thread at a time: created by `Journal.startSession`, then handed to the
/// writer thread.
final class SessionWriter: @unchecked Sendable {
    let database: SQLiteDatabase
    let sessionID: Int64
    let startNanoseconds: UInt64
    let values: ValueRecording
    /// The connection's `-wal` and `-shm`, removed if the journal is found moved.
    private var sideFiles: SideFiles?

    var strings: [String: Int64] = [:]
    var callSites: [CallSite: Int64] = [:]
    /// Objects with a row, by how many live registrations (as owner or sender) and live
    /// channels (as subject) name them; an object none names is forgotten.
    var objects: [UInt64: Int] = [:]
    /// The live channels the records name, by id: defined by the batch that first names
    /// one (`PendingEvents.channels`), its row written when an event first names it,
    /// forgotten once the channel is deallocated (after every record naming it).
    var channels: [UInt64: LiveChannel] = [:]
    /// The channel `channelID` last found written (0: none); reset when channels are
    /// forgotten.
    var lastChannel: UInt64 = 0
    /// The registration `writeDelivery` last found written (0: none); reset when it is
    /// removed.
    var lastRegistration: UInt64 = 0
    /// The live registrations the records name, by id: defined by the batch that first
    /// names one, its row written when an event first names it, forgotten when its removal
    /// (or replacement) is written. A later record naming one (a queued delivery's skip)
    /// needs only its id and its owner's, which the record carries.
    var registrations: [UInt64: LiveRegistration] = [:]
    /// Scopes with a row that have not ended; forgotten when their end is written.
    var scopes = Set<UInt64>()
    /// The seqs of the latest `changed` rows by the registry's change number, for the
    /// `change_back` of their deliveries: a ring of `recentChanges` slots, so memory stays
    /// bounded however long the session. A delivery queued behind more than that many
    /// later changes (or of a change dropped in a gap) gets NULL.
    var changeSeqs: [(number: UInt64, seq: Int64)]
    static let recentChanges = 4096

    /// Events added and not yet inserted: inserted `rowsPerInsert` at a time by one
    /// statement, and before every COMMIT, so the committed prefix is always whole.
    let staged: StagedEvents
    /// The most rows one `INSERT` takes: enough to spread the statement's fixed cost
    /// (JournalBenchmark `--only shapes`) while the staged rows stay in cache.
    static let rowsPerInsert = 256
    /// Inserts the `event_details` row of an event that has one.
    let insertDetails: SQLiteStatement
    let selectString: SQLiteStatement
    let insertString: SQLiteStatement
    let selectCallSite: SQLiteStatement
    let insertCallSite: SQLiteStatement
    let insertObject: SQLiteStatement
    let insertChannel: SQLiteStatement
    let insertScope: SQLiteStatement
    let insertRegistration: SQLiteStatement
    let markRemoved: SQLiteStatement
    let markDeallocated: SQLiteStatement
    let markScopeEnded: SQLiteStatement
    let endSession: SQLiteStatement

    /// Inserts the session's row and prepares the statements the writer reuses.
    /// - Parameters:
    ///   - database: a read-write connection to a journal of the latest schema, used
    ///     only by this writer from now on.
    ///   - label: the session's label.
    ///   - values: how change values are stored.
    ///   - run: the CI run or job the session belongs to, if known.
    init(database: SQLiteDatabase, label: String, values: ValueRecording, run: String? = nil) throws(SQLiteError) {
        self.database = database
        self.values = values
        let start = monotonicNanoseconds()
        startNanoseconds = start
        changeSeqs = Array(repeating: (0, 0), count: Self.recentChanges)
        insertDetails = try database.prepare(EventDetailColumn.insertSQL)
        // Made now: a session that cannot make it fails to start rather than at its first batch.
        staged = try StagedEvents(database: database, capacity: Self.rowsPerInsert)
        selectString = try database.cached("SELECT id FROM strings WHERE value = ?")
        insertString = try database.cached("INSERT INTO strings (value) VALUES (?)")
        selectCallSite = try database.cached(
            "SELECT id FROM call_sites WHERE file_id = ? AND line = ? AND function_id = ?")
        insertCallSite = try database.cached("INSERT INTO call_sites (file_id, line, function_id) VALUES (?, ?, ?)")
        insertObject = try database.cached("""
            INSERT INTO objects (session_id, id, type_id, first_seq) VALUES (?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """)
        insertChannel = try database.cached("""
            INSERT INTO channels (session_id, id, subject_id, key_id, policy, first_seq) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """)
        insertScope = try database.cached("""
            INSERT INTO scopes (session_id, id, name_id, began_seq) VALUES (?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """)
        insertRegistration = try database.cached("""
            INSERT INTO registrations (session_id, id, channel_id, owner_id, call_site_id, options, queue_id,
                expects_main, sender_id, scope_id, registered_seq)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """)
        markRemoved = try database.cached("""
            UPDATE registrations SET removed_seq = ?, removal_reason = ?
            WHERE session_id = ? AND id = ? AND removed_seq IS NULL
            """)
        markDeallocated = try database.cached("""
            UPDATE objects SET dealloc_seq = ? WHERE session_id = ? AND id = ? AND dealloc_seq IS NULL
            """)
        markScopeEnded = try database.cached("""
            UPDATE scopes SET ended_seq = ? WHERE session_id = ? AND id = ? AND ended_seq IS NULL
            """)
        endSession = try database.cached("UPDATE sessions SET ended_at = ?, clean_end = 1 WHERE id = ?")
        // The session's row comes last: a session that fails to start (a statement that
        // cannot be prepared: out of memory, I/O error) leaves no row behind it. Written on
        // the caller's thread (`startSession`), so busy waits one timeout, not twelve.
        sessionID = try database.writeTransaction(withinOneBusyTimeout: true) { () throws(SQLiteError) -> Int64 in
            let insert = try database.cached("""
                INSERT INTO sessions (label, process, pid, host, started_at, start_ns, library_version, run)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            let process = ProcessInfo.processInfo
            // Names, which readers show and shorten as they do keys and types.
            try insert.bind(JournalName.capped(label), at: 1)
            try insert.bind(JournalName.capped(process.processName), at: 2)
            try insert.bind(Int64(process.processIdentifier), at: 3)
            try insert.bind(JournalName.capped(process.hostName), at: 4)
            try insert.bind(JournalClock.isoNow(), at: 5)
            try insert.bind(Int64(bitPattern: start), at: 6)
            try insert.bind(Journal.libraryVersion, at: 7)
            try insert.bind(run.map(JournalName.capped), at: 8)
            try insert.run()
            return database.lastInsertRowID
        }
        // The first commit made sure the connection has its side files open.
        sideFiles = SideFiles(journal: database.path)
    }

    // MARK: - Batches

    /// Writes the buffer's batch in one transaction: a change, delivery or skip record
    /// becomes its row directly (no `ObserverEvent` built per frequent event); the rare
    /// events are written as they are. The batch's definitions are taken first; once it is
    /// committed, the channels that ended in it are forgotten.
    func write(_ batch: RecordBatch) throws(SQLiteError) {
        let pending = batch.pending
        define(pending)
        try transaction(endsSession: batch.endsSession) { () throws(SQLiteError) in
            var seq = batch.firstSeq
            var nextChange = 0
            var nextEvent = 0
            // A change's details are lent to `writeChange` in place (`withChangeDetails`).
            try pending.withChangeDetails { (changes) throws(SQLiteError) in
                for record in pending.records {
                    switch record.kind {
                    case .event:
                        try write(pending.events[nextEvent], seq: seq)
                        nextEvent += 1
                    case .changed:
                        try writeChange(record, changes[nextChange], seq: seq)
                        nextChange += 1
                    case .delivered, .skipped:
                        try writeDelivery(record, seq: seq)
                    }
                    seq += 1
                }
            }
            if let gap = batch.gap { try write(gap) }
        }
        // A record may name a channel that ended later in the same batch, never one that
        // ended in an earlier one.
        forgetChannels(pending.endedChannels)
    }

    /// Runs `body`, which adds a batch's events, in one write transaction with the staged
    /// events inserted; with `endsSession`, also marks the session ended cleanly in it.
    private func transaction(endsSession: Bool, _ body: () throws(SQLiteError) -> Void) throws(SQLiteError) {
        // A failed transaction left its events staged; they were rolled back.
        staged.removeAll()
        // Writing on into a removed or replaced file would lose the batch silently (and
        // leave a -wal beside the replacement): stop with an error instead. The code is
        // SQLITE_READONLY_DBMOVED, a macro Swift does not import.
        if try database.fileHasMoved() {
            sideFiles?.removeIfUnchanged()
            throw SQLiteError(
                code: SQLITE_READONLY | (4 << 8), message: "the journal file was removed or replaced while recording"
            )
        }
        try database.writeTransaction { () throws(SQLiteError) in
            try body()
            try staged.insert()
            if endsSession {
                try endSession.bind(JournalClock.isoNow(), at: 1)
                try endSession.bind(sessionID, at: 2)
                try endSession.run()
            }
        }
    }
}
