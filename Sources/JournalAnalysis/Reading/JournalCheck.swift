import JournalStore

/// The health of a journal file, as `check` reports it.
package struct JournalCheck: Sendable, Equatable {
    /// A stretch of sequence numbers missing from a session.
    package struct SeqGap: Sendable, Equatable {
        package var sessionID: Int64
        /// First missing seq.
        package var from: Int64
        /// Last missing seq.
        package var to: Int64
    }

    /// Events the writer dropped and recorded as a `gap` event.
    package struct RecordedGap: Sendable, Equatable {
        package var sessionID: Int64
        package var seq: Int64
        package var detail: String?
    }

    /// A name longer than `JournalName.maxBytes`: the recorder writes none, so the file
    /// was written elsewhere; readers show it shortened.
    package struct LongName: Sendable, Equatable {
        /// `strings` (a type, key, file, function, queue label or scope name) or `sessions`.
        package var table: String
        /// The `strings` id, or the session id.
        package var id: Int64
        /// The column: `value`, or a session's `label`, `process`, `host`, ….
        package var column: String
        /// Its length in bytes.
        package var bytes: Int64
    }

    package var schemaVersion: Int
    package var supportedVersion: Int
    package var applicationID: Int32
    /// `PRAGMA integrity_check`'s messages; `["ok"]` for a sound file.
    package var integrity: [String]
    package var uncleanSessions: [Int64]
    package var recordedGaps: [RecordedGap]
    package var seqGaps: [SeqGap]
    /// The first `maxListed` names longer than the limit, by table and id.
    package var longNames: [LongName] = []
    /// How many names are longer than the limit (all of them, listed or not).
    package var longNameCount: Int64 = 0
    /// How many over-long names are listed.
    package static let maxListed = 20

    /// Sound file, no missing sequence numbers, no name longer than the recorder writes.
    /// Unclean sessions and recorded gaps are facts about the recording, not damage to
    /// the file.
    package var isHealthy: Bool { integrity == ["ok"] && seqGaps.isEmpty && longNameCount == 0 }

    /// Checks the journal behind `reader` (read-only).
    package static func run(_ reader: JournalReader) throws(AnalysisError) -> JournalCheck {
        var check = JournalCheck(
            schemaVersion: reader.schemaVersion, supportedVersion: JournalSchema.latestVersion,
            applicationID: Int32(truncatingIfNeeded: try reader.scalar("PRAGMA application_id") ?? 0),
            integrity: [], uncleanSessions: [], recordedGaps: [], seqGaps: []
        )
        // An older journal is read through an upgraded copy: the user's file is checked
        // first, as it is on disk, then the copy.
        if let original = try reader.integrityOfOriginal(limit: 50), original != ["ok"] {
            check.integrity = original
            return check
        }
        try reader.query("PRAGMA integrity_check(50)") { check.integrity.append($0.text(0)) }
        // A damaged file may fail any further query; what is wrong is already said.
        guard check.integrity == ["ok"] else { return check }
        // The reader's connection is read-only, so integrity_check skipped the CHECK
        // constraints: values written past them (`ignore_check_constraints`) are found
        // here, in integrity_check's words, as `migrate` would find them before refusing.
        let constraints: [(table: String, expressions: [String])]
        // The constraints of the schema read: the latest (an older file is read through its
        // upgraded copy, whose upgrade refused any value its own schema forbade).
        do { constraints = try JournalSchemaObjects.checkConstraints(version: JournalSchema.latestVersion) } catch { throw reader.failure(error) }
        var broken: [String] = []
        for constraint in constraints {
            let condition = constraint.expressions.map { "NOT (\($0))" }.joined(separator: " OR ")
            if try reader.scalar("SELECT EXISTS (SELECT 1 FROM \"\(constraint.table)\" WHERE \(condition))") == 1 {
                broken.append("CHECK constraint failed in \(constraint.table)")
            }
        }
        // Rows naming a session, string or call site the file does not hold (event
        // blocks copied under a session id that has no row) are counted by `stats` and
        // read by nothing else: the file was changed outside the library.
        try reader.query("PRAGMA foreign_key_check") { row in
            let message = "FOREIGN KEY constraint failed in \(row.text(0)) (no such row in \(row.text(2)))"
            if broken.count < 50, !broken.contains(message) { broken.append(message) }
        }
        broken += try oversizedInteriorRows(reader)
        if !broken.isEmpty {
            check.integrity = broken
            return check
        }
        try reader.query("SELECT id FROM sessions WHERE clean_end = 0 ORDER BY id") { check.uncleanSessions.append($0.int(0)) }
        try check.findLongNames(reader)
        var session: Int64 = -1
        var expected: Int64 = 1
        func take(_ id: Int64, _ seq: Int64) {
            if id != session {
                session = id
                expected = 1
            }
            if seq > expected, check.seqGaps.count < 100 {
                check.seqGaps.append(SeqGap(sessionID: id, from: expected, to: seq - 1))
            }
            // Nothing follows the largest seq a (damaged) journal can hold.
            expected = seq < .max ? seq + 1 : .max
        }
        // One pass over the events, as every reader reads them.
        try reader.forEachStoredEvent(session: nil, from: .min, to: .max) { event in
            if event.kind == .gap {
                check.recordedGaps.append(RecordedGap(sessionID: event.sessionID, seq: event.seq, detail: event.detail))
            }
            take(event.sessionID, event.seq)
            return true
        }
        return check
    }
}

