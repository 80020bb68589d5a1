import Foundation
import JournalFixtures
import ObservationJournal
import Testing
import TestSupport

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
    ("newer.sqlite", ["timeline"], "error: DIR/newer.sqlite: journal schema 99 is newer than this version supports (8); upgrade ObservationJournal\n"),
    ("newer.sqlite", ["migrate"], "error: DIR/newer.sqlite: journal schema 99 is newer than this version supports (8); upgrade ObservationJournal\n"),
    ("demo.sqlite", ["timeline", "--session", "9"], "error: DIR/demo.sqlite: no session 9\n"),
    ("demo.sqlite", ["diagnose", "--session", "3"], "error: DIR/demo.sqlite: no session 3\n"),
    ("demo.sqlite", ["export", "--what", "events", "--format", "csv", "--session", "7"], "error: DIR/demo.sqlite: no session 7\n"),
    ("demo.sqlite", ["timeline", "--session", "1", "--from", "11"], "error: DIR/demo.sqlite: seq 11 is beyond the end of session 1 (last seq 10)\n"),
    ("demo.sqlite", ["replay", "--session", "1", "--at", "11"], "error: DIR/demo.sqlite: seq 11 is beyond the end of session 1 (last seq 10)\n"),
    ("nosessions.sqlite", ["timeline"], "error: DIR/nosessions.sqlite: the journal holds no sessions\n"),
    // Journals from elsewhere: a schema changed by another tool is refused before any query.
    ("endless.sqlite", ["check"], "error: DIR/endless.sqlite: refused: 'events' is a view, where journal schema 8 has a table (the schema was changed outside ObservationJournal)\n"),
    ("endless.sqlite", ["diagnose"], "error: DIR/endless.sqlite: refused: 'events' is a view, where journal schema 8 has a table (the schema was changed outside ObservationJournal)\n"),
    ("trigger.sqlite", ["sessions"], "error: DIR/trigger.sqlite: refused: it has a trigger 'sessions_spy' that journal schema 8 does not have (the schema was changed outside ObservationJournal)\n"),
    ("altered.sqlite", ["timeline"], "error: DIR/altered.sqlite: refused: the table 'event_details' is not defined as journal schema 8 defines it (the schema was changed outside ObservationJournal)\n"),
    ("noindex.sqlite", ["stats"], "error: DIR/noindex.sqlite: refused: the index 'registrations_by_channel' of journal schema 8 is missing (the schema was changed outside ObservationJournal)\n"),
    ("stat1.sqlite", ["stats"], "error: DIR/stat1.sqlite: refused: it holds query planner statistics (sqlite_stat1) that ObservationJournal never writes; remove them with: sqlite3 DIR/stat1.sqlite 'DELETE FROM sqlite_stat1'\n"),
    ("stat1.sqlite", ["migrate"], "error: DIR/stat1.sqlite: refused: it holds query planner statistics (sqlite_stat1) that ObservationJournal never writes; remove them with: sqlite3 DIR/stat1.sqlite 'DELETE FROM sqlite_stat1'\n"),
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
    func edited(_ name: String, _ sql: String) throws {
        let path = directory.appendingPathComponent(name)
        try bytes.write(to: path)
        try SQLiteDatabase(path: path.path, mode: .readWrite).execute(sql)
    }
    // `events` as a view over an endless recursive query: every command hung on it.
    try edited("endless.sqlite", """
        ALTER TABLE events RENAME TO events_kept;
        CREATE VIEW events AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT r.* FROM events_kept r, n;
        """)
    try edited("trigger.sqlite", "CREATE TRIGGER sessions_spy AFTER INSERT ON sessions BEGIN SELECT 1; END;")
    try edited("altered.sqlite", "ALTER TABLE event_details ADD COLUMN note TEXT")
    try edited("noindex.sqlite", "DROP INDEX registrations_by_channel")
    // Statistics that make the planner scan where it should seek.
    try edited("stat1.sqlite", "ANALYZE; UPDATE sqlite_stat1 SET stat = '1000000000 1000000000 1000000000'")
}

