import Foundation
import ObservationJournal
import ObservationJournalTesting
import ObserverCore
import Synchronization
import Testing
import TestSupport

// issue 28 §2: a recorded UI test fails on the app's line, and agrees with the CI gate's
// configuration and baseline. Written as an app's test would be, against the public API;
// the buggy flow is `recordDoubleShow` (ReadmeUITestTests.swift).

@Test func eachFindingFailsTheTestAtTheAppsCallSite() throws {
    let scratch = try ScratchDirectory()
    let recording = try recordDoubleShow(in: scratch)
    let recorded = Mutex<[Issue]>([])
    withKnownIssue {
        JournalDiagnosis.expectNoFindings(inJournalAt: recording.path, session: recording.sessionID)
    } matching: { issue in
        recorded.withLock { $0.append(issue) }
        return true
    }
    let issues = recorded.withLock { $0 }
    #expect(issues.count == 1)
    // Not this file's line: the line of NowPlayingScreen.show that registered twice.
    let location = try #require(issues.first?.sourceLocation)
    #expect(location.fileID == "AdoptionTests/ReadmeUITestTests.swift")
    #expect(location.line == 16)
    #expect(location.filePath.hasSuffix("/Tests/AdoptionTests/ReadmeUITestTests.swift"))
    #expect(FileManager.default.fileExists(atPath: location.filePath))
    let comment = issues.first?.comments.map(\.rawValue).joined() ?? ""
    #expect(comment.hasPrefix(
        "warning[OJ002] duplicate-registration: NowPlayingScreen#2 registered Player#1.isPlaying twice from ReadmeUITestTests.swift:16 (seq 1 and seq 2); its callback ran twice for 1 change.\n    "
    ), "\(comment)")
    #expect(comment.contains("\n  fix: ") && comment.contains("\n  fingerprint: "))
}

@Test func theTestTakesTheGatesConfigurationBaselineAndBudget() throws {
    let scratch = try ScratchDirectory()
    let recording = try recordDoubleShow(in: scratch)
    let all = try JournalDiagnosis.findings(inJournalAt: recording.path, session: recording.sessionID)
    #expect(all.map(\.code) == ["OJ002"])
    let fingerprint = try #require(all.first?.fingerprint)
    #expect(fingerprint.count == 32)

    // The baseline `obsreplay diagnose --write-baseline` writes: its findings are accepted.
    let baseline = scratch.path("obsreplay-baseline.json")
    try Data(#"{"version": 2, "fingerprints": [{"fingerprint": "\#(fingerprint)", "code": "OJ002"}]}"#.utf8)
        .write(to: URL(fileURLWithPath: baseline))
    #expect(try JournalDiagnosis.findings(inJournalAt: recording.path, session: recording.sessionID, baseline: baseline) == [])
    #expect(JournalDiagnosis.expectNoFindings(inJournalAt: recording.path, session: recording.sessionID, baseline: baseline) == [])

    // `.obsreplay.json`: a rule turned down to info is below the default minimum; turned off, gone.
    let lowered = scratch.path("lowered.json")
    try Data(#"{"rules": {"duplicate-registration": {"severity": "info"}}}"#.utf8).write(to: URL(fileURLWithPath: lowered))
    #expect(try JournalDiagnosis.findings(inJournalAt: recording.path, session: recording.sessionID, configuration: lowered) == [])
    #expect(try JournalDiagnosis.findings(
        inJournalAt: recording.path, session: recording.sessionID, minimum: .info, configuration: lowered
    ).map(\.severity) == [.info])

    // What the gate refuses, the test refuses: one line naming the file.
    let typo = scratch.path("typo.json")
    try Data(#"{"rulez": {}}"#.utf8).write(to: URL(fileURLWithPath: typo))
    #expect(throws: JournalDiagnosisError.self) {
        try JournalDiagnosis.findings(inJournalAt: recording.path, session: recording.sessionID, configuration: typo)
    }
    do {
        _ = try JournalDiagnosis.findings(inJournalAt: recording.path, session: recording.sessionID, configuration: typo)
    } catch {
        #expect(error.description.hasPrefix(typo + ": unknown key 'rulez'; did you mean 'rules'?"), "\(error)")
    }
    #expect {
        try JournalDiagnosis.findings(inJournalAt: recording.path, session: recording.sessionID, budgetMs: -1)
    } throws: { error in
        (error as? JournalDiagnosisError)?.description == "invalid slow-callback budget -1 ms"
    }
}

@Test func aJournalThatCannotBeReadFailsAtTheCaller() {
    let recorded = Mutex<[Issue]>([])
    withKnownIssue {
        JournalDiagnosis.expectNoFindings(inJournalAt: "/nonexistent/ui.sqlite", session: 1)
    } matching: { issue in
        recorded.withLock { $0.append(issue) }
        return true
    }
    let issues = recorded.withLock { $0 }
    #expect(issues.count == 1)
    #expect(issues.first?.sourceLocation?.fileID == "AdoptionTests/FindingLocationTests.swift")
}
