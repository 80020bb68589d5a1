import JournalStore
import CSQLite
import Foundation
import ObserverCore

/// Writes one session's events as rows, on the writer thread.
///
/// Interns strings and call sites, and inserts the rows of objects, channels, scopes and
/// registrations the first time an event names them, so each event row holds only ids.
/// Keeps what it has written in memory to avoid a query per event; when a transaction
/// fails, recording stops, so that memory never disagrees with a file still written to.
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

    private var strings: [String: Int64] = [:]
    private var callSites: [CallSite: Int64] = [:]
    private var objects = Set<UInt64>()
    private var channels = Set<UInt64>()
    private var registrations = Set<UInt64>()
    private var scopes = Set<UInt64>()
    /// The seqs of the latest `changed` rows by the registry's change number, for the
    /// `change_seq` of their deliveries: a ring of `recentChanges` slots, so memory stays
    /// bounded however long the session. A delivery queued behind more than that many
    /// later changes (or of a change dropped in a gap) gets NULL, as schema 1–3 rows have.
    private var changeSeqs: [(number: UInt64, seq: Int64)]
    static let recentChanges = 4096

    /// Inserts one event row (the tail of a batch).
    private let insertEvent: SQLiteStatement
    /// Inserts `rowsPerInsert` event rows at once: SQLite's per-execution work is then
    /// paid once per that many rows.
    private let insertEvents: SQLiteStatement
    /// Event rows waiting for `insertEvents`.
    private var rows: [Row] = []
    static let rowsPerInsert = 32
    private let selectString: SQLiteStatement
    private let insertString: SQLiteStatement
    private let selectCallSite: SQLiteStatement
    private let insertCallSite: SQLiteStatement
    private let insertObject: SQLiteStatement
    private let insertChannel: SQLiteStatement
    private let insertScope: SQLiteStatement
    private let insertRegistration: SQLiteStatement
    private let markRemoved: SQLiteStatement
    private let markDeallocated: SQLiteStatement
    private let markScopeEnded: SQLiteStatement
    private let endSession: SQLiteStatement

    /// Inserts the session's row and prepares the statements the writer reuses.
    /// - Parameters:
    ///   - database: a read-write connection to a journal of the latest schema, used
    ///     only by this writer from now on.
    ///   - label: the session's label.
    ///   - values: how change values are stored.
    init(database: SQLiteDatabase, label: String, values: ValueRecording) throws(SQLiteError) {
        self.database = database
        self.values = values
        changeSeqs = Array(repeating: (0, 0), count: Self.recentChanges)
        let start = JournalClock.monotonicNanoseconds()
        startNanoseconds = start
        insertEvent = try database.cached(EventColumn.insertSQL(rows: 1))
        insertEvents = try database.cached(EventColumn.insertSQL(rows: Self.rowsPerInsert))
        rows.reserveCapacity(Self.rowsPerInsert)
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
                INSERT INTO sessions (label, process, pid, host, started_at, start_ns, library_version)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            let process = ProcessInfo.processInfo
            try insert.bind(label, at: 1)
            try insert.bind(process.processName, at: 2)
            try insert.bind(Int64(process.processIdentifier), at: 3)
            try insert.bind(process.hostName, at: 4)
            try insert.bind(JournalClock.isoNow(), at: 5)
            try insert.bind(Int64(bitPattern: start), at: 6)
            try insert.bind(Journal.libraryVersion, at: 7)
            try insert.run()
            return database.lastInsertRowID
        }
        // The first commit made sure the connection has its side files open.
        sideFiles = SideFiles(journal: database.path)
    }

    // MARK: - Batches

    /// Writes a batch in one transaction; with `endsSession`, also marks the session ended
    /// cleanly in it.
    func write(_ batch: EventBatch) throws(SQLiteError) {
        rows.removeAll(keepingCapacity: true)
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
            var seq = batch.firstSeq
            for event in batch.events {
                try write(event, seq: seq)
                seq += 1
            }
            if let gap = batch.gap { try write(gap) }
            for row in rows { try insert([row], with: insertEvent) }
            rows.removeAll(keepingCapacity: true)
            if batch.endsSession {
                try endSession.bind(JournalClock.isoNow(), at: 1)
                try endSession.bind(sessionID, at: 2)
                try endSession.run()
            }
        }
    }

    // MARK: - Events

    /// The columns of one event row.
    private struct Row {
        var seq: Int64
        var time: UInt64
        var kind: JournalEventKind
        var thread: UInt64
        var isMain: Bool
        /// `nil` for a gap row: no event, so no queue to speak of.
        var isMainQueue: Bool?
        var depth: Int
        var isPrior: Bool
        var channel: Int64?
        var registration: Int64?
        var owner: Int64?
        var otherRegistration: Int64?
        var callSite: Int64?
        var scope: Int64?
        var liveCount: Int64?
        var duration: Int64?
        var cpu: Int64?
        var waits: Int64?
        var changeSeq: Int64?
        var old: String?
        var new: String?
        /// The name of a removal, skip or gap reason.
        var reason: String?
        var detail: String?
    }

    private func write(_ event: ObserverEvent, seq: Int64) throws(SQLiteError) {
        var row = Row(
            seq: seq, time: event.time, kind: Self.journal(event.kind), thread: event.thread,
            isMain: event.isMainThread, isMainQueue: event.isMainQueue, depth: event.depth, isPrior: event.isPrior
        )
        if let channel = event.channel {
            if channel.id == 0 {
                // A removal named a channel that does not exist (a misspelled key): there
                // is no channel row to point at, so the event names it as text.
                try note(channel.subject, seq: seq)
                row.detail = channel.description
            } else {
                try note(channel, seq: seq)
                row.channel = Int64(channel.id)
            }
        }
        if let registration = event.registration {
            try note(registration, seq: seq)
            row.registration = Int64(registration.id)
            row.owner = Int64(registration.owner.id)
        }
        if let owner = event.owner {
            try note(owner, seq: seq)
            row.owner = Int64(owner.id)
        }
        if let callSite = event.callSite { row.callSite = try id(of: callSite) }
        // A registration's call site is on its row; the event names it too, so that
        // `event_log.call_site` says where every registration was made.
        if row.callSite == nil, event.kind == .registered || event.kind == .replaced, let registration = event.registration {
            row.callSite = try id(of: registration.callSite)
        }
        switch event.kind {
        case .registered:
            break
        case .replaced:
            if let replaced = event.replaced {
                try note(replaced, seq: seq)
                row.otherRegistration = Int64(replaced.id)
                try remove(replaced.id, reason: .replaced, seq: seq)
            }
        case .removed:
            if let registration = event.registration, let reason = event.removalReason {
                let removal = Self.journal(reason)
                row.reason = removal.name
                try remove(registration.id, reason: removal, seq: seq)
                switch reason {
                case .ownerDeallocated: try deallocated(registration.owner.id, seq: seq)
                case .subjectDeallocated: if let subject = event.channel?.subject { try deallocated(subject.id, seq: seq) }
                default: break
                }
            }
        case .removeUnregistered:
            break
        case .changed:
            if let number = event.changeNumber { changeSeqs[Int(number % UInt64(Self.recentChanges))] = (number, seq) }
            row.liveCount = Int64(event.liveCount)
            let key = event.channel?.key
            row.old = values.text(for: event.old, key: key)
            row.new = values.text(for: event.new, key: key)
        case .delivered:
            row.duration = event.duration.map { Int64(clamping: $0) }
            row.cpu = event.cpuDuration.map { Int64(clamping: $0) }
            row.waits = event.waits.map { Int64(clamping: $0) }
            row.new = values.text(for: event.new, key: event.channel?.key)
            row.changeSeq = changeSeq(of: event.changeNumber)
        case .skipped:
            row.reason = event.skipReason.map { Self.journal($0).name }
            row.changeSeq = changeSeq(of: event.changeNumber)
        case .cancelAfterAutoRemoval:
            row.reason = event.removalReason.map { Self.journal($0).name }
        case .ownerGone:
            if let registration = event.registration { try deallocated(registration.owner.id, seq: seq) }
        case .scopeBegan:
            if let scope = event.scope { try note(scope, beganAt: seq) }
        case .scopeEnded:
            if let scope = event.scope {
                try note(scope, beganAt: nil)
                try markScopeEnded.bind(seq, at: 1)
                try markScopeEnded.bind(sessionID, at: 2)
                try markScopeEnded.bind(Int64(scope.id), at: 3)
                try markScopeEnded.run()
            }
        }
        if let scope = event.scope { row.scope = Int64(scope.id) }
        try add(row)
    }

    private func write(_ gap: GapRecord) throws(SQLiteError) {
        var row = Row(seq: gap.seq, time: gap.time, kind: .gap, thread: gap.thread, isMain: gap.isMainThread, depth: 0, isPrior: false)
        row.reason = JournalGapReason.bufferFull.name
        row.detail = "dropped=\(gap.dropped)"
        try add(row)
    }

    /// The seq of the `changed` row of change `number`, if it is still remembered.
    private func changeSeq(of number: UInt64?) -> Int64? {
        guard let number else { return nil }
        let slot = changeSeqs[Int(number % UInt64(Self.recentChanges))]
        return slot.number == number && slot.seq > 0 ? slot.seq : nil
    }

    /// Queues an event row, inserting a full group of `rowsPerInsert`.
    private func add(_ row: Row) throws(SQLiteError) {
        rows.append(row)
        if rows.count == Self.rowsPerInsert {
            try insert(rows, with: insertEvents)
            rows.removeAll(keepingCapacity: true)
        }
    }

    /// Binds `rows` to a statement made by `EventColumn.insertSQL(rows: rows.count)` and runs it.
    private func insert(_ rows: [Row], with statement: SQLiteStatement) throws(SQLiteError) {
        var base: Int32 = 1
        for row in rows {
            func at(_ column: EventColumn) -> Int32 { base + column.rawValue }
            try statement.bind(sessionID, at: at(.sessionID))
            try statement.bind(row.seq, at: at(.seq))
            try statement.bind(Int64(bitPattern: row.time &- startNanoseconds), at: at(.timeNs))
            try statement.bind(row.kind.code, at: at(.kind))
            try statement.bind(Int64(bitPattern: row.thread), at: at(.thread))
            try statement.bind(row.isMain, at: at(.isMain))
            try statement.bind(row.channel, at: at(.channelID))
            try statement.bind(row.registration, at: at(.registrationID))
            try statement.bind(row.owner, at: at(.ownerID))
            try statement.bind(row.otherRegistration, at: at(.otherRegistrationID))
            try statement.bind(row.callSite, at: at(.callSiteID))
            try statement.bind(row.scope, at: at(.scopeID))
            try statement.bind(Int64(row.depth), at: at(.depth))
            try statement.bind(row.liveCount, at: at(.liveCount))
            try statement.bind(row.duration, at: at(.durationNs))
            try statement.bind(row.isPrior, at: at(.isPrior))
            try statement.bind(row.old, at: at(.oldValue))
            try statement.bind(row.new, at: at(.newValue))
            try statement.bind(row.reason, at: at(.reason))
            try statement.bind(row.detail, at: at(.detail))
            try statement.bind(row.isMainQueue.map { $0 ? Int64(1) : Int64(0) }, at: at(.mainQueue))
            try statement.bind(row.cpu, at: at(.cpuNs))
            try statement.bind(row.waits, at: at(.waits))
            try statement.bind(row.changeSeq, at: at(.changeSeq))
            base += EventColumn.count
        }
        try statement.run()
    }

    // MARK: - First sight of objects, channels, scopes, registrations

    private func note(_ object: ObjectRef, seq: Int64) throws(SQLiteError) {
        guard object.id != 0, objects.insert(object.id).inserted else { return }
        try insertObject.bind(sessionID, at: 1)
        try insertObject.bind(Int64(object.id), at: 2)
        try insertObject.bind(try intern(object.typeName), at: 3)
        try insertObject.bind(seq, at: 4)
        try insertObject.run()
    }

    private func note(_ channel: ChannelInfo, seq: Int64) throws(SQLiteError) {
        guard channels.insert(channel.id).inserted else { return }
        try note(channel.subject, seq: seq)
        try insertChannel.bind(sessionID, at: 1)
        try insertChannel.bind(Int64(channel.id), at: 2)
        try insertChannel.bind(Int64(channel.subject.id), at: 3)
        try insertChannel.bind(try intern(channel.key), at: 4)
        try insertChannel.bind(Self.journal(channel.policy).name, at: 5)
        try insertChannel.bind(seq, at: 6)
        try insertChannel.run()
    }

    private func note(_ scope: ScopeInfo, beganAt seq: Int64?) throws(SQLiteError) {
        guard scopes.insert(scope.id).inserted else { return }
        try insertScope.bind(sessionID, at: 1)
        try insertScope.bind(Int64(scope.id), at: 2)
        try insertScope.bind(try intern(scope.name), at: 3)
        try insertScope.bind(seq, at: 4)
        try insertScope.run()
    }

    private func note(_ registration: RegistrationInfo, seq: Int64) throws(SQLiteError) {
        guard registrations.insert(registration.id).inserted else { return }
        try note(registration.owner, seq: seq)
        if let sender = registration.sender { try note(sender, seq: seq) }
        if let scope = registration.scope { try note(scope, beganAt: nil) }
        let statement = insertRegistration
        try statement.bind(sessionID, at: 1)
        try statement.bind(Int64(registration.id), at: 2)
        try statement.bind(Int64(registration.channelID), at: 3)
        try statement.bind(Int64(registration.owner.id), at: 4)
        try statement.bind(try id(of: registration.callSite), at: 5)
        try statement.bind(registration.options.description, at: 6)
        try statement.bind(try registration.queueLabel.map { (label) throws(SQLiteError) in try intern(label) }, at: 7)
        try statement.bind(registration.expectsMainThread, at: 8)
        try statement.bind(registration.sender.map { Int64($0.id) }, at: 9)
        try statement.bind(registration.scope.map { Int64($0.id) }, at: 10)
        try statement.bind(seq, at: 11)
        try statement.run()
    }

    private func remove(_ registration: UInt64, reason: JournalRemovalReason, seq: Int64) throws(SQLiteError) {
        try markRemoved.bind(seq, at: 1)
        try markRemoved.bind(reason.name, at: 2)
        try markRemoved.bind(sessionID, at: 3)
        try markRemoved.bind(Int64(registration), at: 4)
        try markRemoved.run()
    }

    private func deallocated(_ object: UInt64, seq: Int64) throws(SQLiteError) {
        try markDeallocated.bind(seq, at: 1)
        try markDeallocated.bind(sessionID, at: 2)
        try markDeallocated.bind(Int64(object), at: 3)
        try markDeallocated.run()
    }

    // MARK: - Interning

    /// The id of `text` in `strings`, inserting it the first time.
    private func intern(_ text: String) throws(SQLiteError) -> Int64 {
        if let id = strings[text] { return id }
        try selectString.bind(text, at: 1)
        let found = try selectString.step() ? selectString.int(0) : nil
        selectString.reset()
        let id: Int64
        if let found {
            id = found
        } else {
            try insertString.bind(text, at: 1)
            try insertString.run()
            id = database.lastInsertRowID
        }
        strings[text] = id
        return id
    }

    /// The id of `callSite` in `call_sites`, inserting it the first time.
    private func id(of callSite: CallSite) throws(SQLiteError) -> Int64 {
        if let id = callSites[callSite] { return id }
        let file = try intern(callSite.file)
        let function = try intern(callSite.function)
        try selectCallSite.bind(file, at: 1)
        try selectCallSite.bind(Int64(callSite.line), at: 2)
        try selectCallSite.bind(function, at: 3)
        let found = try selectCallSite.step() ? selectCallSite.int(0) : nil
        selectCallSite.reset()
        let id: Int64
        if let found {
            id = found
        } else {
            try insertCallSite.bind(file, at: 1)
            try insertCallSite.bind(Int64(callSite.line), at: 2)
            try insertCallSite.bind(function, at: 3)
            try insertCallSite.run()
            id = database.lastInsertRowID
        }
        callSites[callSite] = id
        return id
    }

    // MARK: - The registry's enumerations in the journal's vocabulary

    static func journal(_ kind: ObserverEvent.Kind) -> JournalEventKind {
        switch kind {
        case .registered: return .registered
        case .replaced: return .replaced
        case .removed: return .removed
        case .removeUnregistered: return .removeUnregistered
        case .changed: return .changed
        case .delivered: return .delivered
        case .skipped: return .skipped
        case .scopeBegan: return .scopeBegan
        case .scopeEnded: return .scopeEnded
        case .cancelAfterAutoRemoval: return .cancelAfterAutoRemoval
        case .ownerGone: return .ownerGone
        }
    }

    static func journal(_ reason: RemovalReason) -> JournalRemovalReason {
        switch reason {
        case .explicit: return .explicit
        case .ownerRemovedAll: return .ownerRemovedAll
        case .tokenCancelled: return .tokenCancelled
        case .tokenReleased: return .tokenReleased
        case .ownerDeallocated: return .ownerDeallocated
        case .subjectDeallocated: return .subjectDeallocated
        case .replaced: return .replaced
        case .streamEnded: return .streamEnded
        }
    }

    static func journal(_ reason: SkipReason) -> JournalSkipReason {
        switch reason {
        case .unchanged: return .unchanged
        case .senderMismatch: return .senderMismatch
        case .removedBeforeDelivery: return .removedBeforeDelivery
        }
    }

    static func journal(_ policy: DeliveryPolicy) -> JournalDeliveryPolicy {
        switch policy {
        case .multicast: return .multicast
        case .singleSlot: return .singleSlot
        }
    }
}
