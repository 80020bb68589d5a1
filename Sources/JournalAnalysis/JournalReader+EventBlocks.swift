import JournalStore

/// Reading the events of a schema-5 or -6 journal: the blocks of `event_blocks` (schema 5)
/// and `event_packs` (schema 6), decoded by `EventBlockDecoder` (not by SQLite's JSON
/// functions, an order of magnitude slower), merged by seq with the rows of `event_rows`
/// (events from before the migration, and events too large for a block), and checked on
/// the way: every block against its own columns, every event's seq after the one before it
/// in its session.
extension JournalReader {
    /// The refusal of a block found damaged: one line, naming the block.
    func damagedBlock(session: Int64, firstSeq: Int64, _ what: String) -> AnalysisError {
        .journal(.refused(path: path, reason: "refused: damaged event block (session \(session), first seq \(firstSeq)): \(what)"))
    }

    /// What column `column` of `statement` holds, for a refusal: `the text "1.5"` (cut and
    /// escaped), `the real number 1.5`, `a blob of 3 bytes`, `NULL`, or the integer.
    static func stored(_ statement: SQLiteStatement, _ column: Int32) -> String {
        if statement.isNull(column) { return "NULL" }
        if statement.isInteger(column) { return "the integer \(statement.int(column))" }
        if statement.isReal(column) { return "the real number \(statement.double(column))" }
        if statement.isBlob(column) { return "a blob of \(statement.byteCount(column)) bytes" }
        return "the text \(quoted(statement.text(column), limit: 40))"
    }

    /// The event being delivered by `decoder`, as a row of `session`.
    func event(from decoder: EventBlockDecoder, session: Int64) -> EventRow {
        let (kind, kindText) = Self.kind(code: decoder.required(.kind))
        return EventRow(
            sessionID: session, seq: decoder.required(.seq), timeNs: decoder.required(.timeNs),
            kind: kind, kindText: kindText, thread: decoder.required(.thread),
            isMain: decoder.required(.isMain) != 0, channelID: decoder.integer(.channelID),
            registrationID: decoder.integer(.registrationID), ownerID: decoder.integer(.ownerID),
            otherRegistrationID: decoder.integer(.otherRegistrationID),
            callSiteID: decoder.integer(.callSiteID), scopeID: decoder.integer(.scopeID),
            depth: Int(decoder.required(.depth)), liveCount: decoder.integer(.liveCount),
            durationNs: decoder.integer(.durationNs), isPrior: decoder.required(.isPrior) != 0,
            oldValue: decoder.text(.oldValue), newValue: decoder.text(.newValue),
            reason: decoder.text(.reason), detail: decoder.text(.detail),
            isMainQueue: decoder.integer(.mainQueue).map { $0 != 0 }, cpuNs: decoder.integer(.cpuNs),
            waits: decoder.integer(.waits), changeSeq: decoder.integer(.changeSeq)
        )
    }

    /// The columns `decodeBlock` reads, first, from `blockTable`.
    static let blockColumns = "session_id, first_seq, last_seq, event_count, body, base_time_ns, is_pack"

    /// `SELECT columns` (of `blockColumns`) of the journal's blocks that meet `condition`,
    /// in `order`: schema 5's blocks and, from schema 6 on, its packs (`is_pack` 1,
    /// `last_seq` computed). `condition` is given the expression of the table's last seq.
    ///
    /// One compound `SELECT … UNION ALL SELECT … ORDER BY`, not a query on a `UNION ALL`
    /// subquery: SQLite sorts such a subquery's rows, bodies and all, in a temporary
    /// B-tree, and merges the compound's two index-ordered scans.
    func blockQuery(
        _ columns: String = blockColumns, where condition: (_ lastSeq: String) -> String, orderBy order: String
    ) -> String {
        let blocks = "SELECT \(columns) FROM (SELECT session_id, first_seq, last_seq, event_count, body, "
            + "0 AS base_time_ns, 0 AS is_pack FROM event_blocks) WHERE \(condition("last_seq"))"
        guard schemaVersion >= EventPack.since else { return blocks + " ORDER BY " + order }
        return blocks + " UNION ALL SELECT \(columns) FROM (SELECT session_id, first_seq, first_seq + event_count - 1 AS last_seq, "
            + "event_count, body, base_time_ns, 1 AS is_pack FROM event_packs) WHERE \(condition("first_seq + event_count - 1"))"
            + " ORDER BY " + order
    }

