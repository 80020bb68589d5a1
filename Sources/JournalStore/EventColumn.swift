/// The columns of the `events` table, in one order that the writer's `INSERT`, the
/// readers' `SELECT` and the fixtures share: a column's raw value is its 0-based position
/// in both (bind index `base + rawValue + 1`, result column `rawValue`).
package enum EventColumn: Int32, CaseIterable, Sendable {
    case sessionID, seq, timeNs, kind, thread, isMain, channelID, registrationID, ownerID, otherRegistrationID
    case callSiteID, scopeID, depth, liveCount, durationNs, isPrior, oldValue, newValue, reason, detail
    case mainQueue, cpuNs, waits, changeSeq

    /// The column's SQL name.
    package var name: String { Self.sqlNames[Int(rawValue)] }

    private static let sqlNames = [
        "session_id", "seq", "time_ns", "kind", "thread", "is_main", "channel_id", "registration_id", "owner_id",
        "other_registration_id", "call_site_id", "scope_id", "depth", "live_count", "duration_ns", "is_prior",
        "old_value", "new_value", "reason", "detail", "main_queue", "cpu_ns", "waits", "change_seq",
    ]

    /// The first schema version that has the column.
    package var sinceSchema: Int {
        switch self {
        case .mainQueue, .cpuNs, .waits: return 2
        case .changeSeq: return 4
        default: return 1
        }
    }

    /// Bound parameters per row of `insertSQL` for the latest schema.
    package static let count = Int32(allCases.count)

    /// The columns a journal of schema `version` has, in order.
    package static func columns(schema version: Int) -> [EventColumn] {
        allCases.filter { $0.sinceSchema <= version }
    }

    /// `INSERT INTO events (…) VALUES (?, …), …` for `rows` rows of schema `version`
    /// (the latest unless a test writes an older journal); from schema 5 on, into
    /// `event_rows`, the table behind the `events` view.
    package static func insertSQL(rows: Int, schema version: Int = JournalSchema.latestVersion) -> String {
        let columns = columns(schema: version)
        let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        return "INSERT INTO \(rowTable(schema: version)) (" + columns.map(\.name).joined(separator: ", ") + ") VALUES "
            + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    /// The first schema version whose events are packed in blocks (`event_blocks`; from
    /// schema 6 on, `event_packs`) and read through
    /// the view `events`; its table of one row per event is `event_rows`.
    package static let blocksSince = 5

    /// The table of one row per event in a journal of schema `version`.
    package static func rowTable(schema version: Int) -> String {
        version >= blocksSince ? "event_rows" : "events"
    }

    /// The first schema version whose `events.kind` holds `JournalEventKind` codes; older
    /// journals hold the names.
    package static let integerKindsSince = 4

    /// The `SELECT` list of every column, in order, for a journal of schema `version`: a
    /// column it does not have yet reads as NULL, so a journal is read as it is, never
    /// migrated by a reader.
    package static func selectList(schema version: Int) -> String {
        allCases.map { $0.sinceSchema <= version ? $0.name : "NULL" }.joined(separator: ", ")
    }
}