@Test(.tags(.childProcess)) func badInputGetsOneLineAndExit2AndTheFileIsUntouched() throws {
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

@Test(.tags(.childProcess)) func aDamagedPageIsReportedByCheck() throws {
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

@Test(.tags(.childProcess)) func readCommandsLeaveAWALJournalsBytesUnchanged() throws {
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

@Test(.tags(.childProcess)) func readsAJournalWhileItIsBeingRecorded() throws {
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

@Test(.tags(.childProcess)) func escapeSequencesFromAJournalNeverReachTheTerminal() throws {
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

/// A session that ended cleanly without a single event has an empty timeline and an
/// empty state at its start (seq 1); both used to exit 2 as if the journal were unusable.
@Test(.tags(.childProcess)) func aSessionWithNoEventsHasAnEmptyTimelineAndState() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("quiet.sqlite").path
    let fixture = try JournalFixture(path: path)
    _ = try fixture.session(label: "quiet")
    try fixture.finish()
    #expect(try obsreplay(["timeline", path]) == RunResult(stdout: "", stderr: "", status: 0))
    #expect(try obsreplay(["timeline", path, "--json"]) == RunResult(stdout: "", stderr: "", status: 0))
    #expect(try obsreplay(["replay", path, "--at", "1"]) == RunResult(
        stdout: "session 1 at seq 1 (+0.000s)\n\nno live registrations\n\nno change at or before seq 1\n", stderr: "", status: 0
    ))
    #expect(try obsreplay(["replay", path, "--at", "1", "--json"]).stdout
        == "{\"session\":1,\"at\":1,\"time_ns\":0,\"channels\":[],\"change\":null,\"what_if\":null}\n")
    #expect(try obsreplay(["replay", path, "--at", "2"]) == RunResult(
        stdout: "", stderr: "error: \(path): seq 2 is beyond the end of session 1 (last seq 0)\n", status: 2
    ))
}

