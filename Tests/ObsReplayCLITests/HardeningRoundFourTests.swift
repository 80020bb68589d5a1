import Foundation
import JournalAnalysis
import JournalFixtures
import JournalStore
import SystemShim
import Testing
import TestSupport

// Issue 34: the fourth hardening round, as the commands see it.

/// `rename(2)` with a destination given as bytes (names no `String` can hold).
private func rename(_ from: String, toBytes bytes: [UInt8]) {
    let target = bytes.map { CChar(bitPattern: $0) } + [0]
    #expect(SystemShim.rename(from, target) == 0)
}

/// §3: `diagnose DIR` passed over journals whose file or folder names are not UTF-8 and
/// exited 0 over journals it never read. Each is now an error naming it (exit 2).
@Test(.tags(.childProcess)) func journalsWhoseNamesAreNotUTF8AreNeverPassedOverInSilence() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let journal = try demoJournal(in: directory)
    let base = Array(directory.path.utf8)
    // A Latin-1 file name, and a journal inside a Latin-1 folder.
    let copy = directory.appendingPathComponent("copy.sqlite").path
    try FileManager.default.copyItem(atPath: journal, toPath: copy)
    rename(copy, toBytes: base + Array("/caf".utf8) + [0xE9] + Array(".sqlite".utf8))
    let folder = directory.appendingPathComponent("folder").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
    try FileManager.default.copyItem(atPath: journal, toPath: folder + "/inner.sqlite")
    rename(folder, toBytes: base + Array("/d".utf8) + [0xFC, 0x5C] + Array("r".utf8))
    let shown = directory.path + "/caf\\xE9.sqlite"
    let inner = directory.path + "/d\\xFC\\x5Cr/inner.sqlite"
    let reason = "cannot be read: its name is not UTF-8 (shown with \\x escapes); rename it to read it"
    let diagnosis = try obsreplay(["diagnose", directory.path, "--all", "--format", "short"])
    #expect(diagnosis.status == 2, "\(diagnosis)")
    #expect(diagnosis.stderr == "error: \(shown): \(reason)\nerror: \(inner): \(reason)\n", "\(diagnosis)")
    #expect(diagnosis.stdout.contains("[OJ001]"))
    let sessions = try obsreplay(["sessions", directory.path])
    #expect(sessions == RunResult(stdout: "", stderr: "error: \(shown): \(reason)\n", status: 2))
    // Names that are UTF-8, with a backslash or `\x` in them, are read as they are.
    let odd = directory.appendingPathComponent("odd").path
    try FileManager.default.createDirectory(atPath: odd, withIntermediateDirectories: false)
    try FileManager.default.copyItem(atPath: journal, toPath: odd + "/a\\xE9 ü.sqlite")
    #expect(try obsreplay(["sessions", odd]).status == 0)
}

/// A schema-1 journal with the showcase session.
private func schemaOneJournal(in directory: URL, name: String = "old.sqlite") throws -> String {
    let path = directory.appendingPathComponent(name).path
    let fixture = try JournalFixture(path: path, schemaVersion: 1)
    try ShowcaseScenario.record(try fixture.session(label: "showcase"))
    try fixture.finish()
    return path
}

/// The entries of `directory`, sorted.
private func entries(_ directory: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
}

/// §7: a read of a schema-1 journal stopped by SIGTERM, SIGHUP or SIGINT left its
/// upgraded copy in the temporary directory for good. It is now removed on the way out,
/// and a copy left by a process that died otherwise is removed by the next one made.
@Test(.tags(.childProcess), arguments: [SIGTERM, SIGHUP, SIGINT])
func anInterruptedReadOfAnOldJournalLeavesNoCopyBehind(_ signalNumber: Int32) throws {
    let scratch = try ScratchDirectory("interrupted-copy")
    let temporary = scratch.appendingPathComponent("tmp")
    try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: false)
    let old = try schemaOneJournal(in: scratch.url)
    let fifo = scratch.path("out.fifo")
    #expect(mkfifo(fifo, 0o600) == 0)
    // The journal is opened (and its copy made) before the output: the FIFO's open then
    // waits for a reader that never comes.
    let pid = try spawnWithDefaultSignals(
        try obsreplayBinary().path, ["export", old, "--what", "events", "--format", "csv", "-o", fifo],
        environment: ["PATH": "/usr/bin:/bin", "TMPDIR": temporary.path]
    )
    var copied = false
    for _ in 0..<600 where !copied {
        copied = try entries(temporary).contains { $0.hasPrefix("obsreplay-upgrade-\(pid)-") }
        if !copied { usleep(50_000) }
    }
    #expect(copied, "no upgraded copy appeared")
    kill(pid, signalNumber)
    // Never waits for ever: a child that survives its signal is killed and the test fails.
    var status: Int32 = 0, ended = false
    for _ in 0..<600 where !ended {
        ended = waitpid(pid, &status, WNOHANG) == pid
        if !ended { usleep(50_000) }
    }
    if !ended {
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }
    #expect(ended, "obsreplay survived signal \(signalNumber)")
    // Ended by the signal itself (WIFSIGNALED, WTERMSIG).
    #expect(status & 0x7F == signalNumber, "status \(status)")
    #expect(try entries(temporary) == [])
}

