import JournalAnalysis
import JournalFixtures
import TestSupport
import Testing

// The tracking rules (OJ014–OJ016) look only at `withObservationTracking@` channels, and ask
// once per session whether it has any: a journal of several sessions answers per session,
// and a key that merely looks like a tracking site's is not one.

/// A tracking site armed, fired and never armed again while what it read changed twice.
private func firedOnce(_ s: FixtureSession, key: String) throws {
    let view = try s.object("ScoreView")
    let site = try s.channel(0, key)
    let arming = try s.register(site, owner: view, at: "ScoreView.swift:20", options: "prior")
    try s.post(site, new: "1")
    try s.remove(arming, reason: .tokenCancelled)
    try s.post(site, new: "2")
    try s.post(site, new: "3")
}

@Test func onlyTheSessionWithATrackingSiteHasTrackingFindings() throws {
    let path = try temporaryDirectory().appendingPathComponent("journal.sqlite").path
    let fixture = try JournalFixture(path: path)
    try firedOnce(try fixture.session(label: "look-alike"), key: "withObservationTracking")
    try firedOnce(try fixture.session(label: "tracking"), key: "withObservationTracking@ScoreView.swift:20")
    try firedOnce(try fixture.session(label: "other prefix"), key: "withObservationTrackingX@ScoreView.swift:20")
    try fixture.finish()
    let reader = try JournalReader(path: path)
    var codes: [String: [String]] = [:]
    for session in try reader.sessions() {
        codes[session.label] = try Diagnoser.diagnose(reader, session: session)
            .filter { $0.rule == .firstChangeOnly }.map(\.message)
    }
    #expect(codes == [
        "look-alike": [],
        "tracking": [
            "ScoreView#1's withObservationTracking at ScoreView.swift:20 fired once (seq 3) and was never armed again: it missed 2 later changes of what it read (3), first at seq 5.",
        ],
        "other prefix": [],
    ])
}
