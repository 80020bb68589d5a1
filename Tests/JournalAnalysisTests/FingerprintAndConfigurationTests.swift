import Foundation
import JournalAnalysis
import Testing
import TestSupport

// issue 15 §1-2, reached directly: what a fingerprint is made of, the configuration file's
// rules, the baseline file.

private func finding(sessionID: Int64 = 1, line: Int = 31, owner: String = "FloatingWindow#2", seqs: [Int64] = [1, 6]) -> Finding {
    Finding(
        rule: .lastCallbackWins, sessionID: sessionID, message: "m \(seqs)", evidence: ["seq \(seqs[0])"], seqs: seqs,
        callSites: ["App/FloatingWindow.swift:\(line)", "App/VideoScreen.swift:20"], owners: [owner, "VideoScreen#3"],
        channel: "Player#1.isPlayingChanged", count: 2
    )
}

@Test func fingerprintIsMadeOfRuleChannelTypesAndCallSitesOnly() {
    #expect(FindingFingerprint.identity(of: finding()) == """
        rule=OJ001
        channel=Player.isPlayingChanged
        owners=FloatingWindow,VideoScreen
        sites=App/FloatingWindow.swift:31,App/VideoScreen.swift:20
        """)
    #expect(finding().fingerprint == "2caadff5371ef9316d1fbad5411ed350")
    // Another session, other object ids, other sequence numbers and message: the same bug.
    #expect(finding(sessionID: 9, owner: "FloatingWindow#17", seqs: [40, 52]).fingerprint == finding().fingerprint)
    // Another line: another fingerprint.
    #expect(finding(line: 32).fingerprint != finding().fingerprint)
    #expect(finding(owner: "MiniPlayer#2").fingerprint != finding().fingerprint)
}

@Test func configurationAppliesDisabledRulesSeveritiesAndIgnoredCallSites() throws {
    let scratch = try ScratchDirectory("config")
    let directory = scratch.url
    try FileManager.default.createDirectory(at: directory.appendingPathComponent("a/b"), withIntermediateDirectories: true)
    let path = directory.appendingPathComponent(".obsreplay.json").path
    try Data(#"{"rules": {"OJ004": {"enabled": false}, "last-callback-wins": {"severity": "info"}}, "budget-ms": 33, "ignore-call-sites": ["Pods/*"]}"#.utf8)
        .write(to: URL(fileURLWithPath: path))
    #expect(DiagnosisConfiguration.find(from: directory.appendingPathComponent("a/b").path) == path)
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

@Test func didYouMeanSuggestsCloseWordsOnly() {
    #expect(DidYouMean.suggestion(for: "sarf", among: ["text", "short", "github", "sarif"]) == "sarif")
    #expect(DidYouMean.suggestion(for: "WARNING", among: ["error", "warning"]) == "warning")
    #expect(DidYouMean.suggestion(for: "warn", among: ["error", "warning"]) == "warning")
    #expect(DidYouMean.suggestion(for: "bogus", among: ["--json"]) == nil)
}
