import Foundation

/// Counts over a journal (or one session of it), as `stats` prints them.
package struct JournalStatistics: Sendable, Equatable {
    package struct Ranked: Sendable, Equatable {
        package var sessionID: Int64
        package var name: String
        package var count: Int64
    }

    package var fileSize: Int64
    package var schemaVersion: Int
    package var sessions: Int64
    package var events: Int64
    package var registrations: Int64
    /// Events per kind, most frequent first (ties by name).
    package var eventsByKind: [(kind: String, count: Int64)]
    /// Channels with the most events.
    package var busiestChannels: [Ranked]
    /// Owners with the most registrations.
    package var topOwners: [Ranked]

    package static func == (lhs: JournalStatistics, rhs: JournalStatistics) -> Bool {
        lhs.fileSize == rhs.fileSize && lhs.schemaVersion == rhs.schemaVersion && lhs.sessions == rhs.sessions
            && lhs.events == rhs.events && lhs.registrations == rhs.registrations
            && lhs.eventsByKind.map(\.kind) == rhs.eventsByKind.map(\.kind)
            && lhs.eventsByKind.map(\.count) == rhs.eventsByKind.map(\.count)
            && lhs.busiestChannels == rhs.busiestChannels && lhs.topOwners == rhs.topOwners
    }

    /// Computes the statistics of `session`, or of the whole journal when `nil`.
    package static func compute(
        _ reader: JournalReader, session: Int64?, top: Int = 10
    ) throws(AnalysisError) -> JournalStatistics {
        if let session { _ = try reader.session(session) }
        let filter: JournalReader.SQLValue = session.map { .int($0) } ?? .int(-1)
        let all: JournalReader.SQLValue = .int(session == nil ? 1 : 0)
        let size = (try? FileManager.default.attributesOfItem(atPath: reader.path)[.size] as? NSNumber)?.int64Value ?? 0
        var stats = JournalStatistics(
            fileSize: size, schemaVersion: reader.schemaVersion,
            sessions: try reader.scalar("SELECT COUNT(*) FROM sessions WHERE ?2 OR id = ?1", [filter, all]) ?? 0,
            events: 0,
            registrations: try reader.scalar("SELECT COUNT(*) FROM registrations WHERE ?2 OR session_id = ?1", [filter, all]) ?? 0,
            eventsByKind: [], busiestChannels: [], topOwners: []
        )
        // One pass over the three columns counted (one session through the primary key's
        // session prefix): SQLite's GROUP BY would sort every row, and reading whole events
        // decodes every column. Memory follows the kinds and channels, not the events.
        let events = session == nil ? "events" : "events WHERE session_id = ?1"
        var codes: [Int64: Int64] = [:]
        var channels: [Entry: Int64] = [:]
        try reader.query("SELECT session_id, kind, channel_id FROM \(events)", session.map { [.int($0)] } ?? []) { row in
            codes[row.int(1), default: 0] += 1
            let channel = row.int(2)
            // NULL reads as 0: no channel either way.
            if channel != 0 { channels[Entry(session: row.int(0), id: channel), default: 0] += 1 }
        }
        var kinds: [String: Int64] = [:]
        for (code, count) in codes { kinds[EventKind(code: code)?.name ?? "kind#\(code)", default: 0] += count }
        var byKind = kinds.map { ($0.key, $0.value) }
        stats.busiestChannels = try ranked(channels, top: top) { (entry) throws(AnalysisError) in
            try channelName(reader, entry) ?? "channel#\(entry.id)"
        }
        // Most first, then by name: the same order for names and codes.
        byKind.sort { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
        stats.eventsByKind = byKind.map { (kind: $0.0, count: $0.1) }
        stats.events = byKind.reduce(0) { $0 + $1.1 }
        var owners: [Entry: Int64] = [:]
        try reader.query("""
            SELECT session_id, owner_id, COUNT(*) FROM registrations WHERE ?2 OR session_id = ?1 GROUP BY session_id, owner_id
            """, [filter, all]) { owners[Entry(session: $0.int(0), id: $0.int(1))] = $0.int(2) }
        stats.topOwners = try ranked(owners, top: top) { (entry) throws(AnalysisError) in
            try objectName(reader, entry.session, entry.id)
        }
        return stats
    }

    /// A channel or an owner of a session, counted.
    private struct Entry: Hashable {
        var session: Int64
        var id: Int64
    }

    /// The `top` most counted, most first, then by session and name. Names are read in
    /// Swift through the reader (shortened, each once), not built in SQL, where a name of
    /// megabytes was read and joined for every channel or owner counted; only the entries
    /// that can rank are named (ties at the cut-off are ordered by name).
    private static func ranked(
        _ counts: [Entry: Int64], top: Int, name: (Entry) throws(AnalysisError) -> String
    ) throws(AnalysisError) -> [Ranked] {
        guard top > 0 else { return [] }
        var entries = counts.map { (entry: $0.key, count: $0.value) }
        entries.sort { ($1.count, $0.entry.session, $0.entry.id) < ($0.count, $1.entry.session, $1.entry.id) }
        let cutoff = entries.count > top ? entries[top - 1].count : (entries.last?.count ?? 0)
        var result: [Ranked] = []
        for entry in entries where entry.count >= cutoff {
            result.append(Ranked(sessionID: entry.entry.session, name: try name(entry.entry), count: entry.count))
        }
        result.sort { ($1.count, $0.sessionID, $0.name) < ($0.count, $1.sessionID, $1.name) }
        return Array(result.prefix(top))
    }

    /// A channel's name as the schema's `channel_names` view spells it (`Player#1.rate`,
    /// `*.name`, `?#4.rate` for a subject the journal does not name), with shortened
    /// names; `nil` for a channel or key the journal does not hold.
    private static func channelName(_ reader: JournalReader, _ entry: Entry) throws(AnalysisError) -> String? {
        var found: (subject: Int64, keyID: Int64)?
        try reader.query("SELECT subject_id, key_id FROM channels WHERE session_id = ?1 AND id = ?2",
                         [.int(entry.session), .int(entry.id)]) { found = ($0.int(0), $0.int(1)) }
        guard let found, let key = try reader.name(stringID: found.keyID) else { return nil }
        let subject = found.subject == 0 ? "*" : try objectName(reader, entry.session, found.subject)
        return "\(subject).\(key)"
    }

    /// `Player#1`, or `?#1` for an object (or type) the journal does not name.
    private static func objectName(_ reader: JournalReader, _ session: Int64, _ id: Int64) throws(AnalysisError) -> String {
        var typeID: Int64?
        try reader.query("SELECT type_id FROM objects WHERE session_id = ?1 AND id = ?2", [.int(session), .int(id)]) {
            typeID = $0.int(0)
        }
        var type: String?
        if let typeID { type = try reader.name(stringID: typeID) }
        return JournalCatalog.objectName(type: type, id: id)
    }
}
