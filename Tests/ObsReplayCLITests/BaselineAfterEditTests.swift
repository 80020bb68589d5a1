import Foundation
import JournalAnalysis
import ObservationJournal
import ObserverCore
import Testing
import TestSupport

// issue 33 §3, end to end: a baseline written before an unrelated edit of the app's source
// still matches after it, and a real new bug still fails the gate. The app's source is a
// file on disk under the source root; each recording takes every call's file, line and
// function from that file as it is then (what `#fileID`, `#line` and `#function` give the
// rebuilt app), so an edit moves the recorded lines as a rebuild would.

/// The app as first written: `show(_:)` registers on every call, and the screen is shown
/// twice without being hidden (OJ002, a warning).
private let firstVersion = """
    import ObserverCore

    final class VideoScreen {
        private var tokens: [ObservationToken] = []

        func show(_ player: Player) {
            tokens.append(player.$isPlaying.observe(owner: self) { screen, change in screen.render(change.new) })
        }
    }
    """

final class EditedPlayer {}
final class VideoScreen {}

/// Records the app's flow as the source in `source` makes it: `show(_:)` called twice, and,
/// when the source has `showTitle(_:)`, that one called twice too.
private func record(_ journal: String, source: String) throws {
    let lines = source.components(separatedBy: "\n")
    func line(of text: String) -> Int? { lines.firstIndex { $0.contains(text) }.map { $0 + 1 } }
    let recording = try Journal.open(path: journal).startSession(label: "app")
    let player = EditedPlayer()
    let isPlaying = ObservableValue(false, subject: player, key: "isPlaying", registry: recording.registry)
    let title = ObservableValue("", subject: player, key: "title", registry: recording.registry)
    let screen = VideoScreen()
    var tokens: [ObservationToken] = []
    let show = try #require(line(of: "player.$isPlaying.observe"))
    for _ in 0..<2 {
        tokens.append(isPlaying.observe(owner: screen, file: "App/VideoScreen.swift", line: show, function: "show(_:)") { _, _ in })
    }
    if let showTitle = line(of: "player.$title.observe") {
        for _ in 0..<2 {
            tokens.append(title.observe(owner: screen, file: "App/VideoScreen.swift", line: showTitle, function: "showTitle(_:)") { _, _ in })
        }
    }
    isPlaying.value = true
    title.value = "Intro"
    tokens.removeAll()
    recording.close()
}

