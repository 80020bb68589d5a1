/// The stored columns of the `events` table, in table order: the one declaration of the
/// event layout that the writer's `INSERT`, the readers' `SELECT`, the fixtures and the
/// benchmarks share (a column's raw value is its 0-based position in all of them).
/// `EventTableTests` checks it, `EventDetailColumn` and `EventFlags` against the schema the
/// migrations create (tables and `event_log`), and docs/SQL.md against both.
package enum EventColumn: Int32, CaseIterable, Sendable {
    case sessionID, seq, timeNs, kind, thread, flags, channelID, registrationID, ownerID, changeBack
    case durationNs, cpuNs, liveCount, callSiteID, oldValue, newValue, reason

    /// The column's SQL name.
    package var name: String { Self.sqlNames[Int(rawValue)] }

    private static let sqlNames = [
        "session_id", "seq", "time_ns", "kind", "thread", "flags", "channel_id", "registration_id", "owner_id",
        "change_back", "duration_ns", "cpu_ns", "live_count", "call_site_id", "old_value", "new_value", "reason",
    ]

    /// The `SELECT` list of every column, in order, qualified by `table`.
    package static func selectList(table: String) -> String {
        allCases.map { "\(table).\($0.name)" }.joined(separator: ", ")
    }

    /// The columns the view `event_log` decodes from `flags` and `change_back`, with the
    /// SQL expression of each over `events e` (see `EventFlags`).
    package static let decoded: [(name: String, expression: String)] = [
        ("is_main", "e.flags & 1"),
        ("depth", "e.flags >> 4"),
        ("is_prior", "(e.flags >> 1) & 1"),
        ("main_queue", "CASE WHEN e.flags & 4 THEN (e.flags >> 3) & 1 END"),
        ("change_seq", "e.seq - e.change_back"),
    ]
}

/// The columns of `event_details`, in table order: what few events have, one row per such
/// event with the event's key.
package enum EventDetailColumn: Int32, CaseIterable, Sendable {
    case sessionID, seq, otherRegistrationID, scopeID, waits, detail, runQueueNs

    /// The column's SQL name.
    package var name: String { Self.sqlNames[Int(rawValue)] }

    private static let sqlNames = ["session_id", "seq", "other_registration_id", "scope_id", "waits", "detail", "run_queue_ns"]

    /// `INSERT INTO event_details (…) VALUES (?, …)`.
    package static let insertSQL = "INSERT INTO event_details (" + allCases.map(\.name).joined(separator: ", ")
        + ") VALUES (" + Array(repeating: "?", count: allCases.count).joined(separator: ", ") + ")"

    /// The `SELECT` list of every column, in order, qualified by `table`.
    package static func selectList(table: String) -> String {
        allCases.map { "\(table).\($0.name)" }.joined(separator: ", ")
    }
}

/// `events.flags`: the yes/no facts of an event and its dispatch depth in one stored
/// integer (one column's header byte and one bind instead of four), shown decoded by the
/// view `event_log` as `is_main`, `is_prior`, `main_queue` and `depth`.
package enum EventFlags {
    package static let mainThread: Int64 = 1
    package static let prior: Int64 = 2
    /// Whether the main queue was recorded (schema 1's events and gaps have no answer).
    package static let mainQueueKnown: Int64 = 4
    package static let mainQueue: Int64 = 8
    /// `depth` is stored above the flag bits.
    package static let depthShift: Int64 = 4

    /// The stored value for these facts.
    @inlinable
    package static func encode(isMain: Bool, isPrior: Bool, isMainQueue: Bool?, depth: Int64) -> Int64 {
        var flags = depth &<< depthShift
        if isMain { flags |= mainThread }
        if isPrior { flags |= prior }
        if let isMainQueue { flags |= isMainQueue ? mainQueueKnown | mainQueue : mainQueueKnown }
        return flags
    }

    /// The facts of a stored value (any integer: a hostile file decides it).
    package static func decode(_ flags: Int64) -> (isMain: Bool, isPrior: Bool, isMainQueue: Bool?, depth: Int64) {
        (
            flags & mainThread != 0, flags & prior != 0,
            flags & mainQueueKnown != 0 ? flags & mainQueue != 0 : nil, flags >> depthShift
        )
    }
}
