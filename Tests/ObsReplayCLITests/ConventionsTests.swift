import Foundation
import FoundationXML
import JournalAnalysis
@testable import ObsReplayCLI
import SystemShim
import Testing
import TestSupport

// issue 28 §5: the command-line conventions a daily user expects, end to end.

private func withJournal<T>(_ body: (URL, String) throws -> T) throws -> T {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory, try demoJournal(in: directory))
}

@Test(.tags(.childProcess)) func diagnoseWritesToTheFileOptionNamesLikeEveryCommand() throws {
    try withJournal { directory, path in
        let printed = try obsreplay(["diagnose", path, "--session", "1"])
        let report = directory.appendingPathComponent("diagnosis.txt").path
        let written = try obsreplay(["diagnose", path, "--session", "1", "-o", report])
        #expect(written == RunResult(stdout: "", stderr: "", status: printed.status))
        #expect(try String(contentsOfFile: report, encoding: .utf8) == printed.stdout)
        // As export's -o: a new file is the user's alone, and the journal is never the output.
        #expect(try FileManager.default.attributesOfItem(atPath: report)[.posixPermissions] as? Int == 0o600)
        let refused = try obsreplay(["diagnose", path, "--output", path])
        #expect(refused.status == 2 && refused.stdout.isEmpty && refused.stderr.hasPrefix("error: "), "\(refused)")
        let json = directory.appendingPathComponent("diagnosis.json").path
        #expect(try obsreplay(["diagnose", path, "--json", "-o", json]).status == 1)
        #expect(try String(contentsOfFile: json, encoding: .utf8) == obsreplay(["diagnose", path, "--json"]).stdout)
    }
}

