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

    /// A channel's name as the schema's `channel_names` view spells it (`Player#1.rate`,
    /// `*.name`), over `c` (channels), `k` (its key), `o` (its subject) and `t` (the
    /// subject's type): the reader's connection runs no views, so the joins are spelled out.
    static let channelName = """
        CASE WHEN c.id IS NULL THEN NULL ELSE CASE WHEN c.subject_id = 0 THEN '*' \
        ELSE COALESCE(t.value || '#' || o.id, '?#' || c.subject_id) END || '.' || k.value END
        """

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
        var byKind: [(String, Int64)] = []
        if reader.hasBlocks {
            let counted = try countStoredEvents(reader, session: session, top: top)
            byKind = counted.byKind
            stats.busiestChannels = counted.busiest
        } else {
            try reader.query(
                "SELECT kind, COUNT(*) FROM events WHERE ?2 OR session_id = ?1 GROUP BY kind",
                [filter, all]
            ) { byKind.append((reader.kind($0, 0).text, $0.int(1))) }
            try reader.query("""
                SELECT e.session_id, COALESCE(\(channelName), 'channel#' || e.channel_id), COUNT(*) FROM events e
                LEFT JOIN channels c ON c.session_id = e.session_id AND c.id = e.channel_id
                LEFT JOIN strings k ON k.id = c.key_id
                LEFT JOIN objects o ON o.session_id = c.session_id AND o.id = c.subject_id
                LEFT JOIN strings t ON t.id = o.type_id
                WHERE e.channel_id IS NOT NULL AND e.channel_id != 0 AND (?2 OR e.session_id = ?1)
                GROUP BY e.session_id, e.channel_id ORDER BY 3 DESC, 1, 2 LIMIT ?3
                """, [filter, all, .int(Int64(top))]) {
                stats.busiestChannels.append(Ranked(sessionID: $0.int(0), name: $0.text(1), count: $0.int(2)))
            }
        }
        // Most first, then by name: the same order for names and codes.
        byKind.sort { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
        stats.eventsByKind = byKind.map { (kind: $0.0, count: $0.1) }
        stats.events = byKind.reduce(0) { $0 + $1.1 }
        try reader.query("""
            SELECT r.session_id, COALESCE(t.value || '#' || o.id, '?#' || r.owner_id), COUNT(*) FROM registrations r
            LEFT JOIN objects o ON o.session_id = r.session_id AND o.id = r.owner_id
            LEFT JOIN strings t ON t.id = o.type_id
            WHERE ?2 OR r.session_id = ?1
            GROUP BY r.session_id, r.owner_id ORDER BY 3 DESC, 1, 2 LIMIT ?3
            """, [filter, all, .int(Int64(top))]) {
            stats.topOwners.append(Ranked(sessionID: $0.int(0), name: $0.text(1), count: $0.int(2)))
        }
        return stats
    }

    /// Counts by kind and by channel of a schema-5 journal, over rows and decoded blocks
    /// (SQLite's JSON functions would unpack every block an order of magnitude slower):
    /// memory follows the kinds and channels, not the events. Only the channels that
    /// can rank are named, in the order the table-based query gives.
    private static func countStoredEvents(
        _ reader: JournalReader, session: Int64?, top: Int
    ) throws(AnalysisError) -> (byKind: [(String, Int64)], busiest: [Ranked]) {
        var kinds: [String: Int64] = [:]
        struct Channel: Hashable {
            var session: Int64
            var id: Int64
        }
        var channels: [Channel: Int64] = [:]
        try reader.forEachStoredEvent(session: session, from: .min, to: .max) { event in
            kinds[event.kindText, default: 0] += 1
            if let channel = event.channelID, channel != 0 {
                channels[Channel(session: event.sessionID, id: channel), default: 0] += 1
            }
            return true
        }
        var ranked = channels.map { (channel: $0.key, count: $0.value) }
        ranked.sort { ($1.count, $0.channel.session, $0.channel.id) < ($0.count, $1.channel.session, $1.channel.id) }
        // Ties are ordered by name: name every channel as frequent as the last that ranks.
        let cutoff = ranked.count > top && top > 0 ? ranked[top - 1].count : (ranked.last?.count ?? 0)
        var busiest: [Ranked] = []
        for entry in ranked where entry.count >= cutoff && top > 0 {
            var name = "channel#\(entry.channel.id)"
            try reader.query("""
                SELECT \(channelName) FROM channels c
                LEFT JOIN strings k ON k.id = c.key_id
                LEFT JOIN objects o ON o.session_id = c.session_id AND o.id = c.subject_id
                LEFT JOIN strings t ON t.id = o.type_id
                WHERE c.session_id = ?1 AND c.id = ?2
                """, [.int(entry.channel.session), .int(entry.channel.id)]) { row in
                if let known = row.optionalText(0) { name = known }
            }
            busiest.append(Ranked(sessionID: entry.channel.session, name: name, count: entry.count))
        }
        busiest.sort { ($1.count, $0.sessionID, $0.name) < ($0.count, $1.sessionID, $1.name) }
        return (kinds.map { ($0.key, $0.value) }, Array(busiest.prefix(max(top, 0))))
    }
}
