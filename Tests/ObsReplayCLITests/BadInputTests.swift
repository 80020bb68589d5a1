import Foundation
import JournalFixtures
import ObservationJournal
import Testing

/// Every way a file can fail to be a usable journal, the command that meets it, and the
/// one line it must print. Paths are relative to the test's directory.
let badInputs: [(name: String, arguments: [String], stderr: String)] = [
    ("missing.sqlite", ["sessions"], "error: DIR/missing.sqlite: no such file\n"),
    ("folder", ["timeline"], "error: DIR/folder: not a regular file\n"),
    ("empty.sqlite", ["diagnose"], "error: DIR/empty.sqlite: empty file, not a journal\n"),
    ("notes.txt", ["replay", "--at", "1"], "error: DIR/notes.txt: not a journal (not an SQLite database)\n"),
    ("truncated.sqlite", ["timeline"], "error: DIR/truncated.sqlite: journal is damaged (database disk image is malformed)\n"),
    ("truncated.sqlite", ["diagnose", "--all"], "error: DIR/truncated.sqlite: journal is damaged (database disk image is malformed)\n"),
    ("truncated.sqlite", ["export", "--what", "events", "--format", "csv"], "error: DIR/truncated.sqlite: journal is damaged (database disk image is malformed)\n"),
    ("header.sqlite", ["stats"], "error: DIR/header.sqlite: journal is damaged (database disk image is malformed)\n"),
    ("foreign.sqlite", ["sessions"], "error: DIR/foreign.sqlite: not a journal (an SQLite database of another application, application_id 1234)\n"),
    ("plain.sqlite", ["check"], "error: DIR/plain.sqlite: not a journal (not an SQLite database)\n"),
    ("newer.sqlite", ["timeline"], "error: DIR/newer.sqlite: journal schema 99 is newer than this version supports (1); upgrade ObservationJournal\n"),
    ("newer.sqlite", ["migrate"], "error: DIR/newer.sqlite: journal schema 99 is newer than this version supports (1); upgrade ObservationJournal\n"),
    ("demo.sqlite", ["timeline", "--session", "9"], "error: DIR/demo.sqlite: no session 9\n"),
    ("demo.sqlite", ["diagnose", "--session", "3"], "error: DIR/demo.sqlite: no session 3\n"),
    ("demo.sqlite", ["export", "--what", "events", "--format", "csv", "--session", "7"], "error: DIR/demo.sqlite: no session 7\n"),
    ("demo.sqlite", ["timeline", "--session", "1", "--from", "11"], "error: DIR/demo.sqlite: seq 11 is beyond the end of session 1 (last seq 10)\n"),
    ("demo.sqlite", ["replay", "--session", "1", "--at", "11"], "error: DIR/demo.sqlite: seq 11 is beyond the end of session 1 (last seq 10)\n"),
    ("nosessions.sqlite", ["timeline"], "error: DIR/nosessions.sqlite: the journal holds no sessions\n"),
]

/// Writes every bad file of `badInputs` into `directory`.
func writeBadInputs(in directory: URL) throws {
    let demo = try demoJournal(in: directory)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: demo))
    try FileManager.default.createDirectory(at: directory.appendingPathComponent("folder"), withIntermediateDirectories: false)
    try Data().write(to: directory.appendingPathComponent("empty.sqlite"))
    try Data("label,seq\nplayer,1\n".utf8).write(to: directory.appendingPathComponent("notes.txt"))
    try bytes.prefix(bytes.count / 2).write(to: directory.appendingPathComponent("truncated.sqlite"))
    try bytes.prefix(60).write(to: directory.appendingPathComponent("header.sqlite"))
    let foreign = try SQLiteDatabase(path: directory.appendingPathComponent("foreign.sqlite").path, mode: .readWriteCreate)
    try foreign.execute("PRAGMA application_id = 1234; CREATE TABLE t (x); INSERT INTO t VALUES (1);")
    let plain = try SQLiteDatabase(path: directory.appendingPathComponent("plain.sqlite").path, mode: .readWriteCreate)
    try plain.execute("CREATE TABLE events (seq INTEGER); INSERT INTO events VALUES (1);")
    let newerPath = directory.appendingPathComponent("newer.sqlite")
    try bytes.write(to: newerPath)
    try SQLiteDatabase(path: newerPath.path, mode: .readWrite).execute("PRAGMA user_version = 99")
    try JournalFixture(path: directory.appendingPathComponent("nosessions.sqlite").path).finish()
}

