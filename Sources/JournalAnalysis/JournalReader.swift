import JournalStore

/// Read-only access to a journal: its sessions, the names a session uses, and its events
/// as a stream.
///
/// Opens the file read-only through `JournalFile`, so a journal still being recorded (or
/// left by a crash, with its `-wal`) is readable and its bytes never change. Every query
/// binds its values. Not thread-safe: use one reader per thread.
package final class JournalReader {
    package let path: String
    let database: SQLiteDatabase
    /// The journal's `user_version`.
    package let schemaVersion: Int
    /// Whether `events.kind` holds codes (schema 4 on) rather than names.
    let integerKinds: Bool
    /// Whether `channels.policy` and `registrations.removal_reason` hold codes (schema 5 on)
    /// rather than names.
    let integerPoliciesAndReasons: Bool
    /// Whether events are in `event_blocks` (and from schema 6 on `event_packs`) and
    /// `event_rows` (schema 5 on), read through
    /// `forEachStoredEvent`, rather than in the `events` table.
    let hasBlocks: Bool
    /// Decodes the blocks of `event_blocks` and `event_packs`; one, reused (its scratch buffer is kept).
    let blockDecoder = EventBlockDecoder()
    private var registrationStatement: SQLiteStatement?
    /// Statements by SQL text, compiled once: whole-journal commands run the same few
    /// queries for every session, and a journal may hold hundreds of thousands.
    private var statements: [String: SQLiteStatement] = [:]
    /// The call sites, which belong to the whole journal, not to a session: read once.
    private var callSites: [Int64: JournalCatalog.CallSite]?
    /// Names read by `name(stringID:)`, shortened, by `strings.id` (`nil`: no such row).
    var names: [Int64: String?] = [:]

    /// Opens and validates the journal at `path`.
    package init(path: String) throws(AnalysisError) {
        self.path = path
        do {
            database = try JournalFile.openForReading(path: path)
            schemaVersion = try JournalFile.validate(database)
        } catch {
            throw .journal(error)
        }
        integerKinds = schemaVersion >= EventColumn.integerKindsSince
        integerPoliciesAndReasons = schemaVersion >= JournalSchema.integerPoliciesAndReasonsSince
        hasBlocks = schemaVersion >= EventColumn.blocksSince
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
        let rows = EventColumn.rowTable(schema: schemaVersion)
        // From schema 5 on, a block's count and last seq are columns, and only the session's
        // last block is decoded (for its last event's time): no other block is unpacked.
        let blocks = hasBlocks, packs = schemaVersion >= EventPack.since
        var endInBlocks: [Int] = []
        // A hostile event_count must neither overflow the sum (SQLite stops the query
        // with "integer overflow") nor be counted: only counts a block may hold are
        // summed, and the first block with another is decoded below, which refuses it.
        let counts = { (table: String) in "\(table).event_count BETWEEN 1 AND \(EventBlockDecoder.maxEvents)" }
        var countLies: [(session: Int64, firstSeq: Int64)] = []
        try query("""
            SELECT s.id, s.label, s.process, s.pid, s.host, s.started_at, s.ended_at, s.clean_end, s.library_version,
                   (SELECT COUNT(*) FROM \(rows) e WHERE e.session_id = s.id)
                     + \(blocks ? "(SELECT COALESCE(SUM(b.event_count), 0) FROM event_blocks b WHERE b.session_id = s.id AND \(counts("b")))" : "0")
                     + \(packs ? "(SELECT COALESCE(SUM(p.event_count), 0) FROM event_packs p WHERE p.session_id = s.id AND \(counts("p")))" : "0"),
                   (SELECT COUNT(*) FROM registrations r WHERE r.session_id = s.id),
                   (SELECT e.seq FROM \(rows) e WHERE e.session_id = s.id ORDER BY e.seq DESC LIMIT 1),
                   (SELECT e.time_ns FROM \(rows) e WHERE e.session_id = s.id ORDER BY e.seq DESC LIMIT 1),
                   \(blocks ? "(SELECT b.last_seq FROM event_blocks b WHERE b.session_id = s.id ORDER BY b.first_seq DESC LIMIT 1)" : "NULL"),
                   \(packs ? "(SELECT p.first_seq + p.event_count - 1 FROM event_packs p WHERE p.session_id = s.id ORDER BY p.first_seq DESC LIMIT 1)" : "NULL"),
                   \(blocks ? "(SELECT b.first_seq FROM event_blocks b WHERE b.session_id = s.id AND NOT (\(counts("b"))) ORDER BY b.first_seq LIMIT 1)" : "NULL"),
                   \(packs ? "(SELECT p.first_seq FROM event_packs p WHERE p.session_id = s.id AND NOT (\(counts("p"))) ORDER BY p.first_seq LIMIT 1)" : "NULL")
            FROM sessions s ORDER BY s.id
            """) { row in
            if let firstSeq = row.optionalInt(15) ?? row.optionalInt(16) { countLies.append((row.int(0), firstSeq)) }
            let rowSeq = row.optionalInt(11)
            var last = (seq: rowSeq ?? 0, time: row.optionalInt(12) ?? 0)
            // Absent is not a seq: a block at seq -2^63 (the smallest Int64) was taken
            // for no block, and the session said to end at seq 0.
            let blockSeq = [row.optionalInt(13), row.optionalInt(14)].compactMap { $0 }.max()
            if let blockSeq, rowSeq.map({ blockSeq > $0 }) ?? true {
                // The time is the block's last event's, decoded below.
                last = (blockSeq, 0)
                endInBlocks.append(result.count)
            }
            result.append(SessionSummary(
                id: row.int(0), label: JournalName.capped(row.text(1)), process: JournalName.capped(row.text(2)),
                pid: row.int(3), host: JournalName.capped(row.text(4)),
                startedAt: JournalName.capped(row.text(5)), endedAt: row.optionalText(6).map(JournalName.capped),
                cleanEnd: row.int(7) != 0, libraryVersion: JournalName.capped(row.text(8)), eventCount: row.int(9), registrationCount: row.int(10),
                lastSeq: last.seq, lastTimeNs: last.time
            ))
        }
        if let lie = countLies.first { try refuseBlock(session: lie.session, firstSeq: lie.firstSeq) }
        for index in endInBlocks {
            result[index].lastTimeNs = try lastBlockTime(session: result[index].id) ?? 0
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
            var found: (typeID: Int64, firstSeq: Int64, deallocSeq: Int64?)?
            try self.query("SELECT type_id, first_seq, dealloc_seq FROM objects WHERE session_id = ?1 AND id = ?2",
                           [.int(session), .int(id)]) { row in
                found = (row.int(0), row.int(1), row.optionalInt(2))
            }
            guard let found else { return nil }
            return .init(type: try self.name(stringID: found.typeID) ?? "", firstSeq: found.firstSeq, deallocSeq: found.deallocSeq)
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

    /// The name of the `Value` stored in result column `index` (`nil` for NULL): from schema
    /// 5 on a code, translated here (the reader's connection joins no lookup tables it does
    /// not need); before, the name as stored. A code this version does not know reads as
    /// `column#code`, kept for output as an unknown name is.
    func name<Value: JournalEnumeration>(
        _ row: SQLiteStatement, _ index: Int32, of _: Value.Type, column: String
    ) -> String? {
        if row.isNull(index) { return nil }
        guard integerPoliciesAndReasons else { return row.text(index) }
        let code = row.int(index)
        return Value(code: code)?.name ?? "\(column)#\(code)"
    }

    /// One registration by id (a primary-key lookup with a reused statement).
    package func registration(session: Int64, id: Int64) throws(AnalysisError) -> RegistrationRow? {
        let statement: SQLiteStatement
        if let existing = registrationStatement {
            statement = existing
            statement.reset()
        } else {
            statement = try prepare("""
                SELECT \(Self.registrationColumns) FROM registrations r
                WHERE r.session_id = ?1 AND r.id = ?2
                """)
            registrationStatement = statement
        }
        try bind(statement, [.int(session), .int(id)])
        return try step(statement) ? try registration(from: statement) : nil
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

    /// The columns `event(from:)` reads, in `EventColumn` order. Schema 1 has no
    /// `main_queue`, `cpu_ns`, `waits`: they read as NULL there, so a journal is read as it
    /// is, never migrated by a reader.
    var eventColumns: String { EventColumn.selectList(schema: schemaVersion) }

    /// `kind` as this journal stores it, for a bound parameter.
    func stored(_ kind: EventKind) -> SQLValue { integerKinds ? .int(kind.code) : .text(kind.name) }

    /// The kind in result column `index` and its text: schema 4 on stores codes, older
    /// schemas names (`integerKinds`, decided once when the journal is opened).
    func kind(_ row: SQLiteStatement, _ index: Int32) -> (kind: EventKind?, text: String) {
        if integerKinds { return Self.kind(code: row.int(index)) }
        let text = row.text(index)
        return (EventKind(name: text), text)
    }

    /// The kind with `code` and its text (`kind#N` for a code this version does not know).
    static func kind(code: Int64) -> (kind: EventKind?, text: String) {
        // From tables made once: the vocabulary's generic lookups cost ~700 instructions
        // a row, a tenth of decoding it.
        if code >= 0, code < kindsByCode.count { return kindsByCode[Int(code)] }
        return (nil, "kind#\(code)")
    }

    /// Each known kind with its name, by code.
    private static let kindsByCode: [(kind: EventKind?, text: String)] = {
        let all = EventKind.allCases
        let top = all.map { Int($0.code) }.max() ?? -1
        return (0...max(top, 0)).map { code in
            let kind = EventKind(code: Int64(code))
            return (kind, kind?.name ?? "kind#\(code)")
        }
    }()

    func event(from row: SQLiteStatement) -> EventRow {
        func column(_ column: EventColumn) -> Int32 { column.rawValue }
        let (kind, kindText) = self.kind(row, column(.kind))
        return EventRow(
            sessionID: row.int(column(.sessionID)), seq: row.int(column(.seq)), timeNs: row.int(column(.timeNs)),
            kind: kind, kindText: kindText, thread: row.int(column(.thread)),
            isMain: row.int(column(.isMain)) != 0, channelID: row.optionalInt(column(.channelID)),
            registrationID: row.optionalInt(column(.registrationID)), ownerID: row.optionalInt(column(.ownerID)),
            otherRegistrationID: row.optionalInt(column(.otherRegistrationID)),
            callSiteID: row.optionalInt(column(.callSiteID)), scopeID: row.optionalInt(column(.scopeID)),
            depth: Int(row.int(column(.depth))), liveCount: row.optionalInt(column(.liveCount)),
            durationNs: row.optionalInt(column(.durationNs)), isPrior: row.int(column(.isPrior)) != 0,
            oldValue: row.optionalText(column(.oldValue)), newValue: row.optionalText(column(.newValue)),
            reason: row.optionalText(column(.reason)), detail: row.optionalText(column(.detail)),
            isMainQueue: row.optionalInt(column(.mainQueue)).map { $0 != 0 }, cpuNs: row.optionalInt(column(.cpuNs)),
            waits: row.optionalInt(column(.waits)), changeSeq: row.optionalInt(column(.changeSeq))
        )
    }

    /// Streams the events of `session` that pass `filter`, in sequence order. Memory
    /// stays constant: one row at a time, or from schema 5 on one decoded block (at most
    /// 256 events), the filter applied in Swift. `body` returns `false` to stop early.
    package func forEachEvent(
        session: Int64, filter: EventFilter = EventFilter(), _ body: (EventRow) -> Bool
    ) throws(AnalysisError) {
        // The channel key and owner type are matched in Swift, as names read (shortened).
        let matcher = try matcher(filter, session: session)
        if hasBlocks {
            try forEachStoredEvent(session: session, from: filter.from, to: filter.to) { event in
                matcher.matches(event) ? body(event) : true
            }
            return
        }
        let events = EventColumn.rowTable(schema: schemaVersion)
        var sql = "SELECT \(eventColumns) FROM \(events) WHERE session_id = ?1 AND seq >= ?2 AND seq <= ?3"
        var values: [SQLValue] = [.int(session), .int(filter.from), .int(filter.to)]
        if !filter.kinds.isEmpty {
            // Each kind once: a repeated --kind must not run into the connection's limit
            // on bound values.
            let kinds = Set(filter.kinds).sorted { $0.rawValue < $1.rawValue }
            let first = values.count + 1
            sql += " AND kind IN (" + (0..<kinds.count).map { "?\(first + $0)" }.joined(separator: ", ") + ")"
            values += kinds.map(stored)
        }
        sql += " ORDER BY seq"
        let statement = try reused(sql)
        // A kept statement left mid-way would hold its read transaction open.
        defer { statement.reset() }
        try bind(statement, values)
        while try step(statement) {
            let event = self.event(from: statement)
            if matcher.matches(event), !body(event) { break }
        }
    }

    /// The event with `seq`, if any.
    package func event(session: Int64, seq: Int64) throws(AnalysisError) -> EventRow? {
        var result: EventRow?
        if hasBlocks {
            try forEachStoredEvent(session: session, from: seq, to: seq) { event in
                result = event
                return false
            }
            return result
        }
        try query("SELECT \(eventColumns) FROM events WHERE session_id = ?1 AND seq = ?2", [.int(session), .int(seq)]) {
            result = self.event(from: $0)
        }
        return result
    }

    /// The last `count` events of a session, oldest first.
    package func lastEvents(session: Int64, count: Int) throws(AnalysisError) -> [EventRow] {
        if hasBlocks { return try lastStoredEvents(session: session, count: count) }
        var result: [EventRow] = []
        try query(
            "SELECT \(eventColumns) FROM events WHERE session_id = ?1 ORDER BY seq DESC LIMIT ?2",
            [.int(session), .int(Int64(count))]
        ) { result.append(self.event(from: $0)) }
        return result.reversed()
    }

    /// The last `changed` event at or before `seq`.
    package func lastChange(session: Int64, atOrBefore seq: Int64) throws(AnalysisError) -> EventRow? {
        if hasBlocks { return try lastStoredChange(session: session, atOrBefore: seq) }
        var result: EventRow?
        try query("""
            SELECT \(eventColumns) FROM events WHERE session_id = ?1 AND seq <= ?2 AND kind = ?3
            ORDER BY seq DESC LIMIT 1
            """, [.int(session), .int(seq), stored(.changed)]) { result = self.event(from: $0) }
        return result
    }
}
