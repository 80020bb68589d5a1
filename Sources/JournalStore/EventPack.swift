/// The compact block format of schema 6 (`event_packs`, `Migrations/0006_event_packs.sql`,
/// docs/EVENT-BLOCKS.md), shared by the writer, the reader, the fixtures and the benchmarks.
///
/// A pack holds up to `EventBlock.maxEvents` events of one session with consecutive seqs.
/// Its body is a JSON array with one array per event, like a schema-5 block's, but without
/// what a row already says or what is nearly always the same: no seq (`first_seq` + the
/// event's index), `time_ns` as its difference from the row's `base_time_ns`, `change_seq`
/// as `seq - change_seq`, `depth` and `is_prior` null when 0, and the columns ordered by
/// how often they are not null (`elements`), so that most nulls are trailing ones, left out.
package enum EventPack {
    /// The columns of an event's array, in order (measured on recorder journals: the
    /// columns every event has first, then by how often each is not null).
    package static let elements: [EventColumn] = [
        .timeNs, .kind, .thread, .isMain, .mainQueue, .channelID, .registrationID, .ownerID, .durationNs,
        .cpuNs, .changeSeq, .callSiteID, .liveCount, .newValue, .oldValue, .reason, .scopeID,
        .otherRegistrationID, .waits, .depth, .isPrior, .detail,
    ]

    /// The first schema version with `event_packs`; the writer writes no `event_blocks` from it on.
    package static let since = 6

    /// Inserts one pack: parameters session_id, first_seq, event_count, base_time_ns, body.
    package static let insertSQL =
        "INSERT INTO event_packs (session_id, first_seq, event_count, base_time_ns, body) VALUES (?, ?, ?, ?, ?)"

    /// The `SELECT` list that unpacks element `value` of pack `pack` (joined with
    /// `json_each(pack.body)` as `each`) into every column after `session_id`, in
    /// `EventColumn` order: the view `events`'s third branch and the reader's `source`.
    package static func unpacked(pack p: String, each j: String) -> [String] {
        EventColumn.allCases.dropFirst().map { column in
            let expression: String
            if column == .seq {
                expression = "\(p).first_seq + \(j).key"
            } else {
                let element = "json_extract(\(j).value, '$[\(elements.firstIndex(of: column)!)]')"
                switch column {
                case .timeNs: expression = "\(p).base_time_ns + \(element)"
                case .changeSeq: expression = "\(p).first_seq + \(j).key - \(element)"
                case .depth, .isPrior: expression = "COALESCE(\(element), 0)"
                default: expression = element
                }
            }
            return "\(expression) AS \(column.name)"
        }
    }
}
