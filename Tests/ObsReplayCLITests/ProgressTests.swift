import Foundation
@testable import ObsReplayCLI
import Testing
import TestSupport

// issue 28 §1: progress on a terminal (standard error, redrawn in place), for one journal
// as for many; never in a pipe, a file's place of output, --json or --quiet. Run under
// `script` (util-linux) for a pseudo-terminal, with the one-second delay set to zero (the
// line is then drawn once at the start, whatever the machine's speed).

private let progressLine = #"\r\x1B\[K(diagnosing|exporting|reporting): [0-9,]+/[0-9,]+ (journals|events(, pass [0-9]+ of [0-9]+)?( \([0-9]+%\))?)"#

/// What `obsreplay arguments` shows on a terminal (`\r\n` as the terminal shows `\n`).
private func underTerminal(_ arguments: String, in directory: URL) throws -> String {
    let binary = try obsreplayBinary().path
    return try run(
        URL(fileURLWithPath: "/usr/bin/script"), ["-qec", "'\(binary)' \(arguments)", "/dev/null"],
        environment: ["OBSREPLAY_PROGRESS_DELAY_MS": "0", "TERM": "xterm"], in: directory
    ).stdout.replacingOccurrences(of: "\r\n", with: "\n")
}

/// `text` without its progress lines and their erasures: what is left must be exactly the
/// command's output, so progress never tears a line of it.
private func withoutProgress(_ text: String) -> String {
    text.replacingOccurrences(of: progressLine, with: "", options: .regularExpression)
        .replacingOccurrences(of: "\r\u{1B}[K", with: "")
}

private func fixture() throws -> (URL, String) {
    let directory = try temporaryDirectory()
    let fleet = directory.appendingPathComponent("fleet")
    try FileManager.default.createDirectory(at: fleet, withIntermediateDirectories: true)
    let path = try demoJournal(in: fleet)
    try FileManager.default.copyItem(atPath: path, toPath: fleet.appendingPathComponent("copy.sqlite").path)
    return (directory, path)
}

@Test(.tags(.childProcess)) func progressOfManyJournalsOnATerminalOnly() throws {
    let (directory, _) = try fixture()
    defer { try? FileManager.default.removeItem(at: directory) }
    let shown = try underTerminal("diagnose fleet --group-by fingerprint --fail-on never", in: directory)
    #expect(shown.hasPrefix("\r\u{1B}[Kdiagnosing: 0/2 journals"), "\(shown)")
    let plain = try obsreplay(["diagnose", "fleet", "--group-by", "fingerprint", "--fail-on", "never", "--color", "always"], in: directory)
    #expect(withoutProgress(shown) == plain.stdout)
    #expect(!(try underTerminal("diagnose fleet --json --fail-on never", in: directory)).contains("diagnosing"))
    #expect(!(try underTerminal("diagnose fleet --format sarif --fail-on never", in: directory)).contains("diagnosing"))
    #expect(!(try underTerminal("diagnose fleet --quiet --fail-on never", in: directory)).contains("diagnosing"))
    // Not a terminal: nothing but the findings.
    let piped = try obsreplay(
        ["diagnose", "fleet", "--group-by", "fingerprint", "--fail-on", "never"], environment: ["OBSREPLAY_PROGRESS_DELAY_MS": "0"],
        in: directory
    )
    #expect(piped.stderr == "" && !piped.stdout.contains("diagnosing"))
}

@Test(.tags(.childProcess)) func progressOfOneJournalCountsItsEvents() throws {
    let (directory, path) = try fixture()
    defer { try? FileManager.default.removeItem(at: directory) }
    // The demo journal's two sessions have 10 and 4 events.
    let shown = try underTerminal("diagnose '\(path)'", in: directory)
    #expect(shown.hasPrefix("\r\u{1B}[Kdiagnosing: 0/14 events (0%)"), "\(shown)")
    #expect(withoutProgress(shown) == (try obsreplay(["diagnose", path, "--color", "always"])).stdout)
    // The line is erased before the result is printed.
    #expect(shown.contains("\r\u{1B}[K\u{1B}[1;31merror"))
    #expect(!(try underTerminal("diagnose '\(path)' --json", in: directory)).contains("diagnosing"))
    #expect(!(try underTerminal("diagnose '\(path)' -q", in: directory)).contains("diagnosing"))

    // report: the events of the session it draws (the latest: 4), read in two passes
    // (diagnosis and drawing), each counted against the 4.
    let report = try underTerminal("report '\(path)' -o r.html", in: directory)
    #expect(report.hasPrefix("\r\u{1B}[Kreporting: 0/4 events, pass 1 of 2 (0%)"), "\(report)")
    #expect(withoutProgress(report) == "r.html\n")

    // export: into a file only (rows on the terminal would tear the line).
    let export = try underTerminal("export '\(path)' --what events --format jsonl -o e.jsonl", in: directory)
    #expect(export.hasPrefix("\r\u{1B}[Kexporting: 0/14 events (0%)"), "\(export)")
    #expect(withoutProgress(export) == "")
    let exported = try String(contentsOf: directory.appendingPathComponent("e.jsonl"), encoding: .utf8)
    #expect(exported == (try obsreplay(["export", path, "--what", "events", "--format", "jsonl"])).stdout)
    #expect(!(try underTerminal("export '\(path)' --what events --format jsonl", in: directory)).contains("exporting"))
    // Piped, nothing on standard error.
    let piped = try obsreplay(["export", path, "--what", "events", "--format", "csv", "-o", "p.csv"],
                              environment: ["OBSREPLAY_PROGRESS_DELAY_MS": "0"], in: directory)
    #expect(piped == RunResult(stdout: "", stderr: "", status: 0))
}

@Test func aReportsProgressCountsTheSessionsEventsOncePerPass() {
    // A 1,000-event session, read twice (diagnosis, then drawing).
    #expect(Progress.line("reporting", done: 0, total: 1000, passes: 2, unit: .events) == "reporting: 0/1,000 events, pass 1 of 2 (0%)")
    #expect(Progress.line("reporting", done: 999, total: 1000, passes: 2, unit: .events) == "reporting: 999/1,000 events, pass 1 of 2 (49%)")
    #expect(Progress.line("reporting", done: 1500, total: 1000, passes: 2, unit: .events) == "reporting: 500/1,000 events, pass 2 of 2 (75%)")
    #expect(Progress.line("reporting", done: 2000, total: 1000, passes: 2, unit: .events) == "reporting: 1,000/1,000 events, pass 2 of 2 (100%)")
    // Counted past the end (a session that grew while read): the last pass, full.
    #expect(Progress.line("reporting", done: 2500, total: 1000, passes: 2, unit: .events) == "reporting: 1,000/1,000 events, pass 2 of 2 (100%)")
    #expect(Progress.line("diagnosing", done: 340_000, total: 1_000_000, passes: 1, unit: .events) == "diagnosing: 340,000/1,000,000 events (34%)")
    #expect(Progress.line("diagnosing", done: 12, total: 200, passes: 1, unit: .journals) == "diagnosing: 12/200 journals")
    #expect(Progress.line("reporting", done: 0, total: 0, passes: 2, unit: .events) == "reporting: 0/0 events, pass 1 of 2")
    // A hostile journal's count saturates: no trap, whatever the line then says.
    #expect(Progress.line("reporting", done: .max, total: .max, passes: 2, unit: .events) == "reporting: 0/9,223,372,036,854,775,807 events, pass 2 of 2 (100%)")
}