    /// The first seq of the session's last block (schema 5's or 6's) starting at or before
    /// `seq` (SQL expressions), or NULL: a scalar subquery.
    func lastBlockStart(session: String, atOrBefore seq: String) -> String {
        let one = { (table: String) in
            "SELECT first_seq FROM \(table) WHERE session_id = \(session) AND first_seq <= \(seq) ORDER BY first_seq DESC LIMIT 1"
        }
        guard schemaVersion >= EventPack.since else { return "(\(one("event_blocks")))" }
        return "max(COALESCE((\(one("event_blocks"))), -9223372036854775808), COALESCE((\(one("event_packs"))), -9223372036854775808))"
    }

    /// Decodes the block in the current row of `statement` (`blockColumns` first) into
    /// `events` (emptied first): all its events, or none and the refusal.
    func decodeBlock(_ statement: SQLiteStatement, into events: inout [EventRow]) throws(AnalysisError) {
        let session = statement.int(0), firstSeq = statement.int(1)
        events.removeAll(keepingCapacity: true)
        // Read as integers, a text last_seq was refused as "not its last_seq 0": say what
        // the file holds instead. A pack's last seq is computed from its event_count.
        let isPack = statement.int(6) != 0
        let integers: [(column: Int32, name: String)] = isPack
            ? [(1, "first_seq"), (3, "event_count"), (5, "base_time_ns")] : [(1, "first_seq"), (2, "last_seq"), (3, "event_count")]
        for (column, name) in integers where !statement.isInteger(column) {
            throw damagedBlock(session: session, firstSeq: firstSeq, "its \(name) is not an integer: it holds \(Self.stored(statement, column))")
        }
        let decoder = blockDecoder
        do {
            try statement.withTextBytes(4) { (body) throws(EventBlockDecoder.Damage) in
                if isPack {
                    try decoder.decodePack(body, firstSeq: firstSeq, eventCount: statement.int(3), baseTimeNs: statement.int(5)) {
                        events.append(self.event(from: $0, session: session))
                    }
                } else {
                    try decoder.decode(body, firstSeq: firstSeq, lastSeq: statement.int(2), eventCount: statement.int(3)) {
                        events.append(self.event(from: $0, session: session))
                    }
                }
            }
        } catch {
            events.removeAll(keepingCapacity: true)
            throw damagedBlock(session: session, firstSeq: firstSeq, error.what)
        }
    }

