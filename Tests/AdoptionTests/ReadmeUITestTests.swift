import Foundation
import ObservationJournal
import ObservationJournalTesting
import ObserverCore
import Testing
import TestSupport

// The README's recorded UI test, verbatim (ObsReplayCLITests' ReadmeTests checks that): it
// runs here as the app's own test would, and the test after it shows it fails on findings.

final class NowPlayingScreen {
    private(set) var showsPause = false
    private var tokens: [ObservationToken] = []

    func show(_ player: Player) {
        tokens.append(player.$isPlaying.observe(owner: self) { screen, change in
            screen.showsPause = change.new ?? false
        })
    }

    func hide() { tokens = [] }
}

/// A recorded UI test: it fails on the observer bugs its journal shows.
@Test func playbackHasNoObserverBugs() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let recording = try Journal.open(path: directory.appendingPathComponent("ui.sqlite").path)
        .startSession(label: "UI test: playback")
    let player = Player(registry: recording.registry)
    let screen = NowPlayingScreen()
    screen.show(player)
    player.isPlaying = true
    screen.hide()
    recording.close()
    // One failure per finding, on the line of the app that made it (its call site).
    JournalDiagnosis.expectNoFindings(inJournalAt: recording.path, session: recording.sessionID)
}

// The same flow with the classic bug (the screen shown twice without hiding): the check
// the README's test makes finds it.

/// The README's flow with the classic bug: the screen shown twice without hiding it.
func recordDoubleShow(in scratch: ScratchDirectory) throws -> RecordingSession {
    let recording = try Journal.open(path: scratch.path()).startSession(label: "UI test: playback, buggy")
    let player = Player(registry: recording.registry)
    let screen = NowPlayingScreen()
    screen.show(player)
    screen.show(player)
    player.isPlaying = true
    screen.hide()
    recording.close()
    return recording
}
@Test func theRecordedUITestsCheckFindsABug() throws {
    let scratch = try ScratchDirectory()
    let recording = try recordDoubleShow(in: scratch)
    let findings = try JournalDiagnosis.findings(inJournalAt: recording.path, session: recording.sessionID)
    #expect(findings.map(\.description) == [
        "warning[OJ002] duplicate-registration: NowPlayingScreen#2 registered Player#1.isPlaying twice from ReadmeUITestTests.swift:16 (seq 1 and seq 2); its callback ran twice for 1 change.",
    ])
    #expect(findings.first?.callSites == ["AdoptionTests/ReadmeUITestTests.swift:16"])
    #expect(try JournalDiagnosis.findings(inJournalAt: recording.path, session: recording.sessionID, minimum: .error) == [])
}

@Test func aJournalThatCannotBeReadIsAClearError() {
    #expect(throws: JournalDiagnosisError.self) {
        try JournalDiagnosis.findings(inJournalAt: "/nonexistent/ui.sqlite", session: 1)
    }
}
