import Foundation
import JournalFixtures
import TestSupport
import Testing

/// `export --fleet`: one file per table and journal, every row saying where it came from,
/// nothing ever replaced; directory reads within a small open-file limit.
@Suite(.tags(.childProcess)) struct FleetExportTests {
    /// A folder with two journals of the seeds' bug (demo.sqlite in `a/` and `b/`): their ids.
    private func twoJournals(in directory: URL) throws -> [String] {
        var ids: [String] = []
        for name in ["a", "b"] {
            let folder = directory.appendingPathComponent("journals/\(name)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let path = try demoJournal(in: folder)
            ids.append(try #require(try rows(path, "SELECT id FROM journal").first))
        }
        return ids
    }

    /// Every file under `folder`, relative, sorted.
    private func files(_ folder: URL) throws -> [String] {
        let walker = try #require(FileManager.default.enumerator(atPath: folder.path))
        return walker.compactMap { $0 as? String }
            .filter { path in
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).path, isDirectory: &isDirectory)
                    && !isDirectory.boolValue
            }
            .sorted()
    }

    private func text(_ folder: URL, _ path: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func writesOneFilePerTableAndJournalWithProvenanceOnEveryRow() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ids = try twoJournals(in: directory)
        #expect(ids.count == 2 && ids[0] != ids[1] && ids.allSatisfy { $0.count == 32 })
        let result = try obsreplay(["export", "journals", "--fleet", "out"], in: directory)
        #expect(result == RunResult(
            stdout: "", stderr: "exported 2 of 2 journals to out: 4 sessions, 4 findings, 6 call_sites rows\n", status: 0
        ), "\(result)")
        let out = directory.appendingPathComponent("out")
        #expect(try files(out) == ["call_sites", "findings", "sessions"].flatMap { table in
            ids.sorted().map { "\(table)/testhost/2025-01-01/\($0).jsonl" }
        })
        let a = ids[0]
        #expect(try text(out, "sessions/testhost/2025-01-01/\(a).jsonl") == """
            {"journal_id":"\(a)","host":"testhost","run":null,"session_id":1,"label":"three screens","process":"App","pid":4242,"started_at":"2025-01-01T10:00:00Z","ended_at":"2025-01-01T10:00:02.5Z","clean_end":true,"events":10,"registrations":2,"library_version":"0.1.0"}
            {"journal_id":"\(a)","host":"testhost","run":null,"session_id":2,"label":"fixed","process":"App","pid":4242,"started_at":"2025-01-01T11:00:00Z","ended_at":"2025-01-01T11:00:01Z","clean_end":true,"events":4,"registrations":1,"library_version":"0.1.0"}

            """)
        let finding = try text(out, "findings/testhost/2025-01-01/\(a).jsonl")
        #expect(finding.hasPrefix(
            "{\"journal_id\":\"\(a)\",\"host\":\"testhost\",\"run\":null,\"finding_id\":\"\(a)-0000000000\",\"session_id\":1,\"code\":\"OJ001\",\"name\":\"last-callback-wins\",\"severity\":\"error\","
        ), "\(finding)")
        // The per-finding evidence and advice stay in `diagnose` of the journal.
        #expect(!finding.contains("\"evidence\":") && !finding.contains("\"fix\":"), "\(finding)")
        let ranks = finding.split(separator: "\n").map { $0.split(separator: ",").last.map(String.init) }
        #expect(ranks == ["\"severity_rank\":3}", "\"severity_rank\":1}"], "\(finding)")
        let sites = try text(out, "call_sites/testhost/2025-01-01/\(a).jsonl")
        #expect(sites == """
            {"journal_id":"\(a)","host":"testhost","run":null,"session_id":1,"call_site":"App/FloatingWindow.swift:31","deliveries":2,"skipped":0,"timed":2,"total_ns":200000,"max_ns":100000,"over_budget":0,"off_main":0}
            {"journal_id":"\(a)","host":"testhost","run":null,"session_id":1,"call_site":"App/VideoScreen.swift:20","deliveries":2,"skipped":0,"timed":2,"total_ns":200000,"max_ns":100000,"over_budget":0,"off_main":0}
            {"journal_id":"\(a)","host":"testhost","run":null,"session_id":2,"call_site":"App/Screen.swift:5","deliveries":1,"skipped":0,"timed":1,"total_ns":100000,"max_ns":100000,"over_budget":0,"off_main":0}

            """, "\(sites)")
        // Events only when asked for, with the columns of `export --what events` after the provenance.
        let withEvents = try obsreplay(["export", "journals/a", "--fleet", "out-events", "--events"], in: directory)
        #expect(withEvents.status == 0, "\(withEvents)")
        let events = try text(directory.appendingPathComponent("out-events"), "events/testhost/2025-01-01/\(a).jsonl")
        #expect(events.split(separator: "\n").count == 14)
        #expect(events.hasPrefix("{\"journal_id\":\"\(a)\",\"host\":\"testhost\",\"run\":null,\"session_id\":1,\"seq\":1,"), "\(events)")
    }

    @Test func aFileAlreadyThereIsNeverReplaced() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ids = try twoJournals(in: directory)
        #expect(try obsreplay(["export", "journals/a/demo.sqlite", "--fleet", "out"], in: directory).status == 0)
        let out = directory.appendingPathComponent("out")
        let before = try files(out).map { try text(out, $0) }
        // A copy of a journal is the same journal: exporting it again is refused, and the
        // other journal of the folder is still exported.
        try FileManager.default.copyItem(
            at: directory.appendingPathComponent("journals/a/demo.sqlite"), to: directory.appendingPathComponent("journals/a/copy.sqlite")
        )
        let again = try obsreplay(["export", "journals", "--fleet", "out"], in: directory)
        let refusal = { (name: String) in
            "error: out/sessions/testhost/2025-01-01/\(ids[0]).jsonl: refusing to export journals/a/\(name) (journal \(ids[0])): "
                + "a file of that journal is there already (exported before, or a copy of the journal was exported in this run); it is left as it was\n"
        }
        #expect(again == RunResult(
            stdout: "",
            stderr: refusal("copy.sqlite") + refusal("demo.sqlite")
                + "exported 1 of 3 journals to out: 2 sessions, 2 findings, 3 call_sites rows\n",
            status: 2
        ), "\(again)")
        let after = try files(out)
        #expect(after.count == 6 && after.allSatisfy { !$0.contains(".tmp-") })
        #expect(try after.filter { $0.contains(ids[0]) }.map { try text(out, $0) } == before)
    }

    @Test func runIsRecordedFromTheEnvironment() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let demo = try obsreplay(
            ["demo", "--journal", "run.sqlite", "--scenario", "music-player", "--variant", "fixed"],
            environment: ["OBSERVATION_JOURNAL_RUN": "ci-4711"], in: directory
        )
        #expect(demo.status == 0, "\(demo)")
        #expect(try rows(directory.appendingPathComponent("run.sqlite").path, "SELECT run FROM sessions") == ["ci-4711"])
        #expect(try obsreplay(["export", "run.sqlite", "--fleet", "out"], in: directory).status == 0)
        let out = directory.appendingPathComponent("out")
        let sessions = try #require(try files(out).first { $0.hasPrefix("sessions/") })
        #expect(try text(out, sessions).contains("\"run\":\"ci-4711\",\"session_id\":1,"))
    }

    @Test func aJournalOfSchemaOneHasAnIdDerivedTheSameBeforeAndAfterItsUpgrade() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("old.sqlite").path
        let fixture = try JournalFixture(path: path, schemaVersion: 1)
        _ = try fixture.session(label: "old")
        try fixture.finish()
        func exportedID(_ folder: String) throws -> String {
            let result = try obsreplay(["export", "old.sqlite", "--fleet", folder], in: directory)
            #expect(result.status == 0, "\(result)")
            let file = try #require(try files(directory.appendingPathComponent(folder)).first { $0.hasPrefix("sessions/") })
            return String(file.split(separator: "/").last!.dropLast(".jsonl".count))
        }
        let before = try exportedID("one")
        #expect(before.count == 32)
        #expect(try exportedID("two") == before)
        #expect(try obsreplay(["migrate", "old.sqlite"], in: directory).status == 0)
        #expect(try rows(path, "SELECT count(*) FROM journal") == ["0"])
        #expect(try exportedID("three") == before)
    }

    @Test func usageErrors() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try demoJournal(in: directory)
        let withWhat = try obsreplay(["export", "demo.sqlite", "--fleet", "out", "--what", "findings"], in: directory)
        #expect(withWhat.status == 64 && withWhat.stderr.hasPrefix("error: '--fleet' writes its own tables and files: leave out '--what'\n"))
        let events = try obsreplay(["export", "demo.sqlite", "--events", "--what", "events", "--format", "csv"], in: directory)
        #expect(events.status == 64 && events.stderr.hasPrefix("error: '--events' goes with '--fleet' (otherwise use '--what events')\n"))
        try Data("x".utf8).write(to: directory.appendingPathComponent("file"))
        #expect(try obsreplay(["export", "demo.sqlite", "--fleet", "file"], in: directory)
            == RunResult(stdout: "", stderr: "error: file: not a folder: '--fleet' writes a folder of files\n", status: 2))
    }

    /// More journals than open files allowed: every directory read holds a few open at a time.
    @Test func directoryReadsStayWithinASmallOpenFileLimit() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fleet = directory.appendingPathComponent("fleet")
        try FileManager.default.createDirectory(at: fleet, withIntermediateDirectories: true)
        let count = 40
        for index in 0..<count {
            let fixture = try JournalFixture(path: fleet.appendingPathComponent("run-\(index).sqlite").path)
            let s = try fixture.session(label: "run \(index)")
            let channel = try s.channel(try s.object("Player"), "rate")
            try s.register(channel, owner: try s.object("Screen"), at: "Screen.swift:5")
            try s.post(channel, old: "1", new: "2", at: "Player.swift:60")
            try fixture.finish()
        }
        let binary = try obsreplayBinary().path
        for command in [
            "export fleet --what findings --format jsonl -o all.jsonl", "export fleet --fleet out",
            "diagnose fleet --fail-on never --quiet", "sessions fleet --json", "stats fleet --json",
        ] {
            let result = try run(URL(fileURLWithPath: "/bin/sh"), ["-c", "ulimit -n 28 && exec '\(binary)' \(command) >/dev/null"], in: directory)
            #expect(result.status == 0 && !result.stderr.contains("error"), "\(command): \(result)")
        }
        #expect(try files(directory.appendingPathComponent("out")).count == 3 * count)
    }

    /// On a terminal, the fleet export counts journals on standard error; in a pipe, nothing.
    @Test func progressOnATerminalOnly() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try twoJournals(in: directory)
        let binary = try obsreplayBinary().path
        let shown = try run(
            URL(fileURLWithPath: "/usr/bin/script"), ["-qec", "'\(binary)' export journals --fleet tty", "/dev/null"],
            environment: ["OBSREPLAY_PROGRESS_DELAY_MS": "0", "TERM": "xterm"], in: directory
        ).stdout
        #expect(shown.hasPrefix("\r\u{1B}[Kexporting: 0/2 journals"), "\(shown)")
        let piped = try obsreplay(["export", "journals", "--fleet", "piped"], environment: ["OBSREPLAY_PROGRESS_DELAY_MS": "0"], in: directory)
        #expect(piped.stderr == "exported 2 of 2 journals to piped: 4 sessions, 4 findings, 6 call_sites rows\n", "\(piped)")
    }
}
