/// One row of the `event_details` table: exactly its stored columns, in
/// `EventDetailColumn` order. An event has one only when a column past its key is set
/// (`isEmpty`).
package struct StoredEventDetails: Sendable, Equatable {
    package var sessionID: Int64
    /// The `events.seq` of the event these belong to.
    package var seq: Int64
    /// `replaced`: the registration that was replaced.
    package var otherRegistrationID: Int64?
    /// `scopeBegan`, `scopeEnded`, and events inside a scope.
    package var scopeID: Int64?
    /// `delivered`: voluntary context switches of a slow callback.
    package var waits: Int64?
    /// Free text; `gap`: `dropped=N`.
    package var detail: String?
    /// `delivered`: a slow callback's time runnable, waiting for a CPU.
    package var runQueueNs: Int64?

    /// The details of event `seq` with every column past the key NULL.
    @inlinable
    package init(sessionID: Int64, seq: Int64) {
        self.sessionID = sessionID
        self.seq = seq
    }

    /// Whether every column past the key is NULL: such an event has no row.
    @inlinable
    package var isEmpty: Bool {
        otherRegistrationID == nil && scopeID == nil && waits == nil && detail == nil && runQueueNs == nil
    }

    /// The row in `statement`'s result columns `offset …` (`EventDetailColumn.selectList` order).
    package init(_ statement: SQLiteStatement, offset: Int32 = 0) {
        func at(_ column: EventDetailColumn) -> Int32 { offset + column.rawValue }
        sessionID = statement.int(at(.sessionID))
        seq = statement.int(at(.seq))
        otherRegistrationID = statement.optionalInt(at(.otherRegistrationID))
        scopeID = statement.optionalInt(at(.scopeID))
        waits = statement.optionalInt(at(.waits))
        detail = statement.optionalText(at(.detail))
        runQueueNs = statement.optionalInt(at(.runQueueNs))
    }
}

extension SQLiteStatement {
    /// Binds `details`' columns to the parameters of `EventDetailColumn.insertSQL`: the one
    /// place a row of `event_details` is bound.
    package func bind(_ details: StoredEventDetails) throws(SQLiteError) {
        func at(_ column: EventDetailColumn) -> Int32 { column.rawValue + 1 }
        try bind(details.sessionID, at: at(.sessionID))
        try bind(details.seq, at: at(.seq))
        try bind(details.otherRegistrationID, at: at(.otherRegistrationID))
        try bind(details.scopeID, at: at(.scopeID))
        try bind(details.waits, at: at(.waits))
        try bind(details.detail, at: at(.detail))
        try bind(details.runQueueNs, at: at(.runQueueNs))
    }
}