@Test(.tags(.childProcess)) func copiesLeftByProcessesThatAreGoneAreRemovedByTheNextRead() throws {
    let scratch = try ScratchDirectory("stale-copy")
    let temporary = scratch.appendingPathComponent("tmp")
    try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: false)
    let old = try schemaOneJournal(in: scratch.url)
    // A process that is gone, and this (live) one.
    let gone = Process()
    gone.executableURL = URL(fileURLWithPath: "/bin/true")
    try gone.run()
    gone.waitUntilExit()
    let stale = "obsreplay-upgrade-\(gone.processIdentifier)-AbC123", live = "obsreplay-upgrade-\(getpid())-XyZ789"
    for name in [stale, live] {
        let folder = temporary.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        for file in ["journal.sqlite", "journal.sqlite-journal"] {
            _ = FileManager.default.createFile(atPath: folder.appendingPathComponent(file).path, contents: Data("x".utf8))
        }
    }
    let other = "obsreplay-upgrade-\(gone.processIdentifier)-Other1"
    try FileManager.default.createDirectory(at: temporary.appendingPathComponent(other), withIntermediateDirectories: false)
    _ = FileManager.default.createFile(atPath: temporary.appendingPathComponent(other + "/notes.txt").path, contents: Data())
    let result = try obsreplay(["sessions", old], environment: ["TMPDIR": temporary.path])
    #expect(result.status == 0, "\(result)")
    // The live process's copy stays; so does one holding a file no copy has.
    #expect(try entries(temporary) == [live, other].sorted())
}

/// §5: the upgrade copied a schema-1 journal page by page, used or not: a small sparse
/// file claiming many pages wrote all of them into the temporary directory. Only the rows
/// are copied now.
@Test func theUpgradedCopyHoldsOnlyWhatTheJournalStores() throws {
    let scratch = try ScratchDirectory("sparse-upgrade")
    let old = try schemaOneJournal(in: scratch.url)
    let claimed: Int64 = 64 << 20
    // Grow the file to 64 MiB without writing (a hole), and say so in its header.
    #expect(truncate(old, off_t(claimed)) == 0)
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: old))
    try handle.seek(toOffset: 28)
    let pages = UInt32(claimed / 4096)
    try handle.write(contentsOf: withUnsafeBytes(of: pages.bigEndian) { Data($0) })
    try handle.close()
    var status = stat()
    #expect(stat(old, &status) == 0 && Int64(status.st_blocks) * 512 < 1 << 20)
    let reader = try JournalReader(path: old)
    #expect(try reader.sessions().map(\.label) == ["showcase"])
    let temporary = FileManager.default.temporaryDirectory
    let copies = try entries(temporary).filter { $0.hasPrefix("obsreplay-upgrade-\(getpid())-") }
    #expect(!copies.isEmpty)
    for copy in copies {
        let file = temporary.appendingPathComponent(copy + "/journal.sqlite").path
        let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        #expect(size < 4 << 20, "\(file): \(size) bytes")
    }
}

