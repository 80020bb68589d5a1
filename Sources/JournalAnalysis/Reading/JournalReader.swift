import JournalStore

/// Read-only access to a journal: its sessions, the names a session uses, and its events
/// as a stream.
///
/// Opens the file read-only through `JournalFile`, so a journal still being recorded (or
/// left by a crash, with its `-wal`) is readable and its bytes never change; every query
/// sees it as of the moment the reader opened (`JournalFile.holdSnapshot`), whatever an
/// app records into it meanwhile. Reads the
/// latest schema only: an older journal is read through an upgraded copy in the temporary
/// directory (`JournalCopy`), removed when the reader goes. Every query binds its values.
/// Not thread-safe: use one reader per thread.
package final class JournalReader {
    package let path: String
    let database: SQLiteDatabase
    /// The journal's `user_version` (the file's, before any upgraded copy).
    package let schemaVersion: Int
    /// The upgraded copy read instead of an older journal; removed with the reader.
    private let copy: JournalCopy?
    /// The user's own file, read-only, when the reader reads an upgraded copy of it:
    /// `check` checks it as well as the copy.
    private let original: SQLiteDatabase?
    /// Registrations and objects by id, in the order a pass first asks for them.
    private var registrationLookup: ForwardLookup?
    private var objectLookup: ForwardLookup?
    /// Statements by SQL text, compiled once: whole-journal commands run the same few
    /// queries for every session, and a journal may hold hundreds of thousands.
    private var statements: [String: SQLiteStatement] = [:]
    /// The call sites, which belong to the whole journal, not to a session: read once.
    private var callSites: [Int64: JournalCatalog.CallSite]?
    /// Names read by `name(stringID:)`, shortened, by `strings.id` (`nil`: no such row).
    var names: [Int64: String?] = [:]

    /// Opens and validates the journal at `path`; an older journal, through an upgraded copy.
    package init(path: String) throws(AnalysisError) {
        self.path = path
        do {
            let file: SQLiteDatabase
            (file, schemaVersion) = try JournalFile.openValidated(path: path)
            if schemaVersion < JournalSchema.latestVersion {
                let copy = try JournalCopy(upgrading: file, version: schemaVersion, path: path)
                self.copy = copy
                database = try JournalFile.openForReading(path: copy.path)
                original = file
            } else {
                copy = nil
                original = nil
                try JournalFile.holdSnapshot(file)
                database = file
            }
        } catch {
            throw .journal(error)
        }
    }

    /// `PRAGMA integrity_check` of the user's own file when the reader reads an upgraded
    /// copy of it (`nil` otherwise): a damaged index there is rebuilt by the upgrade, so
    /// checking the copy alone would say the file is sound.
    package func integrityOfOriginal(limit: Int) throws(AnalysisError) -> [String]? {
        guard let original else { return nil }
        var messages: [String] = []
        do {
            let statement = try original.prepare("PRAGMA integrity_check(\(limit))")
            while try statement.step() { messages.append(statement.text(0)) }
        } catch {
            throw failure(error)
        }
        return messages
    }

    // MARK: - Failures

    /// Wraps an SQLite failure met while reading (a page damaged past the header shows
    /// up only when a query reaches it).
    func failure(_ error: SQLiteError) -> AnalysisError {
        .journal(JournalFile.classify(error, path: path))
    }

    func prepare(_ sql: String) throws(AnalysisError) -> SQLiteStatement {
        do { return try database.prepare(sql) } catch { throw failure(error) }
    }

    /// The statement for `sql`, reset, compiled on first use; a fresh one while the
    /// kept one is still being stepped (a query made inside another's loop).
    func reused(_ sql: String) throws(AnalysisError) -> SQLiteStatement {
        if let statement = statements[sql], !statement.isBusy {
            statement.reset()
            return statement
        }
        let statement = try prepare(sql)
        if statements[sql] == nil { statements[sql] = statement }
        return statement
    }

    func step(_ statement: SQLiteStatement) throws(AnalysisError) -> Bool {
        do { return try statement.step() } catch { throw failure(error) }
    }

    func bind(_ statement: SQLiteStatement, _ values: [SQLValue]) throws(AnalysisError) {
        do {
            for (offset, value) in values.enumerated() {
                let index = Int32(offset + 1)
                switch value {
                case let .int(number): try statement.bind(number, at: index)
                case let .text(text): try statement.bind(text, at: index)
                }
            }
        } catch {
            throw failure(error)
        }
    }

    /// A value bound to a query parameter.
    enum SQLValue {
        case int(Int64)
        case text(String)
    }

    /// Runs `sql` with `values` bound and calls `row` for every result row.
    func query(_ sql: String, _ values: [SQLValue] = [], row: (SQLiteStatement) -> Void) throws(AnalysisError) {
        let statement = try reused(sql)
        defer { statement.reset() }
        try bind(statement, values)
        while try step(statement) { row(statement) }
    }

    /// The first column of the first row of `sql`, as an integer.
    func scalar(_ sql: String, _ values: [SQLValue] = []) throws(AnalysisError) -> Int64? {
        var result: Int64?
        let statement = try reused(sql)
        defer { statement.reset() }
        try bind(statement, values)
        if try step(statement) { result = statement.optionalInt(0) }
        return result
    }

    // MARK: - Sessions

    /// Every session, oldest first.
    package func sessions() throws(AnalysisError) -> [SessionSummary] {
        var result: [SessionSummary] = []
        try query("""
            SELECT s.id, s.label, s.process, s.pid, s.host, s.started_at, s.ended_at, s.clean_end, s.library_version,
                   (SELECT COUNT(*) FROM events e WHERE e.session_id = s.id),
                   (SELECT COUNT(*) FROM registrations r WHERE r.session_id = s.id),
                   (SELECT e.seq FROM events e WHERE e.session_id = s.id ORDER BY e.seq DESC LIMIT 1),
                   (SELECT e.time_ns FROM events e WHERE e.session_id = s.id ORDER BY e.seq DESC LIMIT 1), s.run
            FROM sessions s ORDER BY s.id
            """) { row in
            result.append(SessionSummary(
                id: row.int(0), label: JournalName.capped(row.text(1)), process: JournalName.capped(row.text(2)),
                pid: row.int(3), host: JournalName.capped(row.text(4)),
                startedAt: JournalName.capped(row.text(5)), endedAt: row.optionalText(6).map(JournalName.capped),
                cleanEnd: row.int(7) != 0, libraryVersion: JournalName.capped(row.text(8)), eventCount: row.int(9),
                registrationCount: row.int(10), lastSeq: row.optionalInt(11) ?? 0, lastTimeNs: row.optionalInt(12) ?? 0,
                run: row.optionalText(13).map(JournalName.capped)
            ))
        }
        return result
    }

    /// The session with `id`, or the latest one when `id` is `nil`.
    package func session(_ id: Int64?) throws(AnalysisError) -> SessionSummary {
        let all = try sessions()
        guard let id else {
            guard let last = all.last else { throw .noSessions(path: path) }
            return last
        }
        guard let match = all.first(where: { $0.id == id }) else {
            throw .journal(.unknownSession(path: path, session: id))
        }
        return match
    }

    // MARK: - Names

    /// The objects, channels, call sites and scopes of a session: call sites read now,
    /// objects, channels and scopes by id when asked for (see `CatalogTable`).
    package func catalog(session: Int64) throws(AnalysisError) -> JournalCatalog {
        let objects = CatalogTable<JournalCatalog.Object> { id throws(AnalysisError) in
            let lookup = try self.lookup(&self.objectLookup, """
                SELECT id, type_id, first_seq, dealloc_seq FROM objects
                WHERE session_id = ?1 AND id >= ?2 ORDER BY id
                """)
            guard let row = try lookup.row(session: session, id: id, in: self) else { return nil }
            let typeID = row.int(1), firstSeq = row.int(2), deallocSeq = row.optionalInt(3)
            return .init(type: try self.name(stringID: typeID) ?? "", firstSeq: firstSeq, deallocSeq: deallocSeq)
        }
        // A session that makes a subject per round (a screen's model per visit) has a
        // channel or two per round: loaded whole, they were 3.7 MB at 1.9M events of the
        // soak; events only ever name the few the session is busy with.
        let channels = CatalogTable<JournalCatalog.Channel>(capacity: JournalCatalog.cachedChannelNames) { id throws(AnalysisError) in
            try self.channel(session: session, id: id)
        }
        let scopes = CatalogTable<JournalCatalog.Scope>(capacity: 1024) { id throws(AnalysisError) in
            var found: (nameID: Int64, beganSeq: Int64?, endedSeq: Int64?)?
            try self.query("SELECT name_id, began_seq, ended_seq FROM scopes WHERE session_id = ?1 AND id = ?2",
                           [.int(session), .int(id)]) { row in
                found = (row.int(0), row.optionalInt(1), row.optionalInt(2))
            }
            // A scope whose name is not in `strings` is not named (as the join of the views).
            guard let found, let name = try self.name(stringID: found.nameID) else { return nil }
            return .init(name: name, beganSeq: found.beganSeq, endedSeq: found.endedSeq)
        }
        var catalog = JournalCatalog(sessionID: session, objects: objects, channels: channels, scopes: scopes)
        catalog.callSites = try allCallSites()
        return catalog
    }

    /// The channel columns `channel(from:)` reads, after the id.
    private static let channelColumns = "subject_id, key_id, policy, first_seq"

    /// A channel as the catalog names it, from `channelColumns` at `offset`; `nil` when its
    /// key is not in `strings` (not named, as the join of the views). The key is read by
    /// id, not joined: a key joined in a query was read in full for every channel naming
    /// it (megabytes each in a journal from elsewhere).
    private func channel(from row: SQLiteStatement, offset: Int32) throws(AnalysisError) -> JournalCatalog.Channel? {
        let subjectID = row.int(offset), keyID = row.int(offset + 1), firstSeq = row.int(offset + 3)
        let policy = name(row, offset + 2, of: JournalDeliveryPolicy.self, column: "policy") ?? ""
        guard let key = try name(stringID: keyID) else { return nil }
        return .init(subjectID: subjectID, key: key, policy: policy, firstSeq: firstSeq)
    }

    /// The channel `id` of a session, or `nil` when the journal does not name it.
    func channel(session: Int64, id: Int64) throws(AnalysisError) -> JournalCatalog.Channel? {
        let statement = try reused("SELECT \(Self.channelColumns) FROM channels WHERE session_id = ?1 AND id = ?2")
        defer { statement.reset() }
        try bind(statement, [.int(session), .int(id)])
        var found: JournalCatalog.Channel?
        while try step(statement) { found = try channel(from: statement, offset: 0) }
        return found
    }

    /// Whether a channel of `session` has a key that starts with `prefix`. One pass over
    /// the session's channels in key order, each key looked up by id (never a search of
    /// the strings, which a journal may hold any number of), stopping at the first match.
    func hasChannel(session: Int64, keyPrefix prefix: String) throws(AnalysisError) -> Bool {
        var found = false
        try query("""
            SELECT EXISTS (
                SELECT 1 FROM channels c CROSS JOIN strings k
                WHERE c.session_id = ?1 AND k.id = c.key_id AND substr(k.value, 1, ?3) = ?2)
            """, [.int(session), .text(prefix), .int(Int64(prefix.count))]) { found = $0.int(0) != 0 }
        return found
    }

    /// Calls `body` with every channel of a session that the journal names, by id, one at
    /// a time: for the few readers that look at all of them (which have a successor,
    /// whether any is single-slot), without holding them all.
    package func forEachChannel(
        session: Int64, _ body: (Int64, JournalCatalog.Channel) throws(AnalysisError) -> Void
    ) throws(AnalysisError) {
        let statement = try reused("SELECT id, \(Self.channelColumns) FROM channels WHERE session_id = ?1 ORDER BY id")
        defer { statement.reset() }
        try bind(statement, [.int(session)])
        while try step(statement) {
            guard let channel = try channel(from: statement, offset: 1) else { continue }
            try body(statement.int(0), channel)
        }
    }

    /// Every call site of the journal, read on first use.
    private func allCallSites() throws(AnalysisError) -> [Int64: JournalCatalog.CallSite] {
        if let callSites { return callSites }
        var rows: [(id: Int64, fileID: Int64, line: Int64, functionID: Int64)] = []
        try query("""
            SELECT cs.id, cs.file_id, cs.line, cs.function_id FROM call_sites cs
            JOIN strings f ON f.id = cs.file_id JOIN strings fn ON fn.id = cs.function_id
            """) { row in
            rows.append((row.int(0), row.int(1), row.int(2), row.int(3)))
        }
        var result: [Int64: JournalCatalog.CallSite] = [:]
        for row in rows {
            result[row.id] = .init(
                file: try name(stringID: row.fileID) ?? "", line: row.line, function: try name(stringID: row.functionID) ?? ""
            )
        }
        callSites = result
        return result
    }

    // MARK: - Registrations

    static let registrationColumns = """
        r.id, r.channel_id, r.owner_id, r.call_site_id, r.options, r.queue_id, r.expects_main, r.sender_id,
        r.scope_id, r.registered_seq, r.removed_seq, r.removal_reason
        """

    /// The registration in `row`'s columns from `offset` on (`registrationColumns`).
    /// The queue label is read by id through `name(stringID:)`, not joined: joined, a label
    /// was read in full for every registration naming it.
    func registration(from row: SQLiteStatement, offset: Int32 = 0) throws(AnalysisError) -> RegistrationRow {
        RegistrationRow(
            id: row.int(offset), channelID: row.int(offset + 1), ownerID: row.int(offset + 2),
            callSiteID: row.int(offset + 3), options: row.text(offset + 4),
            queue: try row.optionalInt(offset + 5).flatMap { (id) throws(AnalysisError) in try name(stringID: id) },
            expectsMain: row.int(offset + 6) != 0, senderID: row.optionalInt(offset + 7),
            scopeID: row.optionalInt(offset + 8), registeredSeq: row.int(offset + 9),
            removedSeq: row.optionalInt(offset + 10),
            removalReason: name(row, offset + 11, of: JournalRemovalReason.self, column: "removal_reason")
        )
    }

    /// The name of the `Value` whose code is stored in result column `index` (`nil` for
    /// NULL), translated here (the reader's connection joins no lookup tables it does not
    /// need). A code this version does not know reads as `column#code`, kept for output as
    /// an unknown name is.
    func name<Value: JournalEnumeration>(
        _ row: SQLiteStatement, _ index: Int32, of _: Value.Type, column: String
    ) -> String? {
        if row.isNull(index) { return nil }
        let code = row.int(index)
        // Spelled out, not `Value(code:)?.name`: the vocabulary's generic lookups are not
        // specialised across modules, and this runs for every registration read.
        guard let raw = Int(exactly: code), let value = Value(rawValue: raw) else { return "\(column)#\(code)" }
        return Value.names[value.rawValue]
    }

    /// One registration by id, read through the reader's `ForwardLookup` of registrations.
    package func registration(session: Int64, id: Int64) throws(AnalysisError) -> RegistrationRow? {
        let lookup = try self.lookup(&registrationLookup, """
            SELECT \(Self.registrationColumns) FROM registrations r
            WHERE r.session_id = ?1 AND r.id >= ?2 ORDER BY r.id
            """)
        return try lookup.row(session: session, id: id, in: self).map { (row) throws(AnalysisError) in try registration(from: row) }
    }

    /// The lookup kept in `kept`, made for `sql` on first use.
    private func lookup(_ kept: inout ForwardLookup?, _ sql: String) throws(AnalysisError) -> ForwardLookup {
        if let kept { return kept }
        let made = try ForwardLookup(reader: self, sql: sql)
        kept = made
        return made
    }

    /// The registrations of a channel made before `seq`, oldest first.
    ///
    /// The ids come from the channel's index, the rows by primary key: asked for the rows
    /// directly, SQLite (no statistics) searched the whole session by primary key instead,
    /// a pass over every registration per call, and `diagnose` asks once per reported
    /// channel (a 10-second soak, 128k registrations and 13k reported channels: over half
    /// an hour).
    package func registrations(session: Int64, channel: Int64, before seq: Int64 = .max) throws(AnalysisError) -> [RegistrationRow] {
        var result: [RegistrationRow] = []
        let statement = try reused("""
            SELECT \(Self.registrationColumns) FROM registrations r
            WHERE r.session_id = ?1
              AND r.id IN (SELECT c.id FROM registrations c WHERE c.session_id = ?1 AND c.channel_id = ?2)
              AND r.registered_seq < ?3
            ORDER BY r.id
            """)
        defer { statement.reset() }
        try bind(statement, [.int(session), .int(channel), .int(seq)])
        while try step(statement) { result.append(try registration(from: statement)) }
        return result
    }

    /// Calls `body` for every registration of `session` (or of all sessions), by session
    /// and id, streaming.
    package func forEachRegistration(session: Int64?, _ body: (Int64, RegistrationRow) -> Void) throws(AnalysisError) {
        let sql = """
            SELECT r.session_id, \(Self.registrationColumns) FROM registrations r
            WHERE (?1 IS NULL OR r.session_id = ?1) ORDER BY r.session_id, r.id
            """
        let statement = try reused(sql)
        defer { statement.reset() }
        do { try statement.bind(session, at: 1) } catch { throw failure(error) }
        while try step(statement) {
            body(statement.int(0), try registration(from: statement, offset: 1))
        }
    }

    /// Calls `body` with the id of each channel of a session that has a registration, once
    /// each, from the registrations' channel index.
    func forEachRegisteredChannel(session: Int64, _ body: (Int64) -> Void) throws(AnalysisError) {
        try query("SELECT DISTINCT channel_id FROM registrations WHERE session_id = ?1", [.int(session)]) { body($0.int(0)) }
    }

    // MARK: - Events

    /// Calls `body` for every event of `session` (every session, by id, when `nil`) with a
    /// seq in `from...to`, in order, with its details, until it returns `false`.
    ///
    /// Two scans in primary-key order, merged here: the events, and the few rows of
    /// `event_details` in the same range (a join would look up the details of every event).
    /// Memory: one row of each.
    /// - Parameter matching: a further condition on the rows of `events`, SQL with integer
    ///   parameters numbered from `?4` (`?1` is the session, `?2` and `?3` the range).
    func forEachStoredEvent(
        session: Int64?, from: Int64, to: Int64, matching: (sql: String, ids: [Int64])? = nil,
        _ body: (EventRow) throws(AnalysisError) -> Bool
    ) throws(AnalysisError) {
        guard from <= to else { return }
        let condition = session == nil ? "?1 IS NULL" : "session_id = ?1"
        let order = session == nil ? "session_id, seq" : "seq"
        let events = try reused("""
            SELECT \(EventColumn.selectList(table: "events")) FROM events
            WHERE \(condition) AND seq >= ?2 AND seq <= ?3\(matching.map { " AND " + $0.sql } ?? "") ORDER BY \(order)
            """)
        defer { events.reset() }
        let details = try reused("""
            SELECT \(EventDetailColumn.selectList(table: "event_details")) FROM event_details
            WHERE \(condition) AND seq >= ?2 AND seq <= ?3 ORDER BY \(order)
            """)
        defer { details.reset() }
        for statement in [events, details] {
            do {
                try statement.bind(session, at: 1)
                try statement.bind(from, at: 2)
                try statement.bind(to, at: 3)
            } catch {
                throw failure(error)
            }
        }
        for (offset, id) in (matching?.ids ?? []).enumerated() {
            do { try events.bind(id, at: Int32(4 + offset)) } catch { throw failure(error) }
        }
        // One guard for the whole pass (`GuardedFileOpen`): every file SQLite opens on this
        // thread meanwhile, for `body`'s lookups too, is opened for this package's
        // connections, and the steps need not each set and clear the thread's mark.
        try GuardedFileOpen.guarding { () throws(AnalysisError) in
            try merge(events, details, body)
        }
    }

    /// The loop of `forEachStoredEvent`: each event with its details, if any.
    private func merge(
        _ events: SQLiteStatement, _ details: SQLiteStatement, _ body: (EventRow) throws(AnalysisError) -> Bool
    ) throws(AnalysisError) {
        var detail: (session: Int64, seq: Int64)? = try step(details) ? (details.int(0), details.int(1)) : nil
        while try step(events) {
            var event = EventRow(StoredEvent(events))
            // Details of no event (a file from elsewhere) are passed over.
            while let pending = detail, (pending.session, pending.seq) < (event.sessionID, event.seq) {
                detail = try step(details) ? (details.int(0), details.int(1)) : nil
            }
            if let pending = detail, pending == (event.sessionID, event.seq) {
                event.details = StoredEventDetails(details)
                detail = try step(details) ? (details.int(0), details.int(1)) : nil
            }
            if try !body(event) { return }
        }
    }

    /// Streams the events of `session` that pass `filter`, in sequence order, with
    /// constant memory (one row at a time). `body` returns `false` to stop early.
    package func forEachEvent(
        session: Int64, filter: EventFilter = EventFilter(), _ body: (EventRow) -> Bool
    ) throws(AnalysisError) {
        try forEachStoredEvent(session: session, from: filter.from, to: filter.to, matching: try condition(filter)) {
            body($0)
        }
    }

    /// `filter`'s kinds, channel key and owner type as a condition on the rows of `events`
    /// (`forEachStoredEvent`'s `matching`); `nil` when it has none. The key and the type
    /// are matched as names read (shortened: `stringIDs(named:)`): each is bound as the ids
    /// of the strings that read as it.
    private func condition(_ filter: EventFilter) throws(AnalysisError) -> (sql: String, ids: [Int64])? {
        var terms: [String] = []
        var values: [Int64] = []
        func parameters(_ ids: [Int64]) -> String {
            let first = 4 + values.count
            values += ids
            return ids.indices.map { "?\(first + $0)" }.joined(separator: ", ")
        }
        if !filter.kinds.isEmpty {
            terms.append("kind IN (\(Set(filter.kinds).map { String($0.code) }.sorted().joined(separator: ", ")))")
        }
        if let key = filter.channelKey {
            let keys = parameters(try stringIDs(named: key))
            terms.append("channel_id IN (SELECT id FROM channels WHERE session_id = ?1 AND key_id IN (\(keys)))")
        }
        if let type = filter.ownerType {
            let types = parameters(try stringIDs(named: type))
            terms.append("owner_id IN (SELECT id FROM objects WHERE session_id = ?1 AND type_id IN (\(types)))")
        }
        return terms.isEmpty ? nil : (terms.joined(separator: " AND "), values)
    }

    /// The event with `seq`, if any.
    package func event(session: Int64, seq: Int64) throws(AnalysisError) -> EventRow? {
        var result: EventRow?
        try forEachStoredEvent(session: session, from: seq, to: seq) { event in
            result = event
            return false
        }
        return result
    }

    /// The last `count` events of a session, oldest first.
    package func lastEvents(session: Int64, count: Int) throws(AnalysisError) -> [EventRow] {
        guard count > 0,
              let first = try scalar(
                "SELECT seq FROM (SELECT seq FROM events WHERE session_id = ?1 ORDER BY seq DESC LIMIT ?2) ORDER BY seq LIMIT 1",
                [.int(session), .int(Int64(count))]
              ) else { return [] }
        var result: [EventRow] = []
        try forEachStoredEvent(session: session, from: first, to: .max) { event in
            result.append(event)
            return true
        }
        return result
    }

    /// The last `changed` event at or before `seq`.
    package func lastChange(session: Int64, atOrBefore seq: Int64) throws(AnalysisError) -> EventRow? {
        guard let found = try scalar(
            "SELECT seq FROM events WHERE session_id = ?1 AND seq <= ?2 AND kind = ?3 ORDER BY seq DESC LIMIT 1",
            [.int(session), .int(seq), .int(EventKind.changed.code)]
        ) else { return nil }
        return try event(session: session, seq: found)
    }
}
