import CSQLite

/// One row of the `events` table: exactly its stored columns, in `EventColumn` order, as
/// stored. The one shape of an event row: the writer stages it (`StagedEvents`), the readers read it (and
/// decode it, `EventRow`), the fixtures write it.
///
/// Every value is as the file holds it: a journal from elsewhere decides any of them, so
/// readers decode `kind` and `flags` without trusting them.
package struct StoredEvent: Sendable, Equatable {
    package var sessionID: Int64
    /// 1, 2, 3, … per session.
    package var seq: Int64
    /// Nanoseconds since the session's start (`sessions.start_ns`).
    package var timeNs: Int64
    /// The `event_kinds.code` of the kind (`JournalEventKind.code`).
    package var kind: Int64
    /// The registry's thread number.
    package var thread: Int64
    /// The yes/no facts and the dispatch depth (`EventFlags`).
    package var flags: Int64
    package var channelID: Int64?
    package var registrationID: Int64?
    /// The registration's owner, or the owner named by a removal.
    package var ownerID: Int64?
    /// `delivered`, `skipped`: how many events back the change delivered is (`seq - change_seq`).
    package var changeBack: Int64?
    /// `delivered`: how long the callback ran (wall clock).
    package var durationNs: Int64?
    /// `delivered`: the thread CPU time of the callback.
    package var cpuNs: Int64?
    /// `changed`: live registrations when dispatched.
    package var liveCount: Int64?
    package var callSiteID: Int64?
    /// `changed`: the text of the old value.
    package var oldValue: ValueText?
    /// `changed`: the text of the new value; `delivered`: an initial value.
    package var newValue: ValueText?
    /// The name of a removal, skip or gap reason (by `kind`).
    package var reason: String?

    /// The row with the columns every event has; the others NULL.
    @inlinable
    package init(sessionID: Int64, seq: Int64, timeNs: Int64, kind: Int64, thread: Int64, flags: Int64) {
        self.sessionID = sessionID
        self.seq = seq
        self.timeNs = timeNs
        self.kind = kind
        self.thread = thread
        self.flags = flags
    }

    /// The row in `statement`'s result columns `offset …` (`EventColumn.selectList` order).
    package init(_ statement: SQLiteStatement, offset: Int32 = 0) {
        func at(_ column: EventColumn) -> Int32 { offset + column.rawValue }
        sessionID = statement.int(at(.sessionID))
        seq = statement.int(at(.seq))
        timeNs = statement.int(at(.timeNs))
        kind = statement.int(at(.kind))
        thread = statement.int(at(.thread))
        flags = statement.int(at(.flags))
        channelID = statement.optionalInt(at(.channelID))
        registrationID = statement.optionalInt(at(.registrationID))
        ownerID = statement.optionalInt(at(.ownerID))
        changeBack = statement.optionalInt(at(.changeBack))
        durationNs = statement.optionalInt(at(.durationNs))
        cpuNs = statement.optionalInt(at(.cpuNs))
        liveCount = statement.optionalInt(at(.liveCount))
        callSiteID = statement.optionalInt(at(.callSiteID))
        oldValue = statement.optionalText(at(.oldValue)).map(ValueText.text)
        newValue = statement.optionalText(at(.newValue)).map(ValueText.text)
        reason = statement.optionalText(at(.reason))
    }
}