extension JournalCheck {
    /// The largest row an interior page of the events tables may hold, in bytes.
    package static let maxInteriorRowBytes: Int64 = 1 << 20

    /// A sentence for each `WITHOUT ROWID` events table with a row of more than
    /// `maxInteriorRowBytes` in an interior page. Such a table keeps whole rows in its
    /// interior pages, and every lookup that passes one reads it whole: one 16-million-
    /// character value there made `sessions` on a 16 MB journal take 241 s instead of 0.3 s.
    /// Read from SQLite's `dbstat` table (one pass over the tables' pages); nothing is
    /// reported where this SQLite lacks it.
    static func oversizedInteriorRows(_ reader: JournalReader) throws(AnalysisError) -> [String] {
        var found: [String] = []
        do {
            try reader.query("""
                SELECT name, max(mx_payload) FROM dbstat WHERE name IN ('events', 'event_details') AND pagetype = 'internal'
                GROUP BY name ORDER BY name
                """) { row in
                if row.int(1) > maxInteriorRowBytes {
                    found.append("\(row.text(0)): an interior page holds a row of \(row.int(1)) bytes, which every lookup reads (more than \(maxInteriorRowBytes) bytes: values far longer than the recorder writes)")
                }
            }
        } catch let error where error.description.contains("no such table: dbstat") {
            return []
        }
        return found
    }

    /// Fills `longNames` and `longNameCount`: one pass over `strings` and `sessions`,
    /// lengths in bytes (a blob's length, not a count of characters).
    mutating func findLongNames(_ reader: JournalReader) throws(AnalysisError) {
        func bytes(_ column: String) -> String { "length(CAST(\(column) AS BLOB))" }
        var found: [LongName] = []
        var count: Int64 = 0
        let limit = Int64(JournalName.maxBytes)
        try reader.query("SELECT id, \(bytes("value")) FROM strings WHERE \(bytes("value")) > ?1 ORDER BY id", [.int(limit)]) { row in
            count += 1
            if found.count < Self.maxListed { found.append(LongName(table: "strings", id: row.int(0), column: "value", bytes: row.int(1))) }
        }
        let columns = ["label", "process", "host", "started_at", "ended_at", "library_version"]
        let lengths = columns.map(bytes).joined(separator: ", ")
        let longest = columns.map { "COALESCE(\(bytes($0)), 0)" }.joined(separator: ", ")
        try reader.query("SELECT id, \(lengths) FROM sessions WHERE max(\(longest)) > ?1 ORDER BY id", [.int(limit)]) { row in
            for (index, column) in columns.enumerated() {
                let length = row.optionalInt(Int32(index + 1)) ?? 0
                guard length > limit else { continue }
                count += 1
                if found.count < Self.maxListed { found.append(LongName(table: "sessions", id: row.int(0), column: column, bytes: length)) }
            }
        }
        longNames = found
        longNameCount = count
    }

    /// The newest schema this version reads and writes.
    package static var latestSchemaVersion: Int { JournalSchema.latestVersion }
}
