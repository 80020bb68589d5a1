import Foundation
import JournalFixtures
import Testing
import TestSupport

/// Refusals that quote a number say the number the file holds: a block whose `last_seq` is
/// text (its STRICT type bypassed) was refused as "not its last_seq 0", and a session whose
/// only block starts at seq −2⁶³ was said to end at "last seq 0".
@Suite(.tags(.childProcess)) struct StoredNumberTests {
    /// Makes `table` a non-STRICT table for `sql` and STRICT again after it, its schema text
    /// restored exactly (as a tool writing the file directly could leave it).
    static func bypassingStrict(_ table: String, _ sql: String) -> String {
        """
        PRAGMA writable_schema = ON;
        UPDATE sqlite_schema SET sql = replace(sql, ') STRICT, WITHOUT ROWID', ') WITHOUT ROWID') WHERE name = '\(table)';
        PRAGMA writable_schema = RESET;
        \(sql);
        PRAGMA writable_schema = ON;
        UPDATE sqlite_schema SET sql = replace(sql, ') WITHOUT ROWID', ') STRICT, WITHOUT ROWID') WHERE name = '\(table)';
        PRAGMA writable_schema = RESET;
        """
    }

    static let notIntegers: [(value: String, holds: String)] = [
        ("'300x'", "the text \"300x\""), ("301.5", "the real number 301.5"), ("x'0102'", "a blob of 2 bytes"),
    ]

    @Test(arguments: notIntegers.indices) func aLastSeqThatIsNotAnIntegerIsRefusedSayingWhatItHolds(_ index: Int) throws {
        let damage = Self.notIntegers[index]
        let scratch = try ScratchDirectory("stored-numbers")
        let path = scratch.url.appendingPathComponent("blocks.sqlite").path
        try EventBlockTests.journal(at: path, schema: 5)
        try JournalFixture.edit(path, Self.bypassingStrict("event_blocks", "UPDATE event_blocks SET last_seq = \(damage.value) WHERE first_seq = 257"))
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        // `export` has written its header when it meets the block: its stdout is not checked.
        for arguments in [["timeline", path], ["diagnose", path], ["export", path, "--what", "events", "--format", "csv"]] {
            let result = try obsreplay(arguments)
            #expect(result.stderr == """
                error: \(path): refused: damaged event block (session 1, first seq 257): its last_seq is not an integer: it holds \(damage.holds)

                """, "\(arguments[0])")
            #expect(result.status == 2, "\(arguments[0])")
        }
        #expect(try obsreplay(["check", path]).stdout.contains("integrity         FAILED\n    non-INTEGER value in event_blocks.last_seq\n"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func aSessionWhoseBlockStartsAtTheSmallestSeqEndsThere() throws {
        let scratch = try ScratchDirectory("stored-numbers")
        let path = scratch.url.appendingPathComponent("smallest.sqlite").path
        let fixture = try JournalFixture(path: path)
        let s = try fixture.session(label: "one event")
        try s.change(try s.channel(try s.object("Player"), "rate"), old: "1", new: "2")
        try fixture.finish()
        try JournalFixture.edit(path, "UPDATE event_packs SET first_seq = -9223372036854775808")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let beyond = "error: \(path): seq 2 is beyond the end of session 1 (last seq -9223372036854775808)\n"
        #expect(try obsreplay(["replay", path, "--at", "2"]) == RunResult(stdout: "", stderr: beyond, status: 2))
        #expect(try obsreplay(["timeline", path, "--from", "2"]) == RunResult(stdout: "", stderr: beyond, status: 2))
        #expect(try obsreplay(["sessions", path, "--json"]).stdout.contains("\"last_seq\":-9223372036854775808,"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
