import Foundation
import JournalAnalysis
import JournalFixtures
import TestSupport

/// Writes a journal with one session built by `build` and opens it for reading.
func journal(
    clean: Bool = true, label: String = "test", _ build: (FixtureSession) throws -> Void
) throws -> (JournalReader, SessionSummary) {
    let path = try temporaryDirectory().appendingPathComponent("journal.sqlite").path
    let fixture = try JournalFixture(path: path)
    try build(try fixture.session(label: label, clean: clean))
    try fixture.finish()
    let reader = try JournalReader(path: path)
    return (reader, try reader.session(nil))
}

/// The findings of one rule in a one-session journal.
func findings(
    _ rule: Rule, clean: Bool = true, options: DiagnosisOptions = DiagnosisOptions(),
    _ build: (FixtureSession) throws -> Void
) throws -> [Finding] {
    let (reader, session) = try journal(clean: clean, build)
    return try Diagnoser.diagnose(reader, session: session, options: options).filter { $0.rule == rule }
}

/// The classic bug: three screens assign the player's single callback property.
/// Seq 1 FloatingWindow#2 assigns; 7 posts reach it (seqs 2-15); seq 16 a scope begins;
/// seq 17 VideoScreen#3 replaces it; 12 posts reach only VideoScreen#3 (seqs 18-41);
/// seq 42 ListScreen#4 replaces VideoScreen#3.
func threeAssigners(_ s: FixtureSession) throws {
    let player = try s.object("Player")
    let floating = try s.object("FloatingWindow")
    let video = try s.object("VideoScreen")
    let list = try s.object("ListScreen")
    let slot = try s.channel(player, "isPlayingChanged", singleSlot: true)
    try s.register(slot, owner: floating, at: "FloatingWindow.swift:31")
    for index in 0..<7 { try s.post(slot, new: "\(index % 2 == 0)", at: "Player.swift:40") }
    _ = try s.beginScope("VideoScreen visible")
    try s.register(slot, owner: video, at: "VideoScreen.swift:20")
    for index in 0..<12 { try s.post(slot, new: "\(index % 2 == 0)", at: "Player.swift:40") }
    try s.register(slot, owner: list, at: "ListScreen.swift:12")
}