@Test(.tags(.childProcess)) func formatJsonMeansJsonAndOtherFormatsSuggestIt() throws {
    try withJournal { _, path in
        let json = try obsreplay(["diagnose", path, "--json"])
        #expect(try obsreplay(["diagnose", path, "--format", "json"]) == json)
        #expect(try obsreplay(["diagnose", path, "--format=json"]) == json)
        #expect(try obsreplay(["sessions", path, "--format", "json"]) == obsreplay(["sessions", path, "--json"]))
        #expect(try obsreplay(["stats", path, "--format=json"]) == obsreplay(["stats", path, "--json"]))
        #expect(try obsreplay(["sessions", path, "--format", "csv"]) == RunResult(stdout: "", stderr: """
            error: unknown option '--format'; did you mean '--json'?
            Usage: obsreplay sessions <journal> ... [--json]
              See 'obsreplay sessions --help' for more information.

            """, status: 64))
        #expect(try obsreplay(["diagnose", path, "--json", "--format", "short"]).stderr.hasPrefix(
            "error: '--json' and '--format' cannot be used together\n"
        ))
    }
}

@Test(.tags(.childProcess)) func everyHelpListsColorAndMisspellingsOfItGetASuggestion() throws {
    for command in ObsReplay.commands.map(\.spec.name) {
        let help = try obsreplay([command, "--help"]).stdout
        #expect(help.contains("\n  --color <when>          Colour: auto, always or never.\n"), "\(command)")
        // The command's name once in each usage line, never twice.
        #expect(!help.contains("obsreplay \(command) \(command)"), "\(command)")
    }
    #expect(try obsreplay(["diagnose", "--help"]).stdout.contains(
        "\nUSAGE: obsreplay diagnose <journal> ... [--session <n>]"
    ))
    #expect(try obsreplay(["diagnose", "--help"]).stdout.contains("\n       obsreplay diagnose --explain <code>\n"))
    #expect(try obsreplay(["timeline", "j.sqlite", "--colour", "never"]).stderr.hasPrefix(
        "error: unknown option '--colour'; did you mean '--color'?\n"
    ))
    #expect(try obsreplay(["--colour", "never", "sessions", "j.sqlite"]).stderr.hasPrefix(
        "error: unknown option '--colour'; did you mean '--color'?\n"
    ))
}

@Test func aDumbTerminalIsNotColoured() throws {
    let terminal = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    try #require(terminal >= 0)
    defer { close(terminal) }
    #expect(Style(descriptor: terminal, environment: ["TERM": "xterm-256color"]).colour)
    #expect(!Style(descriptor: terminal, environment: ["TERM": "dumb"]).colour)
    #expect(ColourChoice.always.style(descriptor: terminal, environment: ["TERM": "dumb"]).colour)
}

@Test(.tags(.childProcess)) func quietPrintsOnlyWhatFailsTheGate() throws {
    try withJournal { _, path in
        // Session 2 is clean: nothing at all, exit 0.
        #expect(try obsreplay(["diagnose", path, "--session", "2", "--quiet"]) == RunResult(stdout: "", stderr: "", status: 0))
        // Session 1: the error fails the gate and is printed; the info does not, and is not.
        let loud = try obsreplay(["diagnose", path, "--session", "1"])
        let quiet = try obsreplay(["diagnose", path, "--session", "1", "-q"])
        #expect(quiet.status == 1 && loud.status == 1 && quiet.stderr.isEmpty)
        #expect(quiet.stdout.hasPrefix("error[OJ001] last-callback-wins (session 1): "))
        #expect(!quiet.stdout.contains("info[") && loud.stdout.contains("info[OJ004]"))
        #expect(!quiet.stdout.contains("findings ("))
        #expect(loud.stdout.hasPrefix(quiet.stdout))
        let short = try obsreplay(["diagnose", path, "--format", "short", "--quiet", "--fail-on", "info"])
        #expect(short.stdout == (try obsreplay(["diagnose", path, "--format", "short"])).stdout)
        // A directory with a file that is not a journal: the notice is left out too.
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try Data("not a journal".utf8).write(to: directory.appendingPathComponent("notes.sqlite"))
        #expect(try obsreplay(["diagnose", directory.path, "--fail-on", "never"]).stderr.hasPrefix("note: skipped "))
        #expect(try obsreplay(["diagnose", directory.path, "--fail-on", "never", "--quiet"]) == RunResult(stdout: "", stderr: "", status: 0))
    }
}

@Test(.tags(.childProcess)) func junitIsOneSuitePerSessionAndOneCasePerRule() throws {
    try withJournal { directory, path in
        let result = try obsreplay(["diagnose", "demo.sqlite", "--format", "junit"], in: directory)
        #expect(result.status == 1 && result.stderr.isEmpty)
        // Read back with Foundation's XML parser: well-formed, and what CI systems count.
        let document = try XMLDocument(data: Data(result.stdout.utf8))
        let root = try #require(document.rootElement())
        #expect(root.name == "testsuites")
        let suites = root.elements(forName: "testsuite")
        #expect(suites.map { $0.attribute(forName: "name")?.stringValue } == ["demo.sqlite, session 1", "demo.sqlite, session 2"])
        #expect(suites.map { $0.attribute(forName: "tests")?.stringValue } == ["18", "18"])
        #expect(suites.map { $0.attribute(forName: "failures")?.stringValue } == ["1", "0"])
        let cases = suites[0].elements(forName: "testcase")
        #expect(cases.count == 18)
        #expect(cases.first?.attribute(forName: "name")?.stringValue == "OJ001 last-callback-wins")
        #expect(cases.first?.attribute(forName: "classname")?.stringValue == "demo_sqlite.session_1")
        let failure = try #require(cases.first?.elements(forName: "failure").first)
        #expect(failure.attribute(forName: "type")?.stringValue == "error")
        #expect(failure.attribute(forName: "message")?.stringValue
            == "2 owners assigned Player#1.isPlayingChanged; FloatingWindow#2 (FloatingWindow.swift:31) was replaced at seq 6 while alive and missed 2 changes.")
        #expect(failure.stringValue?.hasPrefix("App/FloatingWindow.swift:31: error: [OJ001] 2 owners assigned") == true)
        // The info does not fail the default gate: kept as output, not a failure.
        let leaked = try #require(cases.first { $0.attribute(forName: "name")?.stringValue == "OJ004 leaked-registration" })
        #expect(leaked.elements(forName: "failure").isEmpty)
        #expect(leaked.elements(forName: "system-out").first?.stringValue?.contains("info: [OJ004]") == true)
        // --fail-on info fails it; a rule turned off is no test case.
        let strict = try XMLDocument(data: Data(try obsreplay(["diagnose", "demo.sqlite", "--format", "junit", "--fail-on", "info"], in: directory).stdout.utf8))
        #expect(strict.rootElement()?.elements(forName: "testsuite").first?.attribute(forName: "failures")?.stringValue == "2")
        try Data(#"{"rules": {"OJ012": {"enabled": false}}}"#.utf8).write(to: directory.appendingPathComponent(".obsreplay.json"))
        let configured = try XMLDocument(data: Data(try obsreplay(["diagnose", "demo.sqlite", "--format", "junit"], in: directory).stdout.utf8))
        #expect(configured.rootElement()?.elements(forName: "testsuite").first?.attribute(forName: "tests")?.stringValue == "17")
    }
}

@Test func junitTextCannotBreakTheDocument() {
    #expect(JUnitReport.attribute("a\"<b>&\n\u{1}\u{202E}") == "a&quot;&lt;b&gt;&amp;&#10;\\u{1}\\u{202E}")
    #expect(JUnitReport.text("]]> <x> \u{0}") == "]]&gt; &lt;x&gt; \\u{0}")
}

@Test(.tags(.childProcess)) func baselinesArePrettySortedAndReportStaleEntries() throws {
    try withJournal { directory, path in
        let baseline = directory.appendingPathComponent("baseline.json").path
        #expect(try obsreplay(["diagnose", path, "--write-baseline", baseline]).status == 1)
        let text = try String(contentsOfFile: baseline, encoding: .utf8)
        #expect(text.hasPrefix("{\n  \"version\": 2,\n  \"fingerprints\": [\n    {\n      \"fingerprint\": \""))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let entries = try #require(object["fingerprints"] as? [[String: Any]])
        let prints = entries.compactMap { $0["fingerprint"] as? String }
        #expect(prints.count == 2 && prints == prints.sorted())
        // Every run of the same journal writes the same bytes.
        #expect(try obsreplay(["diagnose", path, "--write-baseline", baseline]).status == 1)
        #expect(try String(contentsOfFile: baseline, encoding: .utf8) == text)
        // An entry nothing matches any more is reported, named, when every session was read.
        var stale = entries
        stale.append(["fingerprint": "00000000000000000000000000000000", "code": "OJ003", "name": "remove-unregistered", "message": "fixed long ago"])
        try JSONSerialization.data(withJSONObject: ["version": 2, "fingerprints": stale]).write(to: URL(fileURLWithPath: baseline))
        let result = try obsreplay(["diagnose", path, "--baseline", baseline])
        #expect(result == RunResult(stdout: """
            0 findings (0 errors, 0 warnings, 0 info) in sessions 1-2 of \(path)
            \(baseline): 2 findings baselined, 0 new
            \(baseline): 1 stale entry that no finding matched any more (fixed? remove with --write-baseline):
              stale: 00000000000000000000000000000000 OJ003 remove-unregistered: fixed long ago

            """, stderr: "", status: 0))
        #expect(try obsreplay(["diagnose", path, "--baseline", baseline, "--format", "short"]) == RunResult(
            stdout: "", stderr: "note: \(baseline): 1 stale entry that no finding matched any more (remove with --write-baseline): "
                + "00000000000000000000000000000000\n", status: 0
        ))
        // Grouped by fingerprint, the same lines follow the groups' summary.
        #expect(try obsreplay(["diagnose", path, "--baseline", baseline, "--group-by", "fingerprint"]).stdout.hasSuffix("""
            \(baseline): 2 findings baselined, 0 new
            \(baseline): 1 stale entry that no finding matched any more (fixed? remove with --write-baseline):
              stale: 00000000000000000000000000000000 OJ003 remove-unregistered: fixed long ago

            """))
        // One session is not the whole journal: entries of the others are not stale.
        #expect(!(try obsreplay(["diagnose", path, "--baseline", baseline, "--session", "2"])).stdout.contains("stale"))
    }
}
