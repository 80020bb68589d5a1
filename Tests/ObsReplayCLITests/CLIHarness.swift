import Foundation
import JournalFixtures
import Testing

/// What one run of the `obsreplay` binary produced.
struct RunResult: Equatable, CustomStringConvertible {
    var stdout: String
    var stderr: String
    var status: Int32

    var description: String { "status \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
}

/// The `obsreplay` binary built next to this test bundle.
func obsreplayBinary() throws -> URL {
    var candidates: [URL] = []
    if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
    candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
    candidates.append(Bundle.main.bundleURL)
    candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
    for directory in candidates {
        let binary = directory.appendingPathComponent("obsreplay")
        if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
    }
    throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "obsreplay next to \(candidates.map(\.path))"])
}

/// Runs `obsreplay` with `arguments`; output goes through files so large output cannot
/// block on a full pipe.
func obsreplay(_ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil) throws -> RunResult {
    try run(try obsreplayBinary(), arguments, environment: environment, in: directory)
}

/// Runs `executable` with `arguments` and `PATH=/usr/bin:/bin` plus `environment`.
func run(
    _ executable: URL, _ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil
) throws -> RunResult {
    let scratch = try temporaryDirectory()
    let out = scratch.appendingPathComponent("stdout"), err = scratch.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
    if let directory { process.currentDirectoryURL = directory }
    let outHandle = try FileHandle(forWritingTo: out), errHandle = try FileHandle(forWritingTo: err)
    process.standardOutput = outHandle
    process.standardError = errHandle
    try process.run()
    process.waitUntilExit()
    try outHandle.close()
    try errHandle.close()
    return RunResult(
        stdout: try String(contentsOf: out, encoding: .utf8), stderr: try String(contentsOf: err, encoding: .utf8),
        status: process.terminationStatus
    )
}

/// A fresh directory for one test's files.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("obsreplay-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
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
