import Foundation
import ObservationJournal
import Testing
import TestSupport

@Test(.tags(.childProcess)) func reportWritesTheFileAndPrintsItsPath() throws {
    let directory = try temporaryDirectory()
    let journal = try demoJournal(in: directory)
    let out = directory.appendingPathComponent("out.html").path
    #expect(try obsreplay(["report", journal, "-o", out]) == RunResult(stdout: out + "\n", stderr: "", status: 0))
    let html = try String(contentsOfFile: out, encoding: .utf8)
    #expect(html.hasPrefix("<!DOCTYPE html>\n"))
    #expect(html.contains("<section class=\"session\" id=\"session-2\" data-index=\"0\">"))  // the latest session
    #expect(!html.contains("id=\"session-1\""))

    // Beside the journal by default; --all puts every session in.
    let beside = directory.appendingPathComponent("demo.html").path
    #expect(try obsreplay(["report", journal, "--all"]) == RunResult(stdout: beside + "\n", stderr: "", status: 0))
    let all = try String(contentsOfFile: beside, encoding: .utf8)
    #expect(all.contains("id=\"session-1\" data-index=\"0\">") && all.contains("id=\"session-2\" data-index=\"1\" hidden>"))

    let stdout = try obsreplay(["report", journal, "--session", "1", "-o", "-"])
    #expect(stdout.status == 0 && stdout.stderr.isEmpty)
    #expect(stdout.stdout.hasPrefix("<!DOCTYPE html>\n") && stdout.stdout.contains("id=\"session-1\" data-index=\"0\">"))
    #expect(try obsreplay(["report", "--help"]).stdout.hasPrefix("OVERVIEW: Write an HTML timeline of a session"))
}

@Test(.tags(.childProcess)) func reportOfBadInputFailsWithOneLineAndWritesNothing() throws {
    let directory = try temporaryDirectory()
    try writeBadInputs(in: directory)
    let cases: [(file: String, extra: [String], stderr: String)] = [
        ("truncated.sqlite", [], "error: DIR/truncated.sqlite: journal is damaged (database disk image is malformed)\n"),
        ("notes.txt", [], "error: DIR/notes.txt: not a journal (not an SQLite database)\n"),
        ("newer.sqlite", [], "error: DIR/newer.sqlite: journal schema 99 is newer than this version supports (8); upgrade ObservationJournal\n"),
        ("demo.sqlite", ["--session", "9"], "error: DIR/demo.sqlite: no session 9\n"),
        ("nosessions.sqlite", ["--all"], "error: DIR/nosessions.sqlite: the journal holds no sessions\n"),
        ("demo.sqlite", ["-o", "DIR/demo.sqlite"], "error: DIR/demo.sqlite: refusing to write the report over the journal\n"),
        ("demo.sqlite", ["-o", "DIR/missing/out.html"], "error: DIR/missing/out.html: cannot write output ("),
    ]
    let html = { (name: String) in directory.appendingPathComponent(name).deletingPathExtension().appendingPathExtension("html").path }
    for item in cases {
        let path = directory.appendingPathComponent(item.file).path
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let result = try obsreplay(["report", path] + item.extra.map { $0.replacingOccurrences(of: "DIR", with: directory.path) })
        let expected = item.stderr.replacingOccurrences(of: "DIR", with: directory.path)
        #expect(result.status == 2 && result.stdout.isEmpty, "\(item)")
        #expect(expected.hasSuffix("\n") ? result.stderr == expected : result.stderr.hasPrefix(expected), "\(result)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "\(item.file) changed")
        #expect(!FileManager.default.fileExists(atPath: html(item.file)), "\(item.file): a report was left behind")
    }
    let usage = try obsreplay(["report", directory.appendingPathComponent("demo.sqlite").path, "--all", "--session", "1"])
    #expect(usage.status == 64 && usage.stderr.hasPrefix("error: '--all' and '--session' cannot be used together\n"))
}

@Test(.tags(.childProcess)) func exportAsAChromeTraceTakesEventsOnly() throws {
    let journal = try demoJournal()
    let trace = try obsreplay(["export", journal, "--what", "events", "--format", "chrome-trace", "--session", "1"])
    #expect(trace.status == 0 && trace.stderr.isEmpty)
    let document = try #require(try JSONSerialization.jsonObject(with: Data(trace.stdout.utf8)) as? [String: Any])
    let events = try #require(document["traceEvents"] as? [[String: Any]])
    #expect(events.count { $0["ph"] as? String == "X" } == 4)  // the demo's session 1: 4 deliveries
    #expect(events.count { $0["ph"] as? String == "b" } == 2 && events.count { $0["ph"] as? String == "e" } == 2)
    #expect(try obsreplay(["export", journal, "--what", "findings", "--format", "chrome-trace"]) == RunResult(
        stdout: "",
        stderr: "error: '--format chrome-trace' exports events only: use '--what events'\nUsage: obsreplay export <journal> ... --what <table> --format <format> [--session <n>] [--output <file>] [--raw] [--budget-ms <ms>] [--fleet <dir>] [--events]\n  See 'obsreplay export --help' for more information.\n",
        status: 64
    ))
}

@Test(.tags(.childProcess)) func reportFromToAndAroundLimitTheDrawnEvents() throws {
    let directory = try temporaryDirectory()
    let journal = try demoJournal(in: directory)
    let limited = try obsreplay(["report", journal, "--session", "1", "--from", "3", "--to", "6", "-o", "-"])
    #expect(limited.status == 0 && limited.stderr.isEmpty)
    #expect(limited.stdout.contains("<p class=\"note\">Only the events from seq 3 to seq 6 are drawn (4 of "))
    let around = try obsreplay(["report", journal, "--session", "1", "--around", "2", "-o", "-"])
    #expect(around.status == 0 && around.stdout.contains("<p class=\"note\">Only the events from seq 1 to seq 102 are drawn ("))
    let usage = [
        (["--from", "6", "--to", "3"], "error: '--from' (6) is after '--to' (3)\n"),
        (["--around", "5", "--from", "3"], "error: '--around' cannot be used with '--from' or '--to'\n"),
        (["--from", "0"], "error: invalid value '0' for '--from': expected a whole number of at least 1\n"),
    ]
    for (extra, message) in usage {
        let result = try obsreplay(["report", journal, "-o", directory.appendingPathComponent("x.html").path] + extra)
        #expect(result.status == 64 && result.stdout.isEmpty && result.stderr.hasPrefix(message), "\(extra): \(result)")
    }
    #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("x.html").path))
}
