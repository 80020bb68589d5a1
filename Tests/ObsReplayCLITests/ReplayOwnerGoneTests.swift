import Foundation
import JournalFixtures
import Testing
import TestSupport

// Issue 11 point 4: at a change that found an owner dead, replay must not call that owner
// alive in its live list while its registration waits to be swept.
@Test(.tags(.childProcess)) func replaySaysOwnerGoneNotYetSweptInsteadOfAlive() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("gone.sqlite").path
    let fixture = try JournalFixture(path: path)
    let s = try fixture.session(label: "gone", startedAt: "2025-01-01T10:00:00Z", endedAt: "2025-01-01T10:00:01Z")
    let rate = try s.channel(try s.object("Player"), "rate")
    let chart = try s.object("Chart")
    try s.register(rate, owner: chart, at: "Chart.swift:8")  // seq 1
    try s.register(rate, owner: try s.object("Label"), at: "Label.swift:3")  // seq 2
    try s.post(rate, old: "1", new: "2", at: "Player.swift:60")  // seqs 3-5
    try s.deallocate(chart, autoRemove: false, seenAt: 7)  // the chart goes without removing
    try s.post(rate, old: "2", new: "3", at: "Player.swift:60")  // seq 6; 7 found dead; 8 delivered
    try fixture.finish()
    #expect(try obsreplay(["replay", path, "--at", "6"]) == RunResult(stdout: """
        session 1 at seq 6 (+0.006s)

        live registrations:
          Player#1.rate (multicast, 2 live, 1 of them owner gone)
            reg 1  Chart#2  Chart.swift:8  since seq 1  owner gone, not yet swept
            reg 2  Label#3  Label.swift:3  since seq 2  alive

        change at seq 6: Player#1.rate  2 → 3  posted at Player.swift:60
          received (1):
            reg 2  Label#3  Label.swift:3  at seq 8  0.1 ms
          not received (1):
            reg 1  Chart#2  Chart.swift:8  owner deallocated (seen at seq 7)

        """, stderr: "", status: 0))
}