    /// Calls `body` for every stored event of `session` (every session, by id, when
    /// `nil`) with a seq in `from...to`, in seq order, until it returns `false`.
    ///
    /// Memory: one block's events (at most 256) and one row. Work: the blocks and rows
    /// that overlap the range, each read once; a range that starts inside a session
    /// starts at the block holding `from` (found through the primary key).
    /// - Throws: a damaged block (`damagedBlock`), events out of order, or an SQLite
    ///   failure.
    func forEachStoredEvent(
        session: Int64?, from: Int64, to: Int64, _ body: (EventRow) throws(AnalysisError) -> Bool
    ) throws(AnalysisError) {
        guard from <= to else { return }
        let rowSQL: String, blockSQL: String
        if session != nil {
            // The block holding `from`, or `from` if there is none before it.
            let start = "COALESCE(NULLIF(\(lastBlockStart(session: "?1", atOrBefore: "?2")), -9223372036854775808), ?2)"
            rowSQL = "SELECT \(eventColumns) FROM event_rows WHERE session_id = ?1 AND seq >= ?2 AND seq <= ?3 ORDER BY seq"
            blockSQL = """
                \(blockQuery(where: { "session_id = ?1 AND \($0) >= ?2 AND first_seq <= ?3 AND first_seq >= \(start)" }, orderBy: "first_seq"))
                """
        } else {
            rowSQL = "SELECT \(eventColumns) FROM event_rows WHERE ?1 IS NULL AND seq >= ?2 AND seq <= ?3 ORDER BY session_id, seq"
            blockSQL = """
                \(blockQuery(where: { "?1 IS NULL AND \($0) >= ?2 AND first_seq <= ?3" }, orderBy: "session_id, first_seq"))
                """
        }
        let rows = try reused(rowSQL)
        defer { rows.reset() }
        let blocks = try reused(blockSQL)
        defer { blocks.reset() }
        for statement in [rows, blocks] {
            do {
                try statement.bind(session, at: 1)
                try statement.bind(from, at: 2)
                try statement.bind(to, at: 3)
            } catch {
                throw failure(error)
            }
        }
        var row: EventRow? = try step(rows) ? event(from: rows) : nil
        var blockEvents: [EventRow] = []
        blockEvents.reserveCapacity(EventBlockDecoder.maxEvents)
        var next = 0
        var block = (session: Int64(0), firstSeq: Int64(0))
        var blocksLeft = true
        // The last event taken (delivered or not), and whether it was a row.
        var previous: (session: Int64, seq: Int64, wasRow: Bool)?
        while true {
            if next == blockEvents.count, blocksLeft {
                if try step(blocks) {
                    block = (blocks.int(0), blocks.int(1))
                    try decodeBlock(blocks, into: &blockEvents)
                    next = 0
                } else {
                    blocksLeft = false
                    blockEvents.removeAll()
                    next = 0
                }
            }
            let event: EventRow
            let isRow: Bool
            if next < blockEvents.count {
                let candidate = blockEvents[next]
                if let pending = row, (pending.sessionID, pending.seq) <= (candidate.sessionID, candidate.seq) {
                    event = pending
                    isRow = true
                } else {
                    event = candidate
                    isRow = false
                    next += 1
                }
            } else if let pending = row {
                event = pending
                isRow = true
            } else {
                return
            }
            if isRow { row = try step(rows) ? self.event(from: rows) : nil }
            if let previous, previous.session == event.sessionID, event.seq <= previous.seq {
                guard !isRow else {
                    throw .journal(.refused(path: path, reason: "refused: event_rows out of order (session \(event.sessionID), seq \(event.seq) after seq \(previous.seq))"))
                }
                throw damagedBlock(
                    session: block.session, firstSeq: block.firstSeq,
                    previous.wasRow ? "its event seq \(event.seq) is also a row of event_rows"
                        : "its event seq \(event.seq) is not after seq \(previous.seq) of the block before it"
                )
            }
            previous = (event.sessionID, event.seq, isRow)
            if event.seq < from { continue }
            if event.seq > to {
                // Rows stop at `to`; blocks past it hold nothing more in range for this
                // session, but a whole-journal read goes on to the next session.
                if session != nil { return }
                continue
            }
            if try !body(event) { return }
        }
    }

    /// `EventFilter` applied in Swift to events read from blocks: the channel key and the
    /// owner type resolved to ids once per call.
    struct EventMatcher {
        var kinds: Set<EventKind>?
        var channels: Set<Int64>?
        var owners: Set<Int64>?

        func matches(_ event: EventRow) -> Bool {
            if let kinds, !(event.kind.map(kinds.contains) ?? false) { return false }
            if let channels, !(event.channelID.map(channels.contains) ?? false) { return false }
            if let owners, !(event.ownerID.map(owners.contains) ?? false) { return false }
            return true
        }
    }

    func matcher(_ filter: EventFilter, session: Int64) throws(AnalysisError) -> EventMatcher {
        var matcher = EventMatcher(kinds: filter.kinds.isEmpty ? nil : Set(filter.kinds))
        if let key = filter.channelKey {
            matcher.channels = try ids("SELECT id FROM channels WHERE session_id = ?1 AND key_id = ?2", session, named: key)
        }
        if let type = filter.ownerType {
            matcher.owners = try ids("SELECT id FROM objects WHERE session_id = ?1 AND type_id = ?2", session, named: type)
        }
        return matcher
    }

