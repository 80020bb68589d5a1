import Foundation
import JournalAnalysis
import JournalFixtures
import ObservationJournal
import Testing

/// Bugs the mutation harness found in the analysis of hostile journals (RELIABILITY.md).

/// A change claiming a dispatch depth of 2³¹−1 made the feedback-loop rule fill its
/// dispatch stack with two billion placeholders: `diagnose` ran out of time and memory.
/// Only the depths that occur are kept now; the missing levels show as one `?`.
@Test func aHugeDispatchDepthIsOneLevelNotTwoBillion() throws {
    let path = try temporaryDirectory().appendingPathComponent("journal.sqlite").path
    let fixture = try JournalFixture(path: path)
    let s = try fixture.session()
    let player = try s.object("Player")
    let volume = try s.channel(player, "volume")
    try s.register(volume, owner: try s.object("Slider"), at: "Slider.swift:20")  // seq 1
    try s.post(volume, old: "1", new: "2") { _ in  // seq 2
        try s.change(volume, old: "2", new: "3", at: "Player.swift:72")  // seq 3, depth 1
    }
    try fixture.finish()
    try JournalFixture.edit(path, "UPDATE events SET depth = 2147483647 WHERE seq = 3")
    let reader = try JournalReader(path: path)
    let found = try Diagnoser.diagnose(reader, session: try reader.session(nil), options: DiagnosisOptions())
        .filter { $0.rule == .feedbackLoop }
    #expect(found.map(\.message) == [
        "Player#1.volume was changed again from inside its own delivery once, up to depth 2147483647 (chain Player#1.volume → ? → Player#1.volume; first at seq 3, posted at Player.swift:72).",
    ])
    #expect(found.first?.evidence.first == "seq 3: re-entrant change at depth 2147483647, posted at Player.swift:72")
}

/// Found by the mutation harness: `check` computed the next expected seq as `seq + 1`,
/// which traps on a journal holding seq 2⁶³−1; replaying a change there did the same.
@Test func theLargestSeqIsCheckedAndReplayedWithoutOverflow() throws {
    let path = try temporaryDirectory().appendingPathComponent("journal.sqlite").path
    let fixture = try JournalFixture(path: path)
    let s = try fixture.session()
    let player = try s.object("Player")
    let rate = try s.channel(player, "rate")
    try s.register(rate, owner: try s.object("Screen"), at: "Screen.swift:5")  // seq 1
    s.skipSeqs(Int64.max - 2)
    try s.change(rate, old: "1", new: "2")  // seq 2⁶³−1
    try fixture.finish()
    let reader = try JournalReader(path: path)
    let check = try JournalCheck.run(reader)
    #expect(check.seqGaps.map { "\($0.from)-\($0.to)" } == ["2-9223372036854775806"])
    let state = try ReplayEngine.replay(reader, session: try reader.session(nil), at: .max)
    #expect(state.change?.seq == .max)
}

/// Found by the mutation harness: a delivery claiming to have taken 2⁶³−1 ns made
/// `timeline`, `replay` and `diagnose` trap rounding it to tenths of a millisecond.
@Test func durationsAtTheEdgesOfInt64PrintWithoutOverflow() {
    #expect(milliseconds(.max) == "9223372036854.8 ms")
    #expect(milliseconds(.min) == "-9223372036854.8 ms")
    #expect(milliseconds(1_250_000) == "1.3 ms")
    #expect(milliseconds(1_249_999) == "1.2 ms")
    #expect(milliseconds(48_200_000) == "48.2 ms")
    #expect(milliseconds(0) == "0.0 ms")
    #expect(milliseconds(-300_000) == "-0.3 ms")
}
