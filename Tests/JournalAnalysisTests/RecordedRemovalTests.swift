import Foundation
import JournalAnalysis
import ObservationJournal
import ObserverCore
import Testing
import TestSupport

/// Found by the hostile-value test, which diagnoses journals recorded by the real writer:
/// a removal naming a key that was never observed is written with no channel id and the
/// channel's name as detail, and the rule took it for a removal of all of the owner's
/// registrations: "Screen#2 had never registered anything", about an owner that had.
@Test func aRecordedRemovalOfAMisspelledKeyIsReportedAsSuch() throws {
    final class Player {}
    final class Screen {}
    let path = try temporaryDirectory().appendingPathComponent("journal.sqlite").path
    let recording = try Journal.open(path: path).startSession(label: "typo")
    let player = Player(), screen = Screen()
    let volume = ObservableValue(1, subject: player, key: "volume", registry: recording.registry)
    let token = volume.observe(owner: screen) { _, _ in }  // seq 1
    recording.registry.removeObservers(
        owner: screen, subject: player, key: "volum", file: "Screen.swift", line: 9, function: "viewWillDisappear()"
    )  // seq 2
    recording.close()
    _ = token
    let reader = try JournalReader(path: path)
    let found = try Diagnoser.diagnose(reader, session: try reader.session(nil)).filter { $0.rule == .removeUnregistered }
    #expect(found.map(\.message) == [
        "Removal at Screen.swift:9 in viewWillDisappear() (seq 2) matched no live registration: no channel (Player#1.volum) was ever observed for Screen#2: check the key's spelling.",
    ])
}