@Test(.tags(.childProcess)) func aBaselineSurvivesALineAddedAboveItsFindings() throws {
    let scratch = try ScratchDirectory("edit")
    let app = scratch.url.appendingPathComponent("Sources/App")
    try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
    let file = app.appendingPathComponent("VideoScreen.swift")
    func gate(_ journal: String, _ extra: [String]) throws -> RunResult {
        try obsreplay(["diagnose", journal, "--fail-on", "warning", "--source-root", scratch.url.path] + extra, in: scratch.url)
    }

    // Before: the bug is found, accepted into a baseline, and the gate passes.
    try Data(firstVersion.utf8).write(to: file)
    let before = scratch.path("before.sqlite")
    try record(before, source: firstVersion)
    #expect(try gate(before, ["--format", "short"]).stdout.hasPrefix("Sources/App/VideoScreen.swift:7: warning: [OJ002] "))
    let baseline = scratch.path("baseline.json")
    #expect(try gate(before, ["--write-baseline", baseline, "--quiet"]).status == 1)
    let written = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: baseline))) as? [String: Any])
    let entries = try #require(written["fingerprints"] as? [[String: Any]])
    #expect(written["version"] as? Int == 2)
    #expect(entries.map { $0["code"] as? String } == ["OJ002"])
    // The call's line was found under the source root: its text keys the entry too.
    #expect((entries.first?["source"] as? String)?.count == 32)

    // An unrelated edit: a comment line at the top. Rebuilt, the call is one line down.
    let edited = "// Copyright 2026 The App Authors\n" + firstVersion
    try Data(edited.utf8).write(to: file)
    let after = scratch.path("after.sqlite")
    try record(after, source: edited)
    #expect(try gate(after, ["--format", "short"]).stdout.hasPrefix("Sources/App/VideoScreen.swift:8: warning: [OJ002] "))
    #expect(try gate(after, ["--baseline", baseline]) == RunResult(stdout: """
        0 findings (0 errors, 0 warnings, 0 info) in session 1 of \(after)
        \(baseline): 1 finding baselined, 0 new

        """, stderr: "", status: 0))

    // A real new bug on a new line: it fails the gate, the old one stays accepted.
    let grown = edited.replacingOccurrences(of: "    }\n}", with: """
            }

            func showTitle(_ player: Player) {
                tokens.append(player.$title.observe(owner: self) { screen, change in screen.title = change.new })
            }
        }
        """)
    try Data(grown.utf8).write(to: file)
    let later = scratch.path("later.sqlite")
    try record(later, source: grown)
    let short = try gate(later, ["--baseline", baseline, "--format", "short"])
    #expect(short.status == 1)
    #expect(short.stdout.hasPrefix("Sources/App/VideoScreen.swift:12: warning: [OJ002] VideoScreen#2 registered EditedPlayer#1.title twice"), "\(short)")
    #expect(short.stdout.components(separatedBy: "\n").count == 2)

    // SARIF keeps the accepted finding as `unchanged`, the new one `new`, and says how it ended.
    let sarif = try gate(later, ["--baseline", baseline, "--format", "sarif"])
    #expect(sarif.status == 1)
    let log = try #require(try JSONSerialization.jsonObject(with: Data(sarif.stdout.utf8)) as? [String: Any])
    let run = try #require((log["runs"] as? [[String: Any]])?.first)
    let results = try #require(run["results"] as? [[String: Any]])
    #expect(results.map { $0["baselineState"] as? String } == ["unchanged", "new"])
    #expect(results.map { (($0["partialFingerprints"] as? [String: String])?["obsreplaySourceLine/v1"])?.count } == [32, 32])
    let invocations = try #require(run["invocations"] as? [[String: Any]])
    #expect(invocations.count == 1)
    #expect(invocations.first?["executionSuccessful"] as? Bool == true)
    #expect(invocations.first?["exitCode"] as? Int == 1)
}

@Test(.tags(.childProcess)) func aVersionOneBaselineKeepsPassingAndSaysHowToRewriteIt() throws {
    let scratch = try ScratchDirectory("old-baseline")
    let app = scratch.url.appendingPathComponent("Sources/App")
    try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
    let file = app.appendingPathComponent("VideoScreen.swift")
    try Data(firstVersion.utf8).write(to: file)
    let before = scratch.path("before.sqlite")
    try record(before, source: firstVersion)
    // The baseline an obsreplay before version 2 wrote: fingerprints with line numbers.
    let json = try #require(try JSONSerialization.jsonObject(with: Data(try obsreplay(["diagnose", before, "--json"]).stdout.utf8)) as? [[String: Any]])
    let legacy = try json.map { item in
        let rule = try #require(Rule(codeOrName: item["code"] as? String ?? ""))
        return FindingFingerprint.legacyFingerprint(of: Finding(
            rule: rule, sessionID: 1, message: "", callSites: item["call_sites"] as? [String] ?? [],
            owners: item["owners"] as? [String] ?? [], channel: item["channel"] as? String
        ))
    }
    let baseline = scratch.path("baseline.json")
    try JSONSerialization.data(withJSONObject: ["version": 1, "fingerprints": legacy.map { ["fingerprint": $0, "code": "OJ002"] }])
        .write(to: URL(fileURLWithPath: baseline))
    func gate(_ journal: String, _ extra: [String] = []) throws -> RunResult {
        try obsreplay(["diagnose", journal, "--fail-on", "warning", "--source-root", scratch.url.path, "--baseline", baseline] + extra, in: scratch.url)
    }
    func note(_ matched: String) -> String {
        "note: \(baseline) is a version-1 baseline, whose fingerprints hold line numbers (\(matched) matched that way): "
            + "a line added above a call site makes its finding new. Rewrite it once, from a run whose findings are all accepted: "
            + "obsreplay diagnose JOURNAL... --write-baseline \(baseline)\n"
    }
    // Unchanged code: it still passes, and says how to make it last.
    #expect(try gate(before) == RunResult(stdout: """
        0 findings (0 errors, 0 warnings, 0 info) in session 1 of \(before)
        \(baseline): 1 finding baselined, 0 new

        """, stderr: note("1 finding"), status: 0))
    let kept = try Data(contentsOf: URL(fileURLWithPath: baseline))
    // The one-step rewrite, from the run that passed.
    #expect(try obsreplay(["diagnose", before, "--source-root", scratch.url.path, "--write-baseline", baseline, "--quiet"], in: scratch.url).status == 0)

    // A line added above the call: the rewritten baseline still matches, quietly.
    let edited = "// Copyright 2026 The App Authors\n" + firstVersion
    try Data(edited.utf8).write(to: file)
    let after = scratch.path("after.sqlite")
    try record(after, source: edited)
    #expect(try gate(after) == RunResult(stdout: """
        0 findings (0 errors, 0 warnings, 0 info) in session 1 of \(after)
        \(baseline): 1 finding baselined, 0 new

        """, stderr: "", status: 0))
    // Not rewritten, the old baseline fails on the moved line, and the note says why and what to do.
    try kept.write(to: URL(fileURLWithPath: baseline))
    let failing = try gate(after, ["--quiet"])
    #expect(failing.status == 1)
    #expect(failing.stdout.hasPrefix("warning[OJ002] duplicate-registration (session 1): "))
    #expect(failing.stderr == note("0 findings"))
}