    /// The ids `sql` finds in `session` for each name that reads as `text` (a name as
    /// stored, or as output shows it shortened: `stringIDs(named:)`).
    private func ids(_ sql: String, _ session: Int64, named text: String) throws(AnalysisError) -> Set<Int64> {
        var ids: Set<Int64> = []
        for stringID in try stringIDs(named: text) {
            try query(sql, [.int(session), .int(stringID)]) { ids.insert($0.int(0)) }
        }
        return ids
    }

    /// The last `count` events of a schema-5 session: read forward from the latest seq
    /// from which rows and blocks hold at least `count` events together.
    func lastStoredEvents(session: Int64, count: Int) throws(AnalysisError) -> [EventRow] {
        guard count > 0 else { return [] }
        var start = Int64.max
        try query("SELECT seq FROM event_rows WHERE session_id = ?1 ORDER BY seq DESC LIMIT ?2",
                  [.int(session), .int(Int64(count))]) { start = min(start, $0.int(0)) }
        let blocks = try reused(blockQuery("first_seq, event_count", where: { _ in "session_id = ?1" }, orderBy: "first_seq DESC"))
        defer { blocks.reset() }
        try bind(blocks, [.int(session)])
        var claimed: Int64 = 0
        while try step(blocks) {
            start = min(start, blocks.int(0))
            claimed += max(0, min(blocks.int(1), Int64(EventBlockDecoder.maxEvents)))
            if claimed >= Int64(count) { break }
        }
        guard start < .max else { return [] }
        blocks.reset()
        var result: [EventRow] = []
        try forEachStoredEvent(session: session, from: start, to: .max) { event in
            if result.count == count { result.removeFirst() }
            result.append(event)
            return true
        }
        return result
    }

    /// The last `changed` event at or before `seq` in a schema-5 session: the latest
    /// changed row, or a later one found in the blocks, read backwards from `seq`.
    func lastStoredChange(session: Int64, atOrBefore seq: Int64) throws(AnalysisError) -> EventRow? {
        var found: EventRow?
        try query("""
            SELECT \(eventColumns) FROM event_rows WHERE session_id = ?1 AND seq <= ?2 AND kind = ?3
            ORDER BY seq DESC LIMIT 1
            """, [.int(session), .int(seq), stored(.changed)]) { found = self.event(from: $0) }
        let blocks = try reused(blockQuery(where: { _ in "session_id = ?1 AND first_seq <= ?2" }, orderBy: "first_seq DESC"))
        defer { blocks.reset() }
        try bind(blocks, [.int(session), .int(seq)])
        var events: [EventRow] = []
        while try step(blocks) {
            if let found, found.seq > blocks.int(2) { break }
            try decodeBlock(blocks, into: &events)
            if let change = events.last(where: { $0.kind == .changed && $0.seq <= seq }) {
                if change.seq > found?.seq ?? .min { found = change }
                break
            }
        }
        return found
    }

    /// Decodes the block of `session` that starts at `firstSeq`, known to be damaged, so
    /// that its refusal is the one line every other reader of it gives.
    func refuseBlock(session: Int64, firstSeq: Int64) throws(AnalysisError) {
        let blocks = try reused(blockQuery(where: { _ in "session_id = ?1 AND first_seq = ?2" }, orderBy: "first_seq LIMIT 1"))
        defer { blocks.reset() }
        try bind(blocks, [.int(session), .int(firstSeq)])
        var events: [EventRow] = []
        if try step(blocks) { try decodeBlock(blocks, into: &events) }
        throw damagedBlock(session: session, firstSeq: firstSeq, "its event_count is not between 1 and \(EventBlockDecoder.maxEvents)")
    }

    /// The `time_ns` of the last event of the session's last block, decoded (and so
    /// checked), or `nil` without blocks.
    func lastBlockTime(session: Int64) throws(AnalysisError) -> Int64? {
        let blocks = try reused(blockQuery(where: { _ in "session_id = ?1" }, orderBy: "first_seq DESC LIMIT 1"))
        defer { blocks.reset() }
        try bind(blocks, [.int(session)])
        guard try step(blocks) else { return nil }
        var events: [EventRow] = []
        try decodeBlock(blocks, into: &events)
        return events.last?.timeNs
    }
}
