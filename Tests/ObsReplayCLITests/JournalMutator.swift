import Foundation
import ObservationJournal
import TestSupport

/// Damages a copy of a journal in ways disks, crashes, tools and people do: cut short,
/// bytes flipped, pages overwritten, header zeroed, a newer `user_version`, tables
/// dropped, and rows that break the journal's invariants (a delivery before its
/// registration, the removal of a registration that never existed, gaps in `seq`, ids
/// that point nowhere, extreme numbers, text that is not text).
///
/// Everything is drawn from a `SplitMix64`, so a case is named by its seed. SQL
/// mutations are applied first, through SQLite (they make a valid file with invalid
/// content); byte mutations then damage the file itself.
struct JournalMutator {
    /// What was done, for the report of a failing case.
    private(set) var applied: [String] = []
    /// SQL mutations SQLite refused (a constraint, a dropped table): the case goes on
    /// with the others.
    private(set) var refused = 0
    private var generator: SplitMix64

    init(seed: UInt64) {
        generator = SplitMix64(state: seed)
    }

    // MARK: - Choosing

    mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &generator)] }
    mutating func number(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }
    mutating func number(_ range: Range<Int>) -> Int { Int.random(in: range, using: &generator) }
    mutating func chance(_ percent: Int) -> Bool { number(1...100) <= percent }

    /// Mutates the journal at `path` (and its `-wal`, if there is one).
    mutating func mutate(_ path: String) {
        let kind = number(1...100)
        let sqlCount = kind <= 35 ? 0 : number(1...3)
        let byteCount = kind > 35 && kind <= 75 ? 0 : number(1...3)
        let hasWAL = FileManager.default.fileExists(atPath: path + "-wal")
        // SQL on a journal with a live WAL would checkpoint it away: damage its bytes instead.
        if !hasWAL && sqlCount > 0 { applySQL(count: sqlCount, path) }
        for _ in 0..<(hasWAL ? max(1, byteCount) : byteCount) {
            let target = hasWAL && chance(50) ? path + "-wal" : path
            applyBytes(target, isWAL: target.hasSuffix("-wal"))
        }
        if applied.isEmpty { applyBytes(path, isWAL: false) }
    }

    // MARK: - SQL

    private static let extremes: [Int64] = [.min, .max, -1, 0, 1 << 31, 1 << 53, -(1 << 40), 3]
    private static let columns = [
        "time_ns", "flags", "duration_ns", "cpu_ns", "change_back", "live_count", "channel_id", "registration_id",
        "owner_id", "call_site_id", "thread", "seq", "kind",
    ]
    private static let detailColumns = ["other_registration_id", "scope_id", "waits", "run_queue_ns", "seq"]
    private static let droppable = [
        "TABLE events", "TABLE event_details", "TABLE event_kinds", "TABLE sessions", "TABLE registrations", "TABLE channels", "TABLE objects", "TABLE strings",
        "TABLE call_sites", "TABLE scopes", "TABLE migrations", "TABLE delivery_policies", "TABLE removal_reasons", "VIEW event_log", "VIEW channel_names",
        "VIEW object_names", "VIEW call_site_names", "VIEW registration_log", "VIEW session_summary",
        "INDEX registrations_by_channel", "TRIGGER events_no_update", "TRIGGER event_details_no_update",
    ]
    private static let unlock = """
        DROP TRIGGER IF EXISTS events_no_update; DROP TRIGGER IF EXISTS events_no_delete;
        DROP TRIGGER IF EXISTS event_details_no_update; DROP TRIGGER IF EXISTS event_details_no_delete;
        PRAGMA ignore_check_constraints = 1;
        """

    /// Text that is not valid UTF-8 (or is, with control characters), as a SQL literal.
    private mutating func garbageText() -> String {
        let count = number(0...24)
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return "CAST(X'" + bytes.map { String(format: "%02X", $0) }.joined() + "' AS TEXT)"
    }

    /// One statement list that breaks something, and its name.
    private mutating func sqlMutation() -> (String, String) {
        let s = number(1...3)
        let r = number(1...80)
        let huge = pick(Self.extremes)
        let newSeq = "(SELECT coalesce(max(seq), 0) + 1 FROM events WHERE session_id = \(s))"
        let newTime = "(SELECT coalesce(max(time_ns), 0) + 1 FROM events WHERE session_id = \(s))"
        switch number(1...27) {
        case 1:
            return ("registration after its deliveries", """
                UPDATE registrations SET registered_seq = registered_seq + \(number(1...5000))
                WHERE session_id = \(s) AND id = (SELECT min(id) + \(number(0...5)) FROM registrations WHERE session_id = \(s))
                """)
        case 2:
            return ("delivery before its registration", """
                INSERT INTO events (session_id, seq, time_ns, kind, thread, flags, channel_id, registration_id, owner_id, duration_ns)
                VALUES (\(s), \(newSeq), \(newTime), (SELECT code FROM event_kinds WHERE name = 'delivered'), 1, 1, 1, 900, 1, 5);
                INSERT INTO registrations (session_id, id, channel_id, owner_id, call_site_id, options, expects_main, registered_seq)
                VALUES (\(s), 900, 1, 1, 1, 'new', 0, \(newSeq) + 3)
                """)
        case 3:
            return ("removal of an unknown registration", """
                INSERT INTO events (session_id, seq, time_ns, kind, thread, flags, channel_id, registration_id, owner_id, reason)
                VALUES (\(s), \(newSeq), \(newTime), (SELECT code FROM event_kinds WHERE name = 'removed'), 1, 1, \(pick([1, 77, -1])), \(pick([4242, 0, -5])), 1, 'explicit')
                """)
        case 4:
            let gap = pick([Int64(2), 7, 10_000, Int64.max - 10, 1 << 40])
            return ("seq gap of \(gap)", """
                INSERT INTO events (session_id, seq, time_ns, kind, thread, flags, channel_id, live_count, new_value)
                VALUES (\(s), (SELECT coalesce(max(seq), 0) FROM events WHERE session_id = \(s)) + \(gap), \(newTime), (SELECT code FROM event_kinds WHERE name = 'changed'), 1, 1, 1, 0, 'x')
                """)
        case 5:
            return ("holes in seq", Self.unlock + "DELETE FROM events WHERE session_id = \(s) AND seq % \(number(2...9)) = \(number(0...1))")
        case 6:
            return ("drop", "DROP \(pick(Self.droppable))")
        case 7:
            return ("bogus kind", Self.unlock + """
                UPDATE events SET kind = \(pick(["'bogus'", "99", "-1", "9", "0", "2", garbageText()]))
                WHERE session_id = \(s) AND seq = \(r)
                """)
        case 8:
            let column = pick(Self.columns)
            // Half the time on every event of a kind, so deliveries and changes get them too.
            let which = chance(50) ? "seq = \(r)" : "kind = (SELECT code FROM event_kinds WHERE name = '\(pick(["delivered", "changed", "registered", "removed"]))')"
            if chance(25) {
                let detail = pick(Self.detailColumns)
                return ("event_details.\(detail) = \(huge)", Self.unlock + """
                    INSERT OR IGNORE INTO event_details (session_id, seq) SELECT session_id, seq FROM events WHERE session_id = \(s) AND \(which);
                    UPDATE OR IGNORE event_details SET \(detail) = \(huge) WHERE session_id = \(s)
                    """)
            }
            return ("events.\(column) = \(huge) where \(which)", Self.unlock + "UPDATE OR IGNORE events SET \(column) = \(huge) WHERE session_id = \(s) AND \(which)")
        case 9:
            return ("garbage text", Self.unlock + """
                UPDATE events SET \(pick(["old_value", "new_value", "reason"])) = \(garbageText())
                WHERE session_id = \(s) AND seq = \(r);
                UPDATE event_details SET detail = \(garbageText()) WHERE session_id = \(s);
                UPDATE strings SET value = \(garbageText()) WHERE id = \(number(1...40))
                """)
        case 10:
            return ("3 MB value", Self.unlock + "UPDATE events SET new_value = printf('%.*c', 3000000, 'x') WHERE seq = \(r)")
        case 11:
            return ("sessions", pick([
                "DELETE FROM sessions WHERE id = \(s)",
                "UPDATE sessions SET start_ns = \(huge)",
                "UPDATE sessions SET clean_end = 1, ended_at = NULL",
                "UPDATE sessions SET started_at = \(garbageText()), ended_at = 'yesterday', label = \(garbageText())",
                "INSERT INTO sessions (id, label, process, pid, host, started_at, start_ns, library_version) VALUES (\(huge), 'x', 'p', 1, 'h', '', 0, '9')",
                "UPDATE sessions SET id = -id",
                "UPDATE sessions SET started_at = '0001-01-01T00:00:00Z', ended_at = '9999-12-31T23:59:59Z'",
            ]))
        case 12:
            return ("registrations", pick([
                "UPDATE registrations SET removed_seq = registered_seq - \(number(1...50))",
                // A name (schema 4 and older) or a code (schema 5) nobody defined; the other
                // is refused by the STRICT column's type.
                "UPDATE registrations SET removal_reason = \(pick(["'bogus'", "99", "-1"]))",
                "UPDATE registrations SET options = \(garbageText())",
                "UPDATE registrations SET channel_id = \(huge) WHERE id % 2 = 0",
                "UPDATE registrations SET owner_id = 999, call_site_id = 999, queue_id = 999, scope_id = 999, sender_id = 999",
                "UPDATE registrations SET registered_seq = \(huge)",
                "DELETE FROM registrations WHERE id % 3 = 0",
            ]).replacingOccurrences(of: "UPDATE", with: "PRAGMA ignore_check_constraints = 1; UPDATE"))
        case 13:
            return ("channels", pick([
                "PRAGMA ignore_check_constraints = 1; UPDATE channels SET policy = \(pick(["'bogus'", "7", "-1"]))",
                "UPDATE channels SET key_id = 999", "UPDATE channels SET subject_id = \(huge)",
                "DELETE FROM channels WHERE id = \(number(1...4))",
            ]))
        case 14:
            return ("strings", "DELETE FROM strings WHERE id = \(number(1...30))")
        case 15:
            return ("call sites", pick([
                "UPDATE call_sites SET line = \(huge)", "UPDATE call_sites SET file_id = 999", "DELETE FROM call_sites",
            ]))
        case 16:
            return ("objects", pick([
                "UPDATE objects SET type_id = 999", "UPDATE objects SET dealloc_seq = first_seq - 5",
                "DELETE FROM objects WHERE id % 2 = 1", "UPDATE objects SET first_seq = \(huge)",
            ]))
        case 17:
            return ("scopes", pick([
                "UPDATE scopes SET ended_seq = began_seq - 3", "DELETE FROM scopes", "UPDATE scopes SET name_id = 999",
            ]))
        case 18:
            return ("migrations", pick([
                "DELETE FROM migrations", "INSERT INTO migrations VALUES (99, 'future', 'x')",
            ]))
        case 19:
            return ("pragma", pick([
                "PRAGMA user_version = \(pick([2, 99, 0, -1, Int(Int32.max)]))",
                "PRAGMA application_id = \(pick([0, 1234, Int(JournalSchema.applicationID) + 1]))",
            ]))
        case 20:
            return ("schema", pick([
                "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, 'kind', 'kindx') WHERE name = 'events'",
                "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET rootpage = rootpage + 1 WHERE name = 'strings'",
                "ALTER TABLE events RENAME TO events_old",
                "ALTER TABLE registrations RENAME COLUMN options TO flags",
                "CREATE TABLE events_extra AS SELECT * FROM events; DROP TABLE events; ALTER TABLE events_extra RENAME TO events",
            ]))
        case 21:
            return ("events copied to another session", """
                INSERT INTO events (session_id, seq, time_ns, kind, thread, flags, channel_id, registration_id, owner_id,
                    change_back, duration_ns, cpu_ns, live_count, call_site_id, old_value, new_value, reason)
                SELECT \(number(4...9)), seq, time_ns, kind, thread, flags, channel_id, registration_id, owner_id,
                    change_back, duration_ns, cpu_ns, live_count, call_site_id, old_value, new_value, reason
                FROM events WHERE session_id = \(s)
                """)
        case 22:
            return ("time reversed", Self.unlock + "UPDATE events SET time_ns = \(number(0...1000)) - time_ns * \(number(1...1000)) WHERE session_id = \(s)")
        case 23:
            return ("deep nesting", Self.unlock + "UPDATE events SET flags = flags + (\(pick([50, 100_000, Int(Int32.max)])) << 4) WHERE seq BETWEEN \(r) AND \(r + 50)")
        case 24:
            return ("one channel", Self.unlock + "UPDATE events SET channel_id = \(number(1...3)) WHERE session_id = \(s)")
        case 25:
            return ("change_back past the session", Self.unlock + """
                UPDATE events SET change_back = \(pick([Int64.min, .max, -1, 1 << 40, -(1 << 40)])) WHERE session_id = \(s) AND change_back IS NOT NULL
                """)
        case 26:
            // ESC sequences (colour, window title), BEL, a C1 CSI, bidi override and isolate,
            // a zero-width joiner, and a combining mark after `,` and `:`: in names (types,
            // keys, call sites' files and functions, labels) and in values.
            let hostile = pick([
                "char(27) || '[31m' || char(7)", "char(27) || ']0;pwned' || char(7)", "char(155) || '2J'", "char(8238) || 'cba'",
                "char(8294) || 'x' || char(8297)", "',' || char(769) || 'title=x:' || char(769) || '9'", "char(13) || char(8) || char(127) || char(8203)",
            ])
            return ("control characters", Self.unlock + """
                UPDATE strings SET value = value || \(hostile) WHERE id % \(number(1...3)) = 0;
                UPDATE sessions SET label = \(hostile) || label;
                UPDATE events SET \(pick(["old_value", "new_value", "reason"])) = \(hostile) WHERE session_id = \(s);
                UPDATE event_details SET detail = \(hostile) WHERE session_id = \(s)
                """)
        default:
            return ("details of no event", """
                INSERT OR IGNORE INTO event_details (session_id, seq, other_registration_id, scope_id, waits, detail)
                VALUES (\(s), \(pick([Int64.min, 0, 1 << 40, .max])), \(huge), \(huge), \(huge), \(garbageText()))
                """)
        }
    }

    private mutating func applySQL(count: Int, _ path: String) {
        let mutations = (0..<count).map { _ in sqlMutation() }
        guard let database = try? SQLiteDatabase(path: path, mode: .readWrite) else { return }
        let triggers = (try? triggerDefinitions(database)) ?? [:]
        for (name, sql) in mutations {
            do {
                try database.execute(sql)
                applied.append("sql: \(name)")
            } catch {
                refused += 1
                applied.append("sql refused: \(name)")
            }
        }
        // Mutations of rows drop the append-only triggers to get past them; a journal
        // edited so is refused by its schema alone, so they are put back (unless dropping
        // one was the mutation) and the reader meets the bad rows.
        let present = (try? triggerDefinitions(database)) ?? [:]
        for (name, sql) in triggers.sorted(by: { $0.key < $1.key })
            where present[name] == nil && !mutations.contains(where: { $0.1 == "DROP TRIGGER \(name)" }) {
            try? database.execute(sql)
        }
    }

    private func triggerDefinitions(_ database: SQLiteDatabase) throws -> [String: String] {
        var result: [String: String] = [:]
        let statement = try database.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger'")
        while try statement.step() { result[statement.text(0)] = statement.text(1) }
        return result
    }

    // MARK: - Bytes

    private mutating func applyBytes(_ path: String, isWAL: Bool) {
        guard var bytes = FileManager.default.contents(atPath: path), !bytes.isEmpty else { return }
        let pageSize = 4096
        let name = isWAL ? "wal" : "main"
        // Frame headers of the WAL (24 bytes, after its 32-byte header) and page headers
        // of the file are where damage matters most.
        let structured = isWAL
            ? 32 + number(0...max(0, bytes.count / (pageSize + 24))) * (pageSize + 24) + number(0...23)
            : number(0...max(0, bytes.count / pageSize)) * pageSize + number(0...11)
        switch number(1...6) {
        case 1:
            let offset = pick([number(0..<bytes.count), (number(0...max(0, bytes.count / pageSize))) * pageSize, 100, 32])
            bytes = bytes.prefix(min(offset, bytes.count))
            applied.append("\(name): truncated at \(offset)")
        case 2:
            let flips = number(1...16)
            for _ in 0..<flips {
                let offset = chance(50) ? number(0..<bytes.count) : min(structured, bytes.count - 1)
                bytes[offset] ^= UInt8(number(1...255))
            }
            applied.append("\(name): \(flips) bytes flipped")
        case 3:
            let page = number(0...max(0, (bytes.count - 1) / pageSize))
            let start = page * pageSize, end = min(bytes.count, start + pageSize)
            let fill = number(0...2)
            for index in start..<end {
                bytes[index] = fill == 0 ? 0 : fill == 1 ? 0xFF : UInt8.random(in: 0...255, using: &generator)
            }
            applied.append("\(name): page \(page + 1) overwritten (\(["zeros", "0xFF", "random"][fill]))")
        case 4:
            for index in 0..<min(isWAL ? 32 : 100, bytes.count) { bytes[index] = 0 }
            applied.append("\(name): header zeroed")
        case 5 where !isWAL && bytes.count >= 64:
            let version = UInt32(number(2...Int(Int32.max)))
            for (index, shift) in [24, 16, 8, 0].enumerated() { bytes[60 + index] = UInt8((version >> UInt32(shift)) & 0xFF) }
            applied.append("main: user_version \(version)")
        default:
            let extra = (0..<number(1...5000)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            bytes.append(contentsOf: extra)
            applied.append("\(name): \(extra.count) bytes appended")
        }
        _ = FileManager.default.createFile(atPath: path, contents: bytes)
    }
}
