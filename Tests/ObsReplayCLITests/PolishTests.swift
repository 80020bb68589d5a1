import Foundation
import Testing

// issue 15 §5: what people expect of a command-line tool, end to end.

@Test func timelineOwnerTakesTheTypeIdSpellingTheToolPrints() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = try demoJournal(in: directory)
    let seqs = { (owner: String) throws -> [String] in
        try obsreplay(["timeline", path, "--session", "1", "--owner", owner]).stdout.split(separator: "\n").map {
            String($0.split(separator: " ").first ?? "")
        }
    }
    #expect(try seqs("VideoScreen#3") == ["6", "8", "10"])
    #expect(try seqs("VideoScreen") == ["6", "8", "10"])
    #expect(try seqs("FloatingWindow#2") == ["1", "3", "5"])
    #expect(try seqs("VideoScreen#2") == [])
    #expect(try seqs("#3") == [])
}