/// §6: the upgrade's connection had no value limit: a value of hundreds of millions of
/// characters in a schema-1 journal was loaded whole. The upgrade has the readers' limits.
@Test func theUpgradeHasTheReadersValueLimit() throws {
    let scratch = try ScratchDirectory("upgrade-limit")
    let old = try schemaOneJournal(in: scratch.url)
    let bytes = Int(SQLiteDatabase.ReadLimits.valueBytes) + 1
    try JournalFixture.edit(old, "UPDATE events SET detail = replace(hex(zeroblob(\(bytes / 2 + 1))), '0', 'x') WHERE seq = 2")
    #expect(throws: AnalysisError.journal(.refused(path: old, reason: """
        refused: it holds a value longer than 16 MiB, which ObservationJournal never writes
        """))) { try JournalReader(path: old) }
}

/// §9: `check` of a schema-1 journal checked the upgraded copy, whose upgrade rebuilds
/// every index: a damaged index in the user's file was "integrity ok". The user's file is
/// checked first.
@Test(.tags(.childProcess)) func checkOfAnOldJournalChecksTheUsersFile() throws {
    let scratch = try ScratchDirectory("old-check")
    let old = try schemaOneJournal(in: scratch.url)
    #expect(try obsreplay(["check", old]).status == 0)
    // An index left behind its table: unlisted while the table changes, then put back.
    try JournalFixture.edit(old, """
        CREATE TABLE saved AS SELECT type, name, tbl_name, rootpage, sql FROM sqlite_schema WHERE name = 'registrations_by_channel';
        PRAGMA writable_schema = ON; DELETE FROM sqlite_schema WHERE name = 'registrations_by_channel';
        """)
    try JournalFixture.edit(old, "UPDATE registrations SET channel_id = channel_id + 100")
    try JournalFixture.edit(old, "PRAGMA writable_schema = ON; INSERT INTO sqlite_schema SELECT * FROM saved;")
    try JournalFixture.edit(old, "DROP TABLE saved")
    let before = try Data(contentsOf: URL(fileURLWithPath: old))
    let checked = try obsreplay(["check", old])
    #expect(checked.status == 1, "\(checked)")
    #expect(checked.stdout.contains("integrity         FAILED\n    row 1 missing from index registrations_by_channel\n"), "\(checked)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: old)) == before)
}

/// §8: permuted vocabulary rows passed `check`, after which `event_log` said `removed`
/// where obsreplay said `registered`. Every reader refuses them.
@Test(.tags(.childProcess)) func aVocabularyThatIsNotTheOneThisVersionKnowsIsRefused() throws {
    let scratch = try ScratchDirectory("vocabulary")
    let path = scratch.path()
    do {
        let fixture = try JournalFixture(path: path)
        try ShowcaseScenario.record(try fixture.session(label: "showcase"))
        try fixture.finish()
    }
    #expect(try obsreplay(["check", path]).status == 0)
    try JournalFixture.edit(path, """
        UPDATE event_kinds SET name = 'x' WHERE code = 0; UPDATE event_kinds SET name = 'registered' WHERE code = 2;
        UPDATE event_kinds SET name = 'removed' WHERE code = 0;
        """)
    let reason = """
        refused: the vocabulary table 'event_kinds' does not hold what this version knows (code 0 is 'registered'; \
        the file has code 0 as 'removed'); the file was changed outside ObservationJournal
        """
    for command in ["check", "sessions", "diagnose"] {
        #expect(try obsreplay([command, path]) == RunResult(stdout: "", stderr: "error: \(path): \(reason)\n", status: 2))
    }
    // One code more than this version knows.
    try JournalFixture.edit(path, """
        UPDATE event_kinds SET name = 'x' WHERE code = 2; UPDATE event_kinds SET name = 'registered' WHERE code = 0;
        UPDATE event_kinds SET name = 'removed' WHERE code = 2; INSERT INTO event_kinds VALUES (99, 'teleported');
        """)
    #expect(try obsreplay(["check", path]).stderr.contains("the file has code 99 as 'teleported'"))
}

/// §4: a long value in an interior page of the `WITHOUT ROWID` events table is read by
/// every lookup that passes it; `check` said ok. It is now reported.
@Test(.tags(.childProcess)) func checkFindsLongRowsInInteriorPages() throws {
    let scratch = try ScratchDirectory("interior-rows")
    let path = scratch.path()
    do {
        let fixture = try JournalFixture(path: path)
        let s = try fixture.session(label: "long rows")
        let rate = try s.channel(try s.object("Player"), "rate")
        try s.register(rate, owner: try s.object("Screen"), at: "Screen.swift:5")
        for index in 0..<600 { _ = try s.change(rate, new: "\(index)") }
        try fixture.finish()
    }
    #expect(try obsreplay(["check", path]).status == 0)
    // Nine rows of a MiB and more in a row, among short ones: whole leaves of them, so
    // at least one sits in an interior page.
    try JournalFixture.edit(path, """
        UPDATE events SET new_value = replace(hex(zeroblob(600000)), '0', 'v') WHERE seq BETWEEN 300 AND 308
        """)
    let checked = try obsreplay(["check", path])
    #expect(checked.status == 1, "\(checked)")
    #expect(checked.stdout.contains("integrity         FAILED\n    events: an interior page holds a row of "), "\(checked)")
}
