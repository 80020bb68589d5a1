import Foundation
import JournalFixtures
import Testing
import TestSupport

/// Messages that quote a number say the number the file holds: a session whose only event
/// is at seq −2⁶³ was said to end at "last seq 0".
@Suite(.tags(.childProcess)) struct StoredNumberTests {
    @Test func aSessionWhoseEventIsAtTheSmallestSeqEndsThere() throws {
        let scratch = try ScratchDirectory("stored-numbers")
        let path = scratch.url.appendingPathComponent("smallest.sqlite").path
        let fixture = try JournalFixture(path: path)
        let s = try fixture.session(label: "one event")
        try s.change(try s.channel(try s.object("Player"), "rate"), old: "1", new: "2")
        try fixture.finish()
        try JournalFixture.edit(path, "UPDATE events SET seq = -9223372036854775808")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let beyond = "error: \(path): seq 2 is beyond the end of session 1 (last seq -9223372036854775808)\n"
        #expect(try obsreplay(["replay", path, "--at", "2"]) == RunResult(stdout: "", stderr: beyond, status: 2))
        #expect(try obsreplay(["timeline", path, "--from", "2"]) == RunResult(stdout: "", stderr: beyond, status: 2))
        #expect(try obsreplay(["sessions", path, "--json"]).stdout.contains("\"last_seq\":-9223372036854775808,"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