/// Journals are WAL files, and reading one needs a `-shm` file beside it: in a directory
/// the reader cannot write (another user's, a read-only mount), every read failed. A
/// journal with no `-wal` file is now read as it is; one with a `-wal` but no `-shm`
/// cannot be read there without missing what the `-wal` holds, and the error says so.
/// Run as root, the commands run as `nobody` (through `setpriv`), for whom the directory
/// is not writable, as it is not for the test's own user otherwise. `nobody` must be able
/// to reach the directory: under a `TMPDIR` of mode 0700 (macOS's per-user one, many CI
/// runners') it cannot, and the test is skipped with that reason instead of failing.
@Test(.tags(.childProcess)) func aJournalInADirectoryTheReaderCannotWriteIsReadOrRefusedPrecisely() throws {
    let directory = try temporaryDirectory()
    defer {
        chmod(directory.path, 0o755)
        try? FileManager.default.removeItem(at: directory)
    }
    if getuid() == 0, !isSearchable(directory.path, byUID: 65534, gid: 65534) {
        try Test.cancel("uid 65534 cannot reach \(directory.path) (a directory above it denies search); set TMPDIR to a directory others may traverse to run this test")
    }
    let closed = try demoJournal(in: directory, wal: true)
    let live = directory.appendingPathComponent("live.sqlite").path
    let crashed = directory.appendingPathComponent("crashed.sqlite").path
    do {
        let fixture = try JournalFixture(path: live, wal: true)
        _ = try fixture.session(label: "recording", clean: false)
        try fixture.commit()
        // A copy as a crash leaves it: the -wal without the -shm.
        try FileManager.default.copyItem(atPath: live, toPath: crashed)
        try FileManager.default.copyItem(atPath: live + "-wal", toPath: crashed + "-wal")
        try fixture.finish()
    }
    for file in [closed, crashed, crashed + "-wal"] { chmod(file, 0o644) }
    let expected = try obsreplay(["sessions", closed])
    #expect(expected.status == 0)
    chmod(directory.path, 0o555)
    func asReader(_ arguments: [String]) throws -> RunResult {
        guard getuid() == 0 else { return try obsreplay(arguments) }
        return try run(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            ["--reuid=65534", "--regid=65534", "--clear-groups", try obsreplayBinary().path] + arguments
        )
    }
    #expect(try asReader(["sessions", closed]) == expected)
    #expect(try asReader(["diagnose", closed, "--all"]).status == 1)
    #expect(try asReader(["check", crashed]) == RunResult(stdout: "", stderr: """
        error: \(crashed): cannot be read here: its -wal file holds changes SQLite reads only through a -shm file, \
        which is missing and cannot be created in this directory; copy \(crashed) and \(crashed)-wal to a writable \
        directory and read the copy

        """, status: 2))
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    #expect(files == ["crashed.sqlite", "crashed.sqlite-wal", "demo.sqlite", "live.sqlite"], "\(files)")
}

/// Issue 27 §7: reading a WAL journal made SQLite create an empty `-wal` and a `-shm`
/// beside it and leave them: diagnosing a tree of 10,000 journals left 20,000 files
/// (320 MB). A journal with no side file is now read as it is, and every read command
/// leaves its directory as it found it; one being written (its `-wal` there) is read
/// through its `-wal` as before.
@Test(.tags(.childProcess)) func readingAJournalLeavesItsDirectoryAsItFoundIt() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let closed = try demoJournal(in: directory, wal: true)
    let tree = directory.appendingPathComponent("tree/a")
    try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: closed, toPath: tree.appendingPathComponent("copy.sqlite").path)
    let listing = { try FileManager.default.subpathsOfDirectory(atPath: directory.path).sorted() }
    let before = try listing()
    #expect(before == ["demo.sqlite", "tree", "tree/a", "tree/a/copy.sqlite"])
    for arguments in [
        ["sessions", closed], ["timeline", closed, "--session", "1"], ["replay", closed, "--at", "3"],
        ["diagnose", closed, "--all"], ["diagnose", directory.path], ["stats", closed], ["check", closed],
        ["export", closed, "--what", "events", "--format", "csv"], ["export", directory.path, "--what", "findings", "--format", "jsonl"],
        ["report", closed, "--all", "-o", "-"],
    ] {
        let result = try obsreplay(arguments)
        #expect([0, 1].contains(result.status), "\(arguments) \(result)")
        #expect(try listing() == before, "\(arguments)")
    }
    // Being written: its -wal is read (the uncommitted-checkpoint rows are seen).
    let live = directory.appendingPathComponent("live.sqlite").path
    let fixture = try JournalFixture(path: live, wal: true)
    _ = try fixture.session(label: "recording", clean: false)
    try fixture.commit()
    #expect(try obsreplay(["sessions", live, "--json"]).stdout.contains("\"label\":\"recording\""))
    try fixture.finish()
}

/// The check that skips aJournalInADirectoryTheReaderCannotWriteIsReadOrRefusedPrecisely: a
/// 0700 directory on the way stops another user.
@Test func searchPermissionIsJudgedForTheOtherUser() throws {
    let directory = try temporaryDirectory()
    defer {
        chmod(directory.path, 0o755)
        try? FileManager.default.removeItem(at: directory)
    }
    let inner = directory.appendingPathComponent("inner")
    try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: false)
    #expect(isSearchable("/", byUID: 65534, gid: 65534))
    chmod(directory.path, 0o700)
    #expect(!isSearchable(inner.path, byUID: 65534, gid: 65534))
    // Its owner still may; so may a member of its group when the group has search.
    #expect(isSearchable(inner.path, byUID: getuid(), gid: getgid()) == isSearchable(directory.deletingLastPathComponent().path, byUID: getuid(), gid: getgid()))
    chmod(directory.path, 0o710)
    #expect(!isSearchable(inner.path, byUID: 65534, gid: 65534))
    #expect(isSearchable(inner.path, byUID: 65534, gid: getgid()) == isSearchable(directory.deletingLastPathComponent().path, byUID: 65534, gid: getgid()))
    chmod(directory.path, 0o711)
    #expect(isSearchable(inner.path, byUID: 65534, gid: 65534) == isSearchable(directory.deletingLastPathComponent().path, byUID: 65534, gid: 65534))
    #expect(!isSearchable(directory.appendingPathComponent("missing").path, byUID: 65534, gid: 65534))
}

/// Human output shows at most 200 characters of a value; `export` gives it whole.
@Test(.tags(.childProcess)) func longValuesAreCutInHumanOutput() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("long.sqlite").path
    let fixture = try JournalFixture(path: path)
    let s = try fixture.session(label: "long")
    let rate = try s.channel(try s.object("Player"), "rate")
    try s.register(rate, owner: try s.object("Screen"), at: "Screen.swift:5")
    let long = String(repeating: "x", count: 199) + "yz" + String(repeating: "w", count: 100_000)
    try s.post(rate, old: "1", new: long)
    try fixture.finish()
    let timeline = try obsreplay(["timeline", path, "--kind", "changed"])
    #expect(timeline.stdout.hasSuffix("  1 → " + String(repeating: "x", count: 199) + "y…  live 1\n"))
    let replay = try obsreplay(["replay", path, "--at", "3"])
    #expect(replay.stdout.contains("  1 → " + String(repeating: "x", count: 199) + "y…\n"))
    let export = try obsreplay(["export", path, "--what", "events", "--format", "jsonl"])
    #expect(export.stdout.contains(long))
}

/// Issue 29: a journal from elsewhere decides how many sessions it has. With N empty
/// sessions (`OBSREPLAY_MANY_SESSIONS`: 20,000 under `swift test`, 200,000 in
/// tools/scripts/reliability.sh ci) around three with events, every whole-journal command
/// ends (each within 300 s: that bound catches a hang or a quadratic, not a speed; the
/// times are in RELIABILITY.md) with exact output whose size grows with the sessions only
/// where it lists them (`sessions`), and `report --all` counts the empty ones instead of
/// drawing them.
@Test(.tags(.childProcess, .slow)) func everyWholeJournalCommandIsBoundedOnManyEmptySessions() throws {
    let count = ProcessInfo.processInfo.environment["OBSREPLAY_MANY_SESSIONS"].flatMap(Int.init) ?? 20_000
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("many.sqlite").path
    let fixture = try JournalFixture(path: path)
    for label in ["first", "second", "third"] {
        let s = try fixture.session(label: label)
        let rate = try s.channel(try s.object("Player"), "rate")
        try s.register(rate, owner: try s.object("Screen"), at: "Screen.swift:5")
        try s.post(rate, old: "1", new: "2")
    }
    try fixture.finish()
    try JournalFixture.edit(path, """
        WITH RECURSIVE n(i) AS (SELECT 4 UNION ALL SELECT i + 1 FROM n WHERE i < \(count + 3))
        INSERT INTO sessions (id, label, process, pid, host, started_at, start_ns, ended_at, clean_end, library_version)
        SELECT i, 'idle', 'App', 1, 'h', '2025-01-01T10:00:00Z', 0, '2025-01-01T10:00:01Z', 1, '0.1.0' FROM n
        """)
    let binary = try obsreplayBinary()
    func run(_ arguments: [String]) throws -> RunResult {
        let result = try ChildProcess.run(binary, arguments, environment: ["PATH": "/usr/bin:/bin"], timeout: 300)
        #expect(!result.timedOut, "\(arguments)")
        return RunResult(stdout: result.stdout, stderr: result.stderr, status: result.status)
    }
    let sessions = try run(["sessions", path, "--json"])
    #expect(sessions.status == 0 && sessions.stderr.isEmpty)
    #expect(sessions.stdout.components(separatedBy: "\"label\":\"idle\"").count - 1 == count)
    #expect(sessions.stdout.utf8.count < (count + 3) * 300)
    let text = try run(["sessions", path])
    #expect(text.status == 0 && text.stdout.split(separator: "\n").count == count + 4)
    let diagnosis = try run(["diagnose", path, "--all", "--json"])
    #expect(diagnosis.status == 0 && diagnosis.stderr.isEmpty)
    let codes = try JSONSerialization.jsonObject(with: Data(diagnosis.stdout.utf8)) as? [[String: Any]]
    #expect(codes?.map { "\($0["session_id"]!) \($0["code"]!)" } == ["1 OJ004", "2 OJ004", "3 OJ004"])
    let firstColumns = { (csv: String) in csv.split(separator: "\r\n").map { $0.split(separator: ",").prefix(2).joined(separator: ",") } }
    let events = try run(["export", path, "--what", "events", "--format", "csv"])
    #expect(firstColumns(events.stdout) == ["session_id,seq"] + (1...3).flatMap { s in (1...3).map { "\(s),\($0)" } })
    let registrations = try run(["export", path, "--what", "registrations", "--format", "csv"])
    #expect(firstColumns(registrations.stdout) == ["session_id,id", "1,1", "2,1", "3,1"])
    let deliveries = try run(["export", path, "--what", "deliveries", "--format", "csv"])
    #expect(firstColumns(deliveries.stdout).count == 4)
    let findings = try run(["export", path, "--what", "findings", "--format", "jsonl"])
    #expect(findings.status == 0 && findings.stdout.split(separator: "\n").count == 3)
    let report = try run(["report", path, "--all", "-o", "-"])
    #expect(report.status == 0 && report.stderr.isEmpty)
    #expect(report.stdout.contains("<p class=\"left-out\">\(count) sessions without events are not drawn (ids 4–\(count + 3)); obsreplay sessions lists them.</p>"))
    #expect(report.stdout.contains(": 3 sessions shown."))
    #expect(report.stdout.utf8.count < 500_000)
    let stats = try run(["stats", path])
    #expect(stats.stdout.contains("sessions        \(count + 3)\nevents          9\nregistrations   3\n"))
    let check = try run(["check", path])
    #expect(check.status == 0 && check.stdout.hasSuffix("ok\n"))
}

/// `report` rounded a delivery's duration up to microseconds as `(ns + 999) / 1000`,
/// which traps on the 2⁶³−1 ns a journal may claim.
@Test(.tags(.childProcess)) func aReportOnTheLongestDurationDoesNotTrap() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("slow.sqlite").path
    let fixture = try JournalFixture(path: path)
    let s = try fixture.session(label: "slow")
    let rate = try s.channel(try s.object("Player"), "rate")
    try s.register(rate, owner: try s.object("Screen"), at: "Screen.swift:5")
    try s.post(rate, old: "1", new: "2", duration: .max)
    try fixture.finish()
    let report = try obsreplay(["report", path, "-o", "-"])
    #expect(report.status == 0)
    #expect(report.stderr == "")
    #expect(report.stdout.hasPrefix("<!DOCTYPE html>"))
}

/// `export --format chrome-trace` computed a delivery's start as `time - duration`, which
/// traps on a delivery a journal claims happened at -2⁶³ ns.
@Test(.tags(.childProcess)) func aChromeTraceOfTheEarliestDeliveryDoesNotTrap() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("early.sqlite").path
    let fixture = try JournalFixture(path: path)
    let s = try fixture.session(label: "early")
    let rate = try s.channel(try s.object("Player"), "rate")
    try s.register(rate, owner: try s.object("Screen"), at: "Screen.swift:5")
    try s.post(rate, old: "1", new: "2")
    try fixture.finish()
    try JournalFixture.edit(path, "UPDATE events SET time_ns = -9223372036854775808 WHERE kind = (SELECT code FROM event_kinds WHERE name = 'delivered')")
    let trace = try obsreplay(["export", path, "--what", "events", "--format", "chrome-trace"])
    #expect(trace.status == 0)
    #expect(trace.stderr == "")
    #expect(trace.stdout.contains("{\"name\":\"Player#1.rate → Screen#2\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0.0,\"cat\":\"delivery\",\"dur\":100.0,"))
}

/// SQLite opens a journal's side files even on a read-only connection: it reads a
/// `-journal` to see whether it is hot and writes the `-shm`. A FIFO as `-journal` blocked
/// every read command forever; a hard link as `-shm` had the file of its other name
/// overwritten with SQLite's WAL index. Readers now check side files as the writer does.
@Test(.tags(.childProcess)) func sideFilesAReaderWouldBlockOnOrWriteThroughAreRefused() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let journal = try demoJournal(in: directory)
    let notes = directory.appendingPathComponent("notes.txt").path
    try Data("mine\n".utf8).write(to: URL(fileURLWithPath: notes))
    let original = try Data(contentsOf: URL(fileURLWithPath: journal))
    let cases: [(plant: () -> Int32, side: String, reason: String, command: String)] = [
        ({ mkfifo(journal + "-journal", 0o600) }, "-journal", "it is not a regular file", "sessions"),
        ({ link(notes, journal + "-shm") }, "-shm", "it has 2 hard links", "diagnose"),
        ({ symlink(notes, journal + "-wal") }, "-wal", "it is a symbolic link", "check"),
        ({ mkdir(journal + "-wal", 0o700) }, "-wal", "it is not a regular file", "timeline"),
    ]
    for item in cases {
        #expect(item.plant() == 0)
        let result = try obsreplay([item.command, journal])
        #expect(result == RunResult(stdout: "", stderr: """
            error: \(journal): refusing to open: side file \(journal)\(item.side) is not the journal owner's own \
            (\(item.reason)); remove it if it is not yours

            """, status: 2))
        #expect(remove(journal + item.side) == 0)
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == original)
    #expect(try String(contentsOfFile: notes, encoding: .utf8) == "mine\n")
    // The reader's own side files, made by an earlier read, are its own: read again.
    let walJournal = try demoJournal(in: try temporaryDirectory(), wal: true)
    defer { try? FileManager.default.removeItem(atPath: (walJournal as NSString).deletingLastPathComponent) }
    #expect(try obsreplay(["sessions", walJournal]).status == 0)
    #expect(try obsreplay(["sessions", walJournal]).status == 0)
}
