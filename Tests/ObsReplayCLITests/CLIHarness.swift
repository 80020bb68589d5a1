import Foundation
import JournalAnalysis
import JournalFixtures
import TestSupport
import Testing

/// What one run of the `obsreplay` binary produced.
struct RunResult: Equatable, CustomStringConvertible {
    var stdout: String
    var stderr: String
    var status: Int32

    var description: String { "status \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
}

/// The `obsreplay` binary built next to this test bundle.
func obsreplayBinary() throws -> URL { try ChildProcess.built("obsreplay") }

/// Runs `obsreplay` with `arguments`.
func obsreplay(_ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil) throws -> RunResult {
    try run(try obsreplayBinary(), arguments, environment: environment, in: directory)
}

/// Runs `executable` with `arguments` and `PATH=/usr/bin:/bin` plus `environment`.
func run(
    _ executable: URL, _ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil
) throws -> RunResult {
    let result = try ChildProcess.run(
        executable, arguments, environment: ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }, in: directory
    )
    return RunResult(stdout: result.stdout, stderr: result.stderr, status: result.status)
}

/// The bug of the seeds, recorded: three screens assign a player's single callback
/// property (session 1), and a clean session with nothing wrong (session 2).
/// Session 1: seq 1 FloatingWindow#2 assigns; seqs 2-5 two posts reach it; seq 6
/// VideoScreen#3 replaces it; seqs 7-10 two posts reach only VideoScreen#3.
func demoJournal(in directory: URL? = nil, wal: Bool = false) throws -> String {
    let path = try (directory ?? temporaryDirectory()).appendingPathComponent("demo.sqlite").path
    let fixture = try JournalFixture(path: path, wal: wal)
    let s = try fixture.session(label: "three screens", startedAt: "2025-01-01T10:00:00Z", endedAt: "2025-01-01T10:00:02.5Z")
    let player = try s.object("Player")
    let floating = try s.object("FloatingWindow")
    let video = try s.object("VideoScreen")
    let slot = try s.channel(player, "isPlayingChanged", singleSlot: true)
    try s.register(slot, owner: floating, at: "FloatingWindow.swift:31")
    try s.post(slot, old: "false", new: "true", at: "Player.swift:40")
    try s.post(slot, old: "true", new: "false", at: "Player.swift:40")
    try s.register(slot, owner: video, at: "VideoScreen.swift:20")
    try s.post(slot, old: "false", new: "true", at: "Player.swift:40")
    try s.post(slot, old: "true", new: "false", at: "Player.swift:40")
    let quiet = try fixture.session(label: "fixed", startedAt: "2025-01-01T11:00:00Z", endedAt: "2025-01-01T11:00:01Z")
    let rate = try quiet.channel(try quiet.object("Player"), "rate")
    let token = try quiet.register(rate, owner: try quiet.object("Screen"), at: "Screen.swift:5")
    try quiet.post(rate, old: "1", new: "2", at: "Player.swift:60")
    try quiet.remove(token, reason: .tokenCancelled, at: "Screen.swift:9")
    try fixture.finish()
    return path
}

/// The cells every row of a plain export ends with (`journal_id`, `host`, `run`) for
/// `session` of the journal at `path`, as CSV: `,ID,HOST,RUN`.
func provenanceCSV(_ path: String, session: Int64) throws -> String {
    let reader = try JournalReader(path: path)
    let summary = try reader.session(session)
    return ",\(try reader.journalID()),\(summary.host),\(summary.run ?? "")"
}

/// The same cells as JSON Lines members: `,"journal_id":"ID","host":"HOST","run":null`.
func provenanceJSON(_ path: String, session: Int64) throws -> String {
    let reader = try JournalReader(path: path)
    let summary = try reader.session(session)
    let run = summary.run.map { "\"\($0)\"" } ?? "null"
    return #","journal_id":"\#(try reader.journalID())","host":"\#(summary.host)","run":\#(run)"#
}
