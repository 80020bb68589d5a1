import Foundation
import JournalAnalysis
import JournalFixtures
import Testing
import TestSupport

// issue 15 §1-3 and issue 11 point 8, end to end against the built binary: fingerprints,
// baselines, configuration, sarif/github/short output.

/// One app's bug as a journal: FloatingWindow assigns a single-slot callback at
/// `App/FloatingWindow.swift:<line>` in `function`, VideoScreen replaces it, two changes
/// are missed. `extraObjects` shifts every object id, as another recording would.
private func replacedCallbackJournal(
    _ path: String, line: Int = 31, function: String = "viewDidLoad()", extraObjects: Int = 0
) throws {
    let fixture = try JournalFixture(path: path)
    let s = try fixture.session(label: "app", startedAt: "2025-01-01T10:00:00Z", endedAt: "2025-01-01T10:00:02Z")
    for _ in 0..<extraObjects { _ = try s.object("Cache") }
    let player = try s.object("Player")
    let floating = try s.object("FloatingWindow")
    let video = try s.object("VideoScreen")
    let slot = try s.channel(player, "isPlayingChanged", singleSlot: true)
    try s.register(slot, owner: floating, at: "FloatingWindow.swift:\(line)", function: function)
    try s.register(slot, owner: video, at: "VideoScreen.swift:20")
    try s.post(slot, old: "false", new: "true", at: "Player.swift:40")
    try s.post(slot, old: "true", new: "false", at: "Player.swift:40")
    try fixture.finish()
}

/// The `fingerprint` values of `diagnose --json` output, in order.
private func fingerprints(_ json: String) throws -> [String] {
    let array = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
    return array.compactMap { $0["fingerprint"] as? String }
}

private func withDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

@Test(.tags(.childProcess)) func sameScenarioRecordedInTwoProcessesHasTheSameFingerprints() throws {
    try withDirectory { directory in
        var runs: [[String]] = []
        for name in ["first.sqlite", "second.sqlite"] {
            let demo = try obsreplay(["demo", "--journal", name, "--scenario", "music-player", "--variant", "buggy"], in: directory)
            #expect(demo.status == 0, "\(demo)")
            let json = try obsreplay(["diagnose", name, "--json", "--fail-on", "never"], in: directory)
            #expect(json.status == 0)
            runs.append(try fingerprints(json.stdout))
        }
        #expect(runs[0].count == 3)
        #expect(runs[0] == runs[1])
        #expect(Set(runs[0]).count == 3)
    }
}

@Test(.tags(.childProcess)) func fingerprintIgnoresIdsAndLinesButNotTheFunction() throws {
    try withDirectory { directory in
        let a = directory.appendingPathComponent("a.sqlite").path
        let b = directory.appendingPathComponent("b.sqlite").path
        let moved = directory.appendingPathComponent("moved.sqlite").path
        let elsewhere = directory.appendingPathComponent("elsewhere.sqlite").path
        try replacedCallbackJournal(a)
        try replacedCallbackJournal(b, extraObjects: 3)
        try replacedCallbackJournal(moved, line: 32)
        try replacedCallbackJournal(elsewhere, function: "show()")
        let first = try fingerprints(try obsreplay(["diagnose", a, "--json"]).stdout)
        let shifted = try fingerprints(try obsreplay(["diagnose", b, "--json"]).stdout)
        let lineMoved = try fingerprints(try obsreplay(["diagnose", moved, "--json"]).stdout)
        let other = try fingerprints(try obsreplay(["diagnose", elsewhere, "--json"]).stdout)
        // OJ001 (FloatingWindow replaced) and OJ004 info (VideoScreen still registered).
        #expect(first == ["511fb43ea5b444bbd3fc7e21cbf7d3de", "19a4465bc50f338242199d53298984f3"])
        #expect(shifted == first)
        // A line added above the call: the same bug.
        #expect(lineMoved == first)
        // The same call made from another function: another finding.
        #expect(other[0] != first[0])
        #expect(other[1] == first[1])
    }
}

