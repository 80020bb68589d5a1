/// `EventFilter`'s kinds, channel key and owner type, applied to events as they are read:
/// the key and the type resolved to the session's channel and object ids once per read.
struct EventMatcher {
    var kinds: Set<EventKind>?
    var channels: Set<Int64>?
    var owners: Set<Int64>?

    /// Resolves `filter`'s names in `session` of `reader`.
    init(_ filter: EventFilter, session: Int64, reader: JournalReader) throws(AnalysisError) {
        kinds = filter.kinds.isEmpty ? nil : Set(filter.kinds)
        if let key = filter.channelKey {
            channels = try Self.ids(
                "SELECT id FROM channels WHERE session_id = ?1 AND key_id = ?2", session, named: key, reader: reader
            )
        }
        if let type = filter.ownerType {
            owners = try Self.ids(
                "SELECT id FROM objects WHERE session_id = ?1 AND type_id = ?2", session, named: type, reader: reader
            )
        }
    }

    func matches(_ event: EventRow) -> Bool {
        if let kinds, !(event.kind.map(kinds.contains) ?? false) { return false }
        if let channels, !(event.channelID.map(channels.contains) ?? false) { return false }
        if let owners, !(event.ownerID.map(owners.contains) ?? false) { return false }
        return true
    }

    /// The ids `sql` finds in `session` for each name that reads as `text` (a name as
    /// stored, or as output shows it shortened: `stringIDs(named:)`).
    private static func ids(
        _ sql: String, _ session: Int64, named text: String, reader: JournalReader
    ) throws(AnalysisError) -> Set<Int64> {
        var ids: Set<Int64> = []
        for stringID in try reader.stringIDs(named: text) {
            try reader.query(sql, [.int(session), .int(stringID)]) { ids.insert($0.int(0)) }
        }
        return ids
    }
}