@Test func badInputGetsOneLineAndExit2AndTheFileIsUntouched() throws {
    let directory = try temporaryDirectory()
    try writeBadInputs(in: directory)
    for input in badInputs {
        let path = directory.appendingPathComponent(input.name).path
        let before = try? Data(contentsOf: URL(fileURLWithPath: path))
        let arguments = [input.arguments[0], path] + input.arguments.dropFirst()
        let result = try obsreplay(arguments)
        #expect(
            result == RunResult(stdout: "", stderr: input.stderr.replacingOccurrences(of: "DIR", with: directory.path), status: 2),
            "obsreplay \(input.arguments.joined(separator: " ")) on \(input.name)"
        )
        #expect((try? Data(contentsOf: URL(fileURLWithPath: path))) == before, "\(input.name) changed")
        #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
    }
}

@Test func aDamagedPageIsReportedByCheck() throws {
    let directory = try temporaryDirectory()
    let path = try demoJournal(in: directory)
    var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    // Overwrite page 2 (a table's root page) with garbage: the header still validates.
    for index in 4096..<8192 { bytes[index] = 0xA5 }
    try bytes.write(to: URL(fileURLWithPath: path))
    let result = try obsreplay(["check", path])
    #expect(result.status == 1 || result.status == 2)
    #expect(result.status == 1 ? result.stdout.hasSuffix("damaged\n") : result.stderr.hasPrefix("error: \(path): journal is damaged ("))
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
}

@Test func readCommandsLeaveAWALJournalsBytesUnchanged() throws {
    let directory = try temporaryDirectory()
    let path = try demoJournal(in: directory, wal: true)
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    for arguments in [
        ["sessions"], ["timeline", "--session", "1"], ["replay", "--at", "2"], ["diagnose", "--all"], ["stats"], ["check"],
        ["export", "--what", "findings", "--format", "jsonl"], ["migrate"],
    ] {
        let result = try obsreplay([arguments[0], path] + arguments.dropFirst())
        #expect(result.status == (arguments[0] == "diagnose" ? 1 : 0), "\(arguments)")
        #expect(!result.stdout.isEmpty || arguments[0] == "migrate")
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
}

@Test func readsAJournalWhileItIsBeingRecorded() throws {
    let path = try temporaryDirectory().appendingPathComponent("live.sqlite").path
    let fixture = try JournalFixture(path: path, wal: true)
    let s = try fixture.session(label: "recording", clean: false)
    let rate = try s.channel(try s.object("Player"), "rate")
    try s.register(rate, owner: try s.object("Screen"), at: "Screen.swift:5")
    try s.post(rate, old: "1", new: "2")
    try fixture.commit()
    // Written but not committed: a reader sees the committed prefix and is not blocked.
    try s.post(rate, old: "2", new: "3")
    let result = try obsreplay(["timeline", path, "--kind", "changed"])
    #expect(result.status == 0)
    #expect(result.stdout.split(separator: "\n").count == 1)
    #expect(result.stdout.contains("1 → 2"))
    let diagnosis = try obsreplay(["diagnose", path, "--fail-on", "warning"])
    #expect(diagnosis.status == 1)
    #expect(diagnosis.stdout.hasPrefix("warning[OJ011] unclean-session (session 1): Session 1 (\"recording\") did not end cleanly; its last recorded event is seq 3 (delivered Player#1.rate).\n"))
    try fixture.finish()
}

@Test func escapeSequencesFromAJournalNeverReachTheTerminal() throws {
    let path = try temporaryDirectory().appendingPathComponent("hostile.sqlite").path
    let fixture = try JournalFixture(path: path)
    let s = try fixture.session(label: "evil\u{1B}]0;owned\u{07}")
    let player = try s.object("Player\u{1B}[2J")
    let key = try s.channel(player, "title\u{202E}txt.exe")
    try s.register(key, owner: try s.object("Screen\r\nFAKE LINE"), at: "Screen.swift:5")
    try s.post(key, old: "a", new: "\u{1B}[31mred\u{9B}")
    try fixture.finish()
    for arguments in [["sessions", path], ["timeline", path], ["replay", path, "--at", "3"], ["diagnose", path], ["stats", path]] {
        let result = try obsreplay(arguments)
        let scalars = (result.stdout + result.stderr).unicodeScalars
        #expect(!scalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(arguments[0])")
        #expect(!scalars.contains { (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" }, "\(arguments[0])")
    }
    let timeline = try obsreplay(["timeline", path])
    #expect(timeline.stdout.contains("Player\\u{1B}[2J#1.title\\u{202E}txt.exe  Screen\\r\\nFAKE LINE#2"))
    #expect(timeline.stdout.contains("a → \\u{1B}[31mred\\u{9B}"))
    #expect(try obsreplay(["sessions", path]).stdout.contains("evil\\u{1B}]0;owned\\u{7}"))
    // Data formats keep the value, escaped the way the format escapes.
    #expect(try obsreplay(["timeline", path, "--json", "--kind", "changed"]).stdout.contains("\"new_value\":\"\\u001b[31mred\\u009b\""))
}