@Test(.tags(.childProcess)) func shortGithubAndSarifFormats() throws {
    try withDirectory { directory in
        let journal = directory.appendingPathComponent("app.sqlite").path
        try replacedCallbackJournal(journal)
        // A source tree where App/FloatingWindow.swift lives under Sources/.
        let sources = directory.appendingPathComponent("Sources/App")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        for name in ["FloatingWindow.swift", "VideoScreen.swift"] {
            try Data().write(to: sources.appendingPathComponent(name))
        }
        let root = ["--source-root", directory.path]
        #expect(try obsreplay(["diagnose", journal, "--format", "short", "--fail-on", "info"] + root) == RunResult(stdout: """
            Sources/App/FloatingWindow.swift:31: error: [OJ001] 2 owners assigned Player#1.isPlayingChanged; FloatingWindow#2 (FloatingWindow.swift:31) was replaced at seq 2 while alive and missed 2 changes.
            Sources/App/VideoScreen.swift:20: info: [OJ004] VideoScreen#3's registration on Player#1.isPlayingChanged (VideoScreen.swift:20) was still registered when the session ended.

            """, stderr: "", status: 1))
        let github = try obsreplay(["diagnose", journal, "--format", "github"] + root)
        #expect(github.status == 1)
        #expect(github.stdout.components(separatedBy: "\n") == [
            "::error file=Sources/App/FloatingWindow.swift,line=31,title=OJ001 last-callback-wins::2 owners assigned Player#1.isPlayingChanged; FloatingWindow#2 (FloatingWindow.swift:31) was replaced at seq 2 while alive and missed 2 changes.%0A(\(journal), session 1, fingerprint 511fb43ea5b444bbd3fc7e21cbf7d3de)%0Aseq 1: FloatingWindow#2 assigned Player#1.isPlayingChanged at FloatingWindow.swift:31%0Aseq 2: VideoScreen#3 assigned it at VideoScreen.swift:20, replacing FloatingWindow#2's callback while FloatingWindow#2 was alive%0AFloatingWindow#2 missed the changes at seqs 3, 5%0AFloatingWindow#2 was not seen deallocated before the session ended%0Afix: Make the channel multicast (ObservableValue or a notification) so every owner registers its own callback, or have one owner forward to the others.",
            "::notice file=Sources/App/VideoScreen.swift,line=20,title=OJ004 leaked-registration::VideoScreen#3's registration on Player#1.isPlayingChanged (VideoScreen.swift:20) was still registered when the session ended.%0A(\(journal), session 1, fingerprint 19a4465bc50f338242199d53298984f3)%0Aseq 2: VideoScreen#3 registered at VideoScreen.swift:20, never removed%0Afix: Remove the registration when its scope ends (cancel its token there), or tie it to an owner that goes away with the scope.",
            "::notice title=obsreplay::2 findings (1 error, 0 warnings, 1 info) in session 1 of \(journal)",
            "",
        ])
        let sarif = try obsreplay(["diagnose", journal, "--format", "sarif"] + root)
        #expect(sarif.status == 1 && sarif.stderr.isEmpty)
        let log = try #require(try JSONSerialization.jsonObject(with: Data(sarif.stdout.utf8)) as? [String: Any])
        #expect(log["version"] as? String == "2.1.0")
        let run = try #require((log["runs"] as? [[String: Any]])?.first)
        let rules = try #require(((run["tool"] as? [String: Any])?["driver"] as? [String: Any])?["rules"] as? [[String: Any]])
        #expect(rules.compactMap { $0["id"] as? String }.first == "OJ001")
        let driver = try #require((run["tool"] as? [String: Any])?["driver"] as? [String: Any])
        #expect(driver["informationUri"] as? String == SARIFLog.homepage)
        // Each rule links to its anchor in docs/RULES.md, which exists.
        #expect(rules.map { $0["helpUri"] as? String } == Rule.allCases.map { SARIFLog.homepage + "/blob/main/docs/RULES.md#" + $0.code.lowercased() })
        #expect((run["invocations"] as? [[String: Any]])?.first?["exitCode"] as? Int == 1)
        #expect((run["invocations"] as? [[String: Any]])?.first?["executionSuccessful"] as? Bool == true)
        let explanation = try obsreplay(["diagnose", "--explain", "OJ001"]).stdout
        #expect((rules.first?["help"] as? [String: Any])?["text"] as? String == explanation)
        let results = try #require(run["results"] as? [[String: Any]])
        #expect(results.count == 2)
        let first = results[0]
        #expect(first["ruleId"] as? String == "OJ001" && first["level"] as? String == "error")
        #expect((first["partialFingerprints"] as? [String: String]) == ["obsreplayFingerprint/v2": "511fb43ea5b444bbd3fc7e21cbf7d3de"])
        let location = try #require(((first["locations"] as? [[String: Any]])?.first?["physicalLocation"]) as? [String: Any])
        #expect((location["artifactLocation"] as? [String: String]) == ["uri": "Sources/App/FloatingWindow.swift", "uriBaseId": "SRCROOT"])
        #expect((location["region"] as? [String: Int]) == ["startLine": 31])
        let related = try #require(first["relatedLocations"] as? [[String: Any]])
        #expect(related.count == 1)
        #expect(((related[0]["physicalLocation"] as? [String: Any])?["artifactLocation"] as? [String: String])?["uri"] == "Sources/App/VideoScreen.swift")
        #expect((related[0]["message"] as? [String: String])?["text"]
            == "seq 2: VideoScreen#3 assigned it at VideoScreen.swift:20, replacing FloatingWindow#2's callback while FloatingWindow#2 was alive")
        #expect(results[1]["level"] as? String == "note")
    }
}

@Test func githubEscapingFollowsTheRunnersRules() {
    #expect(GitHubAnnotations.data("50% done\r\nnext") == "50%25 done%0D%0Anext")
    #expect(GitHubAnnotations.property("a:b,c%\n") == "a%3Ab%2Cc%25%0A")
    // The runner reads scalars, not grapheme clusters: a `,` or `:` with a combining mark
    // after it is one Character to Swift and still a separator to the runner.
    #expect(GitHubAnnotations.property(",\u{301}title=x:\u{301}") == "%2C\u{301}title=x%3A\u{301}")
    #expect(GitHubAnnotations.property("%\u{301}") == "%25\u{301}")
    // Terminal controls reach the job's log: shown, not obeyed.
    #expect(GitHubAnnotations.data("a\u{1B}]0;t\u{07}b\u{9B}2J\u{202E}c\u{0}") == "a\\u{1B}]0;t\\u{7}b\\u{9B}2J\\u{202E}c\\u{0}")
    #expect(GitHubAnnotations.property("\u{2066}:") == "\\u{2066}%3A")
}

/// A call site and a type name from a hostile journal: neither may add or replace a
/// property of the annotation, nor reach the CI log as a terminal control.
@Test(.tags(.childProcess)) func githubAnnotationsOfAHostileJournalKeepTheirProperties() throws {
    try withDirectory { directory in
        let journal = directory.appendingPathComponent("app.sqlite").path
        let fixture = try JournalFixture(path: journal)
        let s = try fixture.session(label: "app", startedAt: "2025-01-01T10:00:00Z", endedAt: "2025-01-01T10:00:02Z")
        let player = try s.object("Player")
        let floating = try s.object("Floating\u{1B}]0;pwned\u{07}\u{9B}31m\u{202E}Window")
        let video = try s.object("VideoScreen")
        let slot = try s.channel(player, "isPlayingChanged", singleSlot: true)
        try s.register(slot, owner: floating, at: "Float,\u{301}title=pwned:\u{301}ing.swift:31")
        try s.register(slot, owner: video, at: "VideoScreen.swift:20")
        try s.post(slot, old: "false", new: "true", at: "Player.swift:40")
        try fixture.finish()
        let github = try obsreplay(["diagnose", journal, "--format", "github"])
        #expect(github.status == 1 && github.stderr.isEmpty)
        let lines = github.stdout.components(separatedBy: "\n")
        #expect(lines[0].hasPrefix(
            "::error file=App/Float%2C\u{301}title=pwned%3A\u{301}ing.swift,line=31,title=OJ001 last-callback-wins::2 owners assigned Player#1.isPlayingChanged; Floating\\u{1B}]0;pwned\\u{7}\\u{9B}31m\\u{202E}Window#2 ("
        ))
        // Exactly three properties, as the runner splits them (by scalar).
        let properties = lines[0].unicodeScalars.split(separator: " ", maxSplits: 1)[1]
        let head = String(String.UnicodeScalarView(properties)).components(separatedBy: "::")[0]
        #expect(head.unicodeScalars.split(separator: ",").count == 3)
        #expect(!github.stdout.unicodeScalars.contains(where: MutationTests.isUnsafeOnTerminal))
    }
}

@Test(.tags(.childProcess)) func baselineFailsOnlyOnNewFindings() throws {
    try withDirectory { directory in
        let old = directory.appendingPathComponent("old.sqlite").path
        let moved = directory.appendingPathComponent("moved.sqlite").path
        try replacedCallbackJournal(old)
        try replacedCallbackJournal(moved, line: 32, function: "show()")
        let baseline = directory.appendingPathComponent("baseline.json").path
        #expect(try obsreplay(["diagnose", old, "--write-baseline", baseline, "--format", "short"]).status == 1)
        #expect(try String(contentsOfFile: baseline, encoding: .utf8) == """
            {
              "version": 2,
              "fingerprints": [
                {
                  "fingerprint": "19a4465bc50f338242199d53298984f3",
                  "code": "OJ004",
                  "name": "leaked-registration",
                  "message": "VideoScreen#3's registration on Player#1.isPlayingChanged (VideoScreen.swift:20) was still registered when the session ended."
                },
                {
                  "fingerprint": "511fb43ea5b444bbd3fc7e21cbf7d3de",
                  "code": "OJ001",
                  "name": "last-callback-wins",
                  "message": "2 owners assigned Player#1.isPlayingChanged; FloatingWindow#2 (FloatingWindow.swift:31) was replaced at seq 2 while alive and missed 2 changes."
                }
              ]
            }

            """)
        #expect(try obsreplay(["diagnose", old, "--baseline", baseline]) == RunResult(stdout: """
            0 findings (0 errors, 0 warnings, 0 info) in session 1 of \(old)
            \(baseline): 2 findings baselined, 0 new

            """, stderr: "", status: 0))
        // A previous --json works as a baseline too.
        let json = directory.appendingPathComponent("previous.json")
        try Data(try obsreplay(["diagnose", old, "--json"]).stdout.utf8).write(to: json)
        let fresh = try obsreplay(["diagnose", moved, "--baseline", json.path, "--format", "short"])
        #expect(fresh.status == 1)
        #expect(fresh.stdout.hasPrefix("App/FloatingWindow.swift:32: error: [OJ001] "))
        #expect(fresh.stdout.components(separatedBy: "\n").count == 2)
        let text = try obsreplay(["diagnose", moved, "--baseline", json.path])
        // The moved bug is new; the old line's entry matches nothing any more: stale.
        #expect(text.stdout.hasSuffix("""
            1 finding (1 error, 0 warnings, 0 info) in session 1 of \(moved)
            \(json.path): 1 finding baselined, 1 new
            \(json.path): 1 stale entry that no finding matched any more (fixed? remove with --write-baseline):
              stale: 511fb43ea5b444bbd3fc7e21cbf7d3de OJ001 last-callback-wins: 2 owners assigned Player#1.isPlayingChanged; FloatingWindow#2 (FloatingWindow.swift:31) was replaced at seq 2 while alive and missed 2 changes.

            """))
        let broken = directory.appendingPathComponent("broken.json").path
        try Data("{\"fingerprints\": [".utf8).write(to: URL(fileURLWithPath: broken))
        #expect(try obsreplay(["diagnose", old, "--baseline", broken]) == RunResult(
            stdout: "", stderr: "error: \(broken): unusable baseline: not valid JSON (expected a file from 'diagnose --write-baseline' or 'diagnose --json')\n",
            status: 2
        ))
    }
}

@Test(.tags(.childProcess)) func configurationFileDisablesRulesChangesSeverityAndIgnoresCallSites() throws {
    try withDirectory { directory in
        let journal = directory.appendingPathComponent("app.sqlite").path
        try replacedCallbackJournal(journal)
        let nested = directory.appendingPathComponent("ci/step")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent(".obsreplay.json")
        try Data(#"{"rules": {"OJ004": {"enabled": false}, "last-callback-wins": {"severity": "warning"}}}"#.utf8).write(to: config)
        // Found from the current directory upward, and named.
        #expect(try obsreplay(["diagnose", journal, "--format", "short"], in: nested) == RunResult(stdout: """
            App/FloatingWindow.swift:31: warning: [OJ001] 2 owners assigned Player#1.isPlayingChanged; FloatingWindow#2 (FloatingWindow.swift:31) was replaced at seq 2 while alive and missed 2 changes.

            """, stderr: "note: configuration \(config.path) applied\n", status: 0))
        // Not above the project's root: the gate is not silenced by a file planted there.
        _ = FileManager.default.createFile(atPath: nested.appendingPathComponent("Package.swift").path, contents: Data())
        let inProject = try obsreplay(["diagnose", journal, "--format", "short"], in: nested)
        #expect(inProject.status == 1 && inProject.stderr.isEmpty && inProject.stdout.contains("error: [OJ001]"), "\(inProject)")
        try FileManager.default.removeItem(at: nested.appendingPathComponent("Package.swift"))
        // Writable by anyone: ignored, and said so.
        chmod(config.path, 0o666)
        let planted = try obsreplay(["diagnose", journal, "--format", "short"], in: nested)
        #expect(planted.status == 1 && planted.stderr == "note: ignored configuration \(config.path): anyone may write it (mode 666)\n", "\(planted)")
        chmod(config.path, 0o644)
        let ignoring = directory.appendingPathComponent("ignore.json").path
        try Data(#"{"ignore-call-sites": ["App/Video*"], "budget-ms": 5}"#.utf8).write(to: URL(fileURLWithPath: ignoring))
        let ignored = try obsreplay(["diagnose", journal, "--config", ignoring, "--format", "short", "--fail-on", "info"])
        // OJ004 names only VideoScreen's call site: ignored; OJ001 also names FloatingWindow's: kept.
        #expect(ignored == RunResult(stdout: """
            App/FloatingWindow.swift:31: error: [OJ001] 2 owners assigned Player#1.isPlayingChanged; FloatingWindow#2 (FloatingWindow.swift:31) was replaced at seq 2 while alive and missed 2 changes.

            """, stderr: "note: configuration \(ignoring) applied\n", status: 1), "\(ignored)")
        let usage = "Usage: " + (try obsreplay(["diagnose", "--fial-on"]).stderr.components(separatedBy: "\n")[1].dropFirst("Usage: ".count))
        for (text, message) in [
            (#"{"rule": {}}"#, "unknown key 'rule'; did you mean 'rules'?"),
            (#"{"rules": {"OJ0001": {"enabled": false}}}"#, "unknown rule 'rules.OJ0001'; did you mean 'OJ001'?"),
            (#"{"rules": {"OJ001": {"severty": "info"}}}"#, "unknown key 'rules.OJ001.severty'; did you mean 'severity'?"),
            (#"{"rules": {"OJ001": {"severity": "warn"}}}"#, "invalid severity 'warn' for 'rules.OJ001.severity': expected one of error, warning, info; did you mean 'warning'?"),
            (#"{"budget-ms": "16"}"#, "'budget-ms' must be a whole number of milliseconds from 0 to 9223372036854"),
        ] {
            let bad = directory.appendingPathComponent("bad.json").path
            try Data(text.utf8).write(to: URL(fileURLWithPath: bad))
            let result = try obsreplay(["diagnose", journal, "--config", bad])
            #expect(result == RunResult(
                stdout: "", stderr: "error: \(bad): \(message)\n\(usage)\n  See 'obsreplay diagnose --help' for more information.\n", status: 64
            ), "\(result)")
        }
        try Data("not json".utf8).write(to: config)
        #expect(try obsreplay(["diagnose", journal], in: nested) == RunResult(
            stdout: "", stderr: "error: \(config.path): not valid JSON\n", status: 2
        ))
    }
}

@Test(.tags(.childProcess)) func didYouMeanForSubcommandsOptionsAndValues() throws {
    #expect(try obsreplay(["diagnoes"]).stderr == "error: unknown subcommand 'diagnoes'; did you mean 'diagnose'?\nUsage: obsreplay <subcommand>\n  See 'obsreplay --help' for more information.\n")
    #expect(try obsreplay(["diagnose", "j.sqlite", "--fial-on", "error"]).stderr.hasPrefix("error: unknown option '--fial-on'; did you mean '--fail-on'?\n"))
    #expect(try obsreplay(["diagnose", "j.sqlite", "--format", "sarf"]).stderr.hasPrefix("error: invalid value 'sarf' for '--format': expected one of text, short, github, sarif, junit, json; did you mean 'sarif'?\n"))
    #expect(try obsreplay(["help", "timelime"]).status == 64)
}

@Test(.tags(.childProcess)) func manyJournalsAndDirectoriesGroupedByFingerprint() throws {
    try withDirectory { directory in
        let fleet = directory.appendingPathComponent("fleet")
        try FileManager.default.createDirectory(at: fleet.appendingPathComponent("nested"), withIntermediateDirectories: true)
        try replacedCallbackJournal(fleet.appendingPathComponent("a.sqlite").path)
        try replacedCallbackJournal(fleet.appendingPathComponent("b.sqlite").path, extraObjects: 2)
        try replacedCallbackJournal(fleet.appendingPathComponent("nested/c.sqlite").path, line: 32, function: "show()")
        try Data("hello".utf8).write(to: fleet.appendingPathComponent("notes.sqlite"))
        try Data("not looked at".utf8).write(to: fleet.appendingPathComponent("readme.txt"))
        let grouped = try obsreplay(["diagnose", "fleet", "--group-by", "fingerprint"], in: directory)
        #expect(grouped == RunResult(stdout: """
            error[OJ001] last-callback-wins in 2 of 3 sessions, 2 journals (fingerprint 511fb43ea5b444bbd3fc7e21cbf7d3de)
                e.g. fleet/a.sqlite, session 1: 2 owners assigned Player#1.isPlayingChanged; FloatingWindow#2 (FloatingWindow.swift:31) was replaced at seq 2 while alive and missed 2 changes.
              fix: Make the channel multicast (ObservableValue or a notification) so every owner registers its own callback, or have one owner forward to the others.

            error[OJ001] last-callback-wins in 1 of 3 sessions, 1 journal (fingerprint 858907c3154779666124aef7970f46e5)
                e.g. fleet/nested/c.sqlite, session 1: 2 owners assigned Player#1.isPlayingChanged; FloatingWindow#2 (FloatingWindow.swift:32) was replaced at seq 2 while alive and missed 2 changes.
              fix: Make the channel multicast (ObservableValue or a notification) so every owner registers its own callback, or have one owner forward to the others.

            info[OJ004] leaked-registration in 3 of 3 sessions, 3 journals (fingerprint 19a4465bc50f338242199d53298984f3)
                e.g. fleet/a.sqlite, session 1: VideoScreen#3's registration on Player#1.isPlayingChanged (VideoScreen.swift:20) was still registered when the session ended.
              fix: Remove the registration when its scope ends (cancel its token there), or tie it to an owner that goes away with the scope.

            3 distinct findings (2 errors, 0 warnings, 1 info) in 3 sessions of 3 journals

            """, stderr: "note: skipped fleet/notes.sqlite: not a journal (not an SQLite database)\n", status: 1), "\(grouped)")
        // Files and directories mixed; the same exit codes as for one journal.
        let mixed = try obsreplay(["diagnose", "fleet/a.sqlite", "fleet/nested", "--format", "short", "--fail-on", "info"], in: directory)
        #expect(mixed == RunResult(stdout: """
            App/FloatingWindow.swift:31: error: [OJ001] 2 owners assigned Player#1.isPlayingChanged; FloatingWindow#2 (FloatingWindow.swift:31) was replaced at seq 2 while alive and missed 2 changes.
            App/VideoScreen.swift:20: info: [OJ004] VideoScreen#3's registration on Player#1.isPlayingChanged (VideoScreen.swift:20) was still registered when the session ended.
            App/FloatingWindow.swift:32: error: [OJ001] 2 owners assigned Player#1.isPlayingChanged; FloatingWindow#2 (FloatingWindow.swift:32) was replaced at seq 2 while alive and missed 2 changes.
            App/VideoScreen.swift:20: info: [OJ004] VideoScreen#3's registration on Player#1.isPlayingChanged (VideoScreen.swift:20) was still registered when the session ended.

            """, stderr: "", status: 1), "\(mixed)")
        let text = try obsreplay(["diagnose", "fleet/nested", "fleet/b.sqlite", "--fail-on", "never"], in: directory)
        #expect(text.status == 0)
        #expect(text.stdout.hasPrefix("error[OJ001] last-callback-wins (fleet/nested/c.sqlite, session 1): "))
        #expect(text.stdout.hasSuffix("\n4 findings (2 errors, 0 warnings, 2 info) in 2 sessions of 2 journals\n"))
        let json = try obsreplay(["diagnose", "fleet", "--group-by", "fingerprint", "--json"], in: directory)
        let groups = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(groups.map { [$0["code"] as? String, "\($0["sessions"] ?? "")", "\($0["journals"] ?? "")", "\($0["total_sessions"] ?? "")"] }
            == [["OJ001", "2", "2", "3"], ["OJ001", "1", "1", "3"], ["OJ004", "3", "3", "3"]])
        #expect(try obsreplay(["diagnose", "fleet", "--session", "1"], in: directory).stderr
            .hasPrefix("error: '--session' needs exactly one journal file\n"))
        // A gate that read nothing does not pass.
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("empty"), withIntermediateDirectories: true)
        #expect(try obsreplay(["diagnose", "empty", "fleet/notes.sqlite", "--json"], in: directory) == RunResult(
            stdout: "", stderr: "note: skipped fleet/notes.sqlite: not a journal (not an SQLite database)\nerror: no journal found in empty, fleet/notes.sqlite\n",
            status: 2
        ))
    }
}

@Test(.tags(.childProcess)) func sessionsAndStatsReadManyJournals() throws {
    try withDirectory { directory in
        let fleet = directory.appendingPathComponent("fleet")
        try FileManager.default.createDirectory(at: fleet, withIntermediateDirectories: true)
        try replacedCallbackJournal(fleet.appendingPathComponent("a.sqlite").path)
        try replacedCallbackJournal(fleet.appendingPathComponent("b.sqlite").path)
        try Data("hello".utf8).write(to: fleet.appendingPathComponent("notes.sqlite"))
        let notice = "note: skipped fleet/notes.sqlite: not a journal (not an SQLite database)\n"
        let sessions = try obsreplay(["sessions", "fleet"], in: directory)
        #expect(sessions == RunResult(stdout: """
            journal         id  label  started               duration  events  registrations  clean end
            fleet/a.sqlite   1  app    2025-01-01T10:00:00Z    2.000s       6              2  yes
            fleet/b.sqlite   1  app    2025-01-01T10:00:00Z    2.000s       6              2  yes

            """, stderr: notice, status: 0), "\(sessions)")
        let json = try obsreplay(["sessions", "fleet/b.sqlite", "fleet/a.sqlite", "--json"], in: directory)
        #expect(json.stdout.hasPrefix("[{\"journal\":\"fleet/b.sqlite\",\"id\":1,\"label\":\"app\","))
        let stats = try obsreplay(["stats", "fleet", "--json"], in: directory)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [[String: Any]])
        #expect(list.map { "\($0["journal"] ?? "") \($0["events"] ?? "")" } == ["fleet/a.sqlite 6", "fleet/b.sqlite 6"])
        #expect(stats.stderr == notice)
        let text = try obsreplay(["stats", "fleet/a.sqlite", "fleet/b.sqlite"], in: directory).stdout
        #expect(text.hasPrefix("== fleet/a.sqlite\nfile size "))
        #expect(text.contains("\n\n== fleet/b.sqlite\nfile size "))
    }
}

@Test(.tags(.childProcess)) func exportOfManyJournalsIsOneTableWithAJournalColumn() throws {
    try withDirectory { directory in
        let fleet = directory.appendingPathComponent("fleet")
        try FileManager.default.createDirectory(at: fleet, withIntermediateDirectories: true)
        try replacedCallbackJournal(fleet.appendingPathComponent("a.sqlite").path)
        try replacedCallbackJournal(fleet.appendingPathComponent("b.sqlite").path, line: 32)
        let csv = try obsreplay(["export", "fleet", "--what", "registrations", "--format", "csv"], in: directory)
        // Every row ends with where it comes from: two journals, two ids.
        let a = try provenanceCSV(fleet.appendingPathComponent("a.sqlite").path, session: 1)
        let b = try provenanceCSV(fleet.appendingPathComponent("b.sqlite").path, session: 1)
        #expect(a != b)
        #expect(csv == RunResult(stdout: [
            "journal,session_id,id,channel_id,channel,policy,owner_id,owner,call_site,function,options,queue,expects_main,sender,scope_id,scope,registered_seq,removed_seq,removal_reason,journal_id,host,run",
            "fleet/a.sqlite,1,1,1,Player#1.isPlayingChanged,singleSlot,2,FloatingWindow#2,App/FloatingWindow.swift:31,viewDidLoad(),new,,false,,,,1,2,replaced" + a,
            "fleet/a.sqlite,1,2,1,Player#1.isPlayingChanged,singleSlot,3,VideoScreen#3,App/VideoScreen.swift:20,f(),new,,false,,,,2,," + a,
            "fleet/b.sqlite,1,1,1,Player#1.isPlayingChanged,singleSlot,2,FloatingWindow#2,App/FloatingWindow.swift:32,viewDidLoad(),new,,false,,,,1,2,replaced" + b,
            "fleet/b.sqlite,1,2,1,Player#1.isPlayingChanged,singleSlot,3,VideoScreen#3,App/VideoScreen.swift:20,f(),new,,false,,,,2,," + b,
            "",
        ].joined(separator: "\r\n"), stderr: "", status: 0), "\(csv)")
        let jsonl = try obsreplay(["export", "fleet/b.sqlite", "fleet/a.sqlite", "--what", "findings", "--format", "jsonl"], in: directory)
        let lines = jsonl.stdout.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines.map { $0.hasPrefix("{\"journal\":\"fleet/b.sqlite\",") } == [true, true, false, false])
        #expect(lines.allSatisfy { $0.contains("\"fingerprint\":\"") })
        #expect(try obsreplay(["export", "fleet", "--what", "events", "--format", "chrome-trace"], in: directory).stderr
            .hasPrefix("error: '--format chrome-trace' exports one journal\n"))
    }
}

@Test(.tags(.childProcess)) func aDamagedJournalAmongManyIsAnErrorNotASkip() throws {
    try withDirectory { directory in
        let fleet = directory.appendingPathComponent("fleet")
        try FileManager.default.createDirectory(at: fleet, withIntermediateDirectories: true)
        try replacedCallbackJournal(fleet.appendingPathComponent("a.sqlite").path)
        let bytes = try Data(contentsOf: fleet.appendingPathComponent("a.sqlite"))
        try bytes.prefix(bytes.count / 2).write(to: fleet.appendingPathComponent("half.sqlite"))
        let damaged = "error: fleet/half.sqlite: journal is damaged (database disk image is malformed)\n"
        let result = try obsreplay(["diagnose", "fleet", "--format", "short", "--fail-on", "never"], in: directory)
        #expect(result == RunResult(stdout: """
            App/FloatingWindow.swift:31: error: [OJ001] 2 owners assigned Player#1.isPlayingChanged; FloatingWindow#2 (FloatingWindow.swift:31) was replaced at seq 2 while alive and missed 2 changes.
            App/VideoScreen.swift:20: info: [OJ004] VideoScreen#3's registration on Player#1.isPlayingChanged (VideoScreen.swift:20) was still registered when the session ended.

            """, stderr: damaged, status: 2), "\(result)")
        #expect(try obsreplay(["sessions", "fleet"], in: directory) == RunResult(stdout: "", stderr: damaged, status: 2))
    }
}
