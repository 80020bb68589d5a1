import Foundation
import JournalAnalysis
import Testing
import TestSupport

// issue 15 §1-2, reached directly: what a fingerprint is made of, the configuration file's
// rules, the baseline file.

private func finding(
    sessionID: Int64 = 1, line: Int = 31, function: String = "viewDidLoad()", owner: String = "FloatingWindow#2",
    seqs: [Int64] = [1, 6]
) -> Finding {
    var finding = Finding(
        rule: .lastCallbackWins, sessionID: sessionID, message: "m \(seqs)", evidence: ["seq \(seqs[0])"], seqs: seqs,
        callSites: ["App/FloatingWindow.swift:\(line)", "App/VideoScreen.swift:20"], owners: [owner, "VideoScreen#3"],
        channel: "Player#1.isPlayingChanged", count: 2
    )
    finding.functions = ["App/FloatingWindow.swift:\(line)": function, "App/VideoScreen.swift:20": "viewWillAppear(_:)"]
    return finding
}

@Test func fingerprintIsMadeOfRuleChannelTypesFilesAndFunctionsOnly() {
    #expect(FindingFingerprint.identity(of: finding()) == """
        rule=OJ001
        channel=Player.isPlayingChanged
        owners=FloatingWindow,VideoScreen
        sites=App/FloatingWindow.swift viewDidLoad(),App/VideoScreen.swift viewWillAppear(_:)
        """)
    #expect(finding().fingerprint == "fb76410d97b0aa5a51d56515547f1aed")
    // Another session, other object ids, other sequence numbers and message: the same bug.
    #expect(finding(sessionID: 9, owner: "FloatingWindow#17", seqs: [40, 52]).fingerprint == finding().fingerprint)
    // Another line (a line added above it): the same bug; another function: another.
    #expect(finding(line: 32).fingerprint == finding().fingerprint)
    #expect(finding(function: "show()").fingerprint != finding().fingerprint)
    #expect(finding(owner: "MiniPlayer#2").fingerprint != finding().fingerprint)
    // Version 1 (what old baselines hold) had the lines, in the finding's order.
    #expect(FindingFingerprint.legacyFingerprint(of: finding()) == "2caadff5371ef9316d1fbad5411ed350")
    #expect(FindingFingerprint.legacyFingerprint(of: finding(line: 32)) != "2caadff5371ef9316d1fbad5411ed350")
}

@Test func sourceLinesAreFoundUnderTheRootAndComparedWithoutWhitespace() throws {
    let scratch = try ScratchDirectory("source")
    let app = scratch.url.appendingPathComponent("Sources/App")
    try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
    func write(_ lines: [String]) throws {
        try Data(lines.joined(separator: "\n").utf8).write(to: app.appendingPathComponent("FloatingWindow.swift"))
    }
    let call = "        player.onPlayingChanged = { [weak self] in self?.update() }"
    try write(Array(repeating: "", count: 30) + [call])
    let locator = SourceLocator(root: scratch.url.path)
    #expect(locator.sourceLine("App/FloatingWindow.swift:31") == "player.onPlayingChanged = { [weak self] in self?.update() }")
    #expect(locator.sourceLine("App/FloatingWindow.swift:30") == nil)  // blank
    #expect(locator.sourceLine("App/FloatingWindow.swift:99") == nil)  // past the end
    #expect(locator.sourceLine("App/Missing.swift:1") == nil)
    let before = try #require(FindingFingerprint.sourceHash(of: finding(), locator: locator))
    // A comment added at the top and the call re-indented: the same line, one further down.
    try write(["// Copyright"] + Array(repeating: "", count: 30) + ["\t player.onPlayingChanged =  { [weak self] in self?.update() }"])
    #expect(FindingFingerprint.sourceHash(of: finding(line: 32), locator: SourceLocator(root: scratch.url.path)) == before)
    // The line itself edited: another hash.
    try write(Array(repeating: "", count: 30) + ["        player.onPlayingChanged = { [weak self] in self?.render() }"])
    #expect(FindingFingerprint.sourceHash(of: finding(), locator: SourceLocator(root: scratch.url.path)) != before)
    #expect(FindingFingerprint.sourceHash(of: finding(), locator: SourceLocator(root: scratch.url.appendingPathComponent("Sources/None").path)) == nil)
}

@Test func baselineEntriesMatchByFingerprintSourceAndOldFingerprint() throws {
    let fingerprint = finding().fingerprint
    let exact = Baseline(entries: [Baseline.Entry(fingerprint: fingerprint, source: "s1")])
    #expect(exact.match(finding(), source: "s1") == .current(Baseline.Entry(fingerprint: fingerprint, source: "s1")))
    // Another line's text in the same function: another finding.
    #expect(exact.match(finding(), source: "s2") == nil)
    // Sources not at hand on one side: the fingerprint decides.
    #expect(exact.match(finding(), source: nil) != nil)
    #expect(Baseline(entries: [Baseline.Entry(fingerprint: fingerprint)]).match(finding(), source: "s2") != nil)
    #expect(exact.match(finding(function: "show()"), source: "s1") == nil)
    // Two entries of one fingerprint: a finding without sources accounts for both (neither is stale).
    let two = Baseline(entries: [Baseline.Entry(fingerprint: fingerprint, source: "s1"), Baseline.Entry(fingerprint: fingerprint, source: "s2")])
    let loose = try #require(two.match(finding(), source: nil))
    #expect(two.matched(by: loose, source: nil).count == 2)
    #expect(two.matched(by: try #require(two.match(finding(), source: "s2")), source: "s2") == [Baseline.Entry(fingerprint: fingerprint, source: "s2")])
    // A version-1 entry matches by the line-numbered fingerprint, and says so.
    let old = Baseline(entries: [Baseline.Entry(fingerprint: "2caadff5371ef9316d1fbad5411ed350")], version: 1)
    #expect(old.match(finding()) == .legacy(Baseline.Entry(fingerprint: "2caadff5371ef9316d1fbad5411ed350")))
    #expect(old.match(finding(line: 32)) == nil)
    #expect(old.stale(matched: []) == [Baseline.Entry(fingerprint: "2caadff5371ef9316d1fbad5411ed350")])
}

@Test func configurationAppliesDisabledRulesSeveritiesAndIgnoredCallSites() throws {
    let scratch = try ScratchDirectory("config")
    let directory = scratch.url
    try FileManager.default.createDirectory(at: directory.appendingPathComponent("a/b"), withIntermediateDirectories: true)
    let path = directory.appendingPathComponent(".obsreplay.json").path
    try Data(#"{"rules": {"OJ004": {"enabled": false}, "last-callback-wins": {"severity": "info"}}, "budget-ms": 33, "ignore-call-sites": ["Pods/*"]}"#.utf8)
        .write(to: URL(fileURLWithPath: path))
    #expect(DiagnosisConfiguration.find(from: directory.appendingPathComponent("a/b").path) == .found(path))
    let configuration = try DiagnosisConfiguration.load(path: path)
    #expect(configuration.disabled == [.leakedRegistration])
    #expect(configuration.severities == [.lastCallbackWins: .info])
    #expect(configuration.budgetMs == 33)
    let leak = Finding(rule: .leakedRegistration, sessionID: 1, message: "leak", callSites: ["App/A.swift:1"])
    let thirdParty = Finding(rule: .removeUnregistered, sessionID: 1, message: "pods", callSites: ["Pods/X.swift:3"])
    let mixed = Finding(rule: .removeUnregistered, sessionID: 1, message: "mixed", callSites: ["Pods/X.swift:3", "App/A.swift:1"])
    let applied = configuration.apply([finding(), leak, thirdParty, mixed])
    #expect(applied.map(\.message) == ["m [1, 6]", "mixed"])
    #expect(applied.map(\.severity) == [.info, .warning])
    // Every rule of the catalog is accepted by code and by name: the catalog is the list.
    for rule in Rule.allCases {
        for name in [rule.code, rule.name] {
            try Data(#"{"rules": {"\#(name)": {"enabled": false}}}"#.utf8).write(to: URL(fileURLWithPath: path))
            #expect(try DiagnosisConfiguration.load(path: path).disabled == [rule])
        }
    }
}

/// Issue 27 §4: a configuration planted above the project, or by another user, or
/// writable by others, is not applied.
@Test func configurationIsLookedForOnlyUpToTheProjectAndOnlyInTheUsersOwnFiles() throws {
    let scratch = try ScratchDirectory("config-lookup")
    let shared = scratch.url
    let project = shared.appendingPathComponent("project")
    let nested = project.appendingPathComponent("ci/step")
    try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
    let planted = shared.appendingPathComponent(".obsreplay.json").path
    try Data(#"{"rules": {"OJ001": {"enabled": false}}}"#.utf8).write(to: URL(fileURLWithPath: planted))
    // No project marker: found above, as before.
    #expect(DiagnosisConfiguration.find(from: nested.path) == .found(planted))
    // A Swift package or a git work tree (a directory, or a worktree's file) ends the search.
    for marker in ["Package.swift", ".git"] {
        let markerPath = project.appendingPathComponent(marker).path
        _ = FileManager.default.createFile(atPath: markerPath, contents: Data())
        #expect(DiagnosisConfiguration.find(from: nested.path) == .none, "\(marker)")
        try FileManager.default.removeItem(atPath: markerPath)
    }
    try FileManager.default.createDirectory(at: project.appendingPathComponent(".git"), withIntermediateDirectories: false)
    #expect(DiagnosisConfiguration.find(from: nested.path) == .none)
    // Inside the project: found, at the project's root too.
    let own = project.appendingPathComponent(".obsreplay.json").path
    try Data("{}".utf8).write(to: URL(fileURLWithPath: own))
    chmod(own, 0o644)
    #expect(DiagnosisConfiguration.find(from: nested.path) == .found(own))
    // Another user's file, or one others may write: ignored, with the reason.
    let me = geteuid(), myGroup = getegid()
    #expect(DiagnosisConfiguration.find(from: nested.path, user: me + 1, group: myGroup)
        == .ignored(own, reason: "it is owned by uid \(me), not by you (uid \(me + 1))"))
    chmod(own, 0o666)
    #expect(DiagnosisConfiguration.find(from: nested.path) == .ignored(own, reason: "anyone may write it (mode 666)"))
    chmod(own, 0o664)
    #expect(DiagnosisConfiguration.find(from: nested.path) == .found(own))
    #expect(DiagnosisConfiguration.find(from: nested.path, user: me, group: myGroup + 1)
        == .ignored(own, reason: "group \(myGroup) may write it (mode 664)"))
    // A symlink is judged as the link and its target.
    try FileManager.default.removeItem(atPath: own)
    chmod(planted, 0o644)
    try FileManager.default.createSymbolicLink(atPath: own, withDestinationPath: planted)
    #expect(DiagnosisConfiguration.find(from: nested.path) == .found(own))
    #expect(DiagnosisConfiguration.find(from: nested.path, user: me + 1, group: myGroup)
        == .ignored(own, reason: "it is a symbolic link owned by uid \(me), not by you (uid \(me + 1))"))
    try FileManager.default.removeItem(atPath: own)
    try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: false)
    #expect(DiagnosisConfiguration.find(from: nested.path) == .ignored(own, reason: "it is not a regular file"))
}

@Test func didYouMeanSuggestsCloseWordsOnly() {
    #expect(DidYouMean.suggestion(for: "sarf", among: ["text", "short", "github", "sarif"]) == "sarif")
    #expect(DidYouMean.suggestion(for: "WARNING", among: ["error", "warning"]) == "warning")
    #expect(DidYouMean.suggestion(for: "warn", among: ["error", "warning"]) == "warning")
    #expect(DidYouMean.suggestion(for: "bogus", among: ["--json"]) == nil)
}
