import Foundation
import JournalFixtures
import ObservationJournal
import Testing
import TestSupport

/// Schema 5's event blocks and schema 6's packs through the CLI: rows, blocks and packs
/// read as one stream, and every damaged block or pack refused with one line, exit 2 and
/// the file unchanged.
@Suite(.tags(.childProcess)) struct EventBlockTests {
    /// One session of 301 events: a registration (seq 1) and 150 posts each delivered to
    /// it (seqs 2…301). Packed, it is two blocks (schema 5) or packs (schema 6): seqs
    /// 1…256 and 257…301.
    static func journal(at path: String, schema: Int = 6, packed: Bool = true) throws {
        let fixture = try JournalFixture(path: path, schemaVersion: schema)
        let s = try fixture.session(label: "blocks")
        let rate = try s.channel(try s.object("Player"), "rate")
        try s.register(rate, owner: try s.object("Screen"), at: "Screen.swift:5")
        for value in 0..<150 { try s.post(rate, old: "\(value)", new: "\(value + 1)\u{1B}\"\\") }
        try fixture.finish(packed: packed)
    }

    /// A journal whose events 1…100 are schema-5 blocks and 201…301 schema-6 packs (made
    /// by SQLite's json_group_array from the format's description, in groups of 50, a
    /// pack's times against a base of 1000) and 101…200 rows reads exactly as the same
    /// journal of rows only, in every command that streams events, and in the view.
    @Test func rowsBlocksAndPacksInterleavedReadAsOneStream() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let rows = directory.appendingPathComponent("rows.sqlite").path
        let mixed = directory.appendingPathComponent("mixed.sqlite").path
        try Self.journal(at: rows, packed: false)
        try Self.journal(at: mixed, packed: false)
        let columns = "seq, time_ns, kind, thread, is_main, channel_id, registration_id, owner_id, other_registration_id, call_site_id, scope_id, depth, live_count, duration_ns, is_prior, old_value, new_value, reason, detail, main_queue, cpu_ns, waits, change_seq"
        let elements = """
            time_ns - 1000, kind, thread, is_main, main_queue, channel_id, registration_id, owner_id, duration_ns, cpu_ns,
            seq - change_seq, call_site_id, live_count, new_value, old_value, reason, scope_id, other_registration_id, waits,
            NULLIF(depth, 0), NULLIF(is_prior, 0), detail
            """
        let viewBefore = try TestSupport.rows(rows, "SELECT * FROM events ORDER BY session_id, seq")
        try JournalFixture.edit(mixed, """
            INSERT INTO event_blocks (session_id, first_seq, last_seq, event_count, body)
            SELECT session_id, MIN(seq), MAX(seq), COUNT(*), json_group_array(json(e)) FROM (
              SELECT session_id, seq, (seq - 1) / 50 AS b, json_array(\(columns)) AS e FROM event_rows
              WHERE seq <= 100 ORDER BY session_id, seq)
            GROUP BY session_id, b;
            INSERT INTO event_packs (session_id, first_seq, event_count, base_time_ns, body)
            SELECT session_id, MIN(seq), COUNT(*), 1000, json_group_array(json(e)) FROM (
              SELECT session_id, seq, (seq - 1) / 50 AS b, json_array(\(elements)) AS e FROM event_rows
              WHERE seq > 200 ORDER BY session_id, seq)
            GROUP BY session_id, b;
            DELETE FROM event_rows WHERE seq NOT BETWEEN 101 AND 200;
            """)
        let database = try SQLiteDatabase(path: mixed, mode: .readOnly)
        #expect(try database.scalarInt("SELECT count(*) FROM event_rows") == 100)
        #expect(try database.scalarInt("SELECT count(*) FROM event_blocks") == 2)
        #expect(try database.scalarInt("SELECT count(*) FROM event_packs") == 3)
        #expect(try TestSupport.rows(mixed, "SELECT * FROM events ORDER BY session_id, seq") == viewBefore)
        for arguments in [["timeline"], ["export", "--what", "events", "--format", "jsonl"], ["diagnose", "--all", "--fail-on", "never"],
                          ["stats"], ["check"], ["replay", "--at", "150"], ["timeline", "--from", "95", "--to", "205", "--kind", "changed"]] {
            let expected = try obsreplay([arguments[0], rows] + arguments.dropFirst())
            let actual = try obsreplay([arguments[0], mixed] + arguments.dropFirst())
            #expect(actual.status == expected.status, "\(arguments)")
            #expect(actual.stderr == expected.stderr, "\(arguments)")
            // The files' sizes differ (stats' first line); nothing else may.
            func withoutSize(_ text: String) -> String {
                text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("file size") }.joined(separator: "\n")
            }
            #expect(withoutSize(actual.stdout.replacingOccurrences(of: mixed, with: rows)) == withoutSize(expected.stdout), "\(arguments)")
        }
    }

    /// Each damage of a schema-5 block, by the SQL that makes it, and the line every
    /// command prints for it.
    static let damages: [(name: String, sql: String, what: String)] = [
        ("truncated", "UPDATE event_blocks SET body = substr(body, 1, length(body) / 2) WHERE first_seq = 257",
         "(session 1, first seq 257): the body ends inside event 23 (truncated)"),
        ("string seq", "UPDATE event_blocks SET body = replace(body, '[257,', '[\"257\",') WHERE first_seq = 257",
         "(session 1, first seq 257): event 1: seq is a string, not an integer (byte 2)"),
        ("first_seq lie", "UPDATE event_blocks SET first_seq = 250 WHERE first_seq = 257",
         "(session 1, first seq 250): its first event has seq 257, not its first_seq 250"),
        ("last_seq lie", "UPDATE event_blocks SET last_seq = 300 WHERE first_seq = 257",
         "(session 1, first seq 257): its last event has seq 301, not its last_seq 300"),
        ("event_count lie", "UPDATE event_blocks SET event_count = 44 WHERE first_seq = 257",
         "(session 1, first seq 257): its event_count is 44, its body holds 45 events"),
        ("overlap", """
            INSERT INTO event_blocks SELECT session_id, 250, 250, 1, '[' || json_extract(body, '$[249]') || ']'
            FROM event_blocks WHERE first_seq = 1
            """, "(session 1, first seq 250): its event seq 250 is not after seq 256 of the block before it"),
        ("row repeated", """
            INSERT INTO event_rows (session_id, seq, time_ns, kind, thread, is_main) VALUES (1, 5, 0, 4, 1, 1)
            """, "(session 1, first seq 1): its event seq 5 is also a row of event_rows"),
        ("15 MiB", "UPDATE event_blocks SET body = '[' || printf('%.*c', 15728640, ' ') || substr(body, 2) WHERE first_seq = 257",
         "(session 1, first seq 257): its body is 15733382 bytes, longer than the 4194304 a block may hold"),
        ("deep", "UPDATE event_blocks SET body = printf('%.*c', 100000, '[') WHERE first_seq = 257",
         "(session 1, first seq 257): event 1: seq is not an integer or null (byte 2)"),
    ]

    /// Blocks whose event_count is Int64.max: SQLite's SUM over them stopped every
    /// command that lists sessions with "integer overflow" and the statement's text.
    /// Now the lie is refused where it stands, by every command, in the one line of a
    /// damaged block.
    /// Schema 5's blocks and schema 6's packs alike.
    @Test(arguments: [(5, "event_blocks"), (6, "event_packs")])
    func eventCountsThatOverflowTheirSumAreRefusedInOneLine(schema: Int, table: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("overflow.sqlite").path
        try Self.journal(at: path, schema: schema)
        try JournalFixture.edit(path, "UPDATE \(table) SET event_count = 9223372036854775807")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        for arguments in [["sessions", path], ["stats", path], ["timeline", path], ["diagnose", path], ["check", path],
                          ["replay", path, "--at", "5"], ["report", path, "-o", "-"],
                          ["export", path, "--what", "registrations", "--format", "csv"]] {
            let result = try obsreplay(arguments)
            #expect(result.status == 2, "\(arguments[0])")
            #expect(result.stderr == """
                error: \(path): refused: damaged event block (session 1, first seq 1): event_count 9223372036854775807 is not between 1 and 256

                """, "\(arguments[0])")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test(arguments: damages.indices) func damagedBlockIsRefusedInOneLine(_ index: Int) throws {
        try refuses(Self.damages[index], schema: 5)
    }

    /// Each damage of a schema-6 pack (the body's grammar is a block's, refused as above),
    /// and of a pack against the blocks and rows around it.
    static let packDamages: [(name: String, sql: String, what: String)] = [
        ("truncated", "UPDATE event_packs SET body = substr(body, 1, length(body) / 2) WHERE first_seq = 257",
         "(session 1, first seq 257): the body ends inside event 23 (truncated)"),
        ("string time", "UPDATE event_packs SET body = '[[\"0\"' || substr(body, 4) WHERE first_seq = 257",
         "(session 1, first seq 257): event 1: time_ns is a string, not an integer (byte 2)"),
        ("first_seq lie", "UPDATE event_packs SET first_seq = 250 WHERE first_seq = 257",
         "(session 1, first seq 250): its event seq 250 is not after seq 256 of the block before it"),
        ("event_count lie", "UPDATE event_packs SET event_count = 44 WHERE first_seq = 257",
         "(session 1, first seq 257): its event_count is 44, its body holds 45 events"),
        ("base overflow", "UPDATE event_packs SET base_time_ns = 9223372036854775807 WHERE first_seq = 257",
         "(session 1, first seq 257): event 2: base_time_ns 9223372036854775807 + 1000000 does not fit a 64-bit integer"),
        ("first_seq overflow", "UPDATE event_packs SET first_seq = 9223372036854775807 WHERE first_seq = 257",
         "(session 1, first seq 9223372036854775807): first_seq 9223372036854775807 + event_count 45 - 1 does not fit a 64-bit integer"),
        ("old block overlaps", """
            INSERT INTO event_blocks (session_id, first_seq, last_seq, event_count, body)
            VALUES (1, 300, 300, 1, '[[300,0,4,1,1,null,null,null,null,null,null,0,null,null,0]]')
            """, "(session 1, first seq 300): its event seq 300 is not after seq 301 of the block before it"),
        ("row repeated", """
            INSERT INTO event_rows (session_id, seq, time_ns, kind, thread, is_main) VALUES (1, 260, 0, 4, 1, 1)
            """, "(session 1, first seq 257): its event seq 260 is also a row of event_rows"),
        ("15 MiB", "UPDATE event_packs SET body = '[' || printf('%.*c', 15728640, ' ') || substr(body, 2) WHERE first_seq = 257",
         "(session 1, first seq 257): its body is 15731146 bytes, longer than the 4194304 a block may hold"),
        ("deep", "UPDATE event_packs SET body = printf('%.*c', 100000, '[') WHERE first_seq = 257",
         "(session 1, first seq 257): event 1: time_ns is not an integer or null (byte 2)"),
    ]

    @Test(arguments: packDamages.indices) func damagedPackIsRefusedInOneLine(_ index: Int) throws {
        try refuses(Self.packDamages[index], schema: 6)
    }

    /// Every command that reads events refuses the journal with the damage's one line
    /// and exit 2, and leaves the file as it was.
    func refuses(_ damage: (name: String, sql: String, what: String), schema: Int) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("damaged.sqlite").path
        try Self.journal(at: path, schema: schema)
        try JournalFixture.edit(path, damage.sql)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        for arguments in [["diagnose", path], ["timeline", path], ["check", path], ["export", path, "--what", "events", "--format", "csv"]] {
            let result = try obsreplay(arguments)
            #expect(result.status == 2, "\(damage.name) \(arguments[0])")
            #expect(result.stderr == "error: \(path): refused: damaged event block \(damage.what)\n", "\(damage.name) \(arguments[0])")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
