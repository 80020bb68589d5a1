import Foundation
import Testing
import TestSupport

// SwiftPM runs a command plugin's tool (`swift package obsreplay …`) with standard input
// closed, as a daemon may run anything. SQLite never keeps a database on descriptor 0, 1
// or 2: it puts /dev/null there and opens again, and the guarded open refused /dev/null,
// so every journal failed to open ("unable to open database file").

/// `obsreplay arguments` run by `/bin/sh` with `redirection` (`<&-`, `>&-`) applied.
private func obsreplay(_ arguments: [String], redirection: String) throws -> RunResult {
    try run(URL(fileURLWithPath: "/bin/sh"), ["-c", "exec \"$0\" \"$@\" \(redirection)", try obsreplayBinary().path] + arguments)
}

@Test(.tags(.childProcess)) func journalsAreReadAndWrittenWithStandardInputClosed() throws {
    let directory = try temporaryDirectory()
    let journal = try demoJournal(in: directory)
    let diagnose = ["diagnose", journal, "--session", "1", "--format", "short"]
    let open = try obsreplay(diagnose)
    #expect(open.status == 1)
    #expect(!open.stdout.isEmpty)
    #expect(try obsreplay(diagnose, redirection: "<&-") == open)
    // The writer too: `demo` records a journal and reads it back.
    let recorded = directory.appendingPathComponent("recorded.sqlite").path
    let demo = try obsreplay(["demo", "--journal", recorded, "--scenario", "music-player", "--json"], redirection: "<&-")
    #expect(demo.status == 0, "\(demo)")
    #expect(try obsreplay(["sessions", recorded]).stdout.contains("music-player/buggy"))
}

@Test(.tags(.childProcess)) func closedStandardOutputIsNeverAnotherFile() throws {
    let directory = try temporaryDirectory()
    let journal = try demoJournal(in: directory)
    let export = directory.appendingPathComponent("events.csv").path
    let arguments = ["export", journal, "--what", "events", "--format", "csv", "-o", export]
    // With standard output closed, the journal or the output file took descriptor 1.
    let closed = try obsreplay(arguments, redirection: ">&-")
    #expect(closed == RunResult(stdout: "", stderr: "", status: 0))
    let written = try String(contentsOfFile: export, encoding: .utf8)
    #expect(written == (try obsreplay(Array(arguments.dropLast(2)))).stdout)
    // Data for a closed standard output is an error, not silence.
    let lostLine = "error: standard output: cannot write output (Bad file descriptor)\n"
    let lost = try obsreplay(["diagnose", journal, "--session", "1", "--format", "short"], redirection: ">&-")
    #expect(lost == RunResult(stdout: "", stderr: lostLine, status: 2))
    // The baseline is opened before any journal: it took descriptor 1, the findings were
    // written into it, and the gate passed on a file that was not JSON.
    let baseline = directory.appendingPathComponent("baseline.json").path
    let gate = try obsreplay(["diagnose", journal, "--write-baseline", baseline], redirection: ">&-")
    #expect(gate == RunResult(stdout: "", stderr: lostLine, status: 2))
    #expect(!FileManager.default.fileExists(atPath: baseline))
}
