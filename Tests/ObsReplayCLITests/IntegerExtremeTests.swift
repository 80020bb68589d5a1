import Foundation
import JournalFixtures
import JournalStore
import Testing
import TestSupport

/// Issue 27 §1: every integer column of every table of a journal, at Int64's edges, through
/// every command and output format. A journal from elsewhere decides these numbers, so no
/// rule, exporter, report or printer may do arithmetic on them that traps (`abs`,
/// negation, `+`, `-`, `*`, a conversion to a narrower type): each command answers or
/// refuses in one line, and never crashes.
///
/// Runs in process (a trap ends the whole test run; the case it was on is then in
/// `currentCaseFile`). The journal is the mutation harness's fixture with evidence for
/// every rule.
///
/// Under `swift test` each case runs every `stride`-th command, rotating, so each command
/// meets every `stride`-th column and each column two commands (about 200 runs);
/// `OBSREPLAY_INTEGER_EXTREMES=all` (tools/scripts/reliability.sh ci) runs every command on
/// every case (about 2,500 runs, minutes).
@Suite(.skippedWhenQuick, .tags(.slow)) struct IntegerExtremeTests {
    static let currentCaseFile = NSTemporaryDirectory() + "obsreplay-integer-extreme-current-case.txt"
    static let journal = "JOURNAL"
    /// Every command, and each output format of `diagnose` and `export`.
    static let commands: [[String]] = [
        ["sessions", journal], ["sessions", journal, "--json"],
        ["timeline", journal, "--session", "1"], ["timeline", journal, "--session", "1", "--json"],
        ["replay", journal, "--session", "1", "--at", "30"],
        ["replay", journal, "--session", "1", "--at", "9223372036854775807", "--what-if", "multicast"],
        ["diagnose", journal, "--all"], ["diagnose", journal, "--all", "--json"],
        ["diagnose", journal, "--all", "--format", "short"], ["diagnose", journal, "--all", "--format", "github"],
        ["diagnose", journal, "--all", "--format", "sarif"], ["diagnose", journal, "--all", "--group-by", "fingerprint"],
        ["export", journal, "--what", "events", "--format", "csv"], ["export", journal, "--what", "events", "--format", "jsonl"],
        ["export", journal, "--what", "registrations", "--format", "csv"],
        ["export", journal, "--what", "deliveries", "--format", "jsonl"],
        ["export", journal, "--what", "findings", "--format", "csv"], ["export", journal, "--what", "findings", "--format", "jsonl"],
        ["export", journal, "--what", "events", "--format", "chrome-trace"],
        ["report", journal, "--session", "1", "-o", "-"], ["report", journal, "--all", "-o", "-"],
        ["stats", journal], ["check", journal],
    ]
    static let extremes: [Int64] = [.min, .max]

    @Test func everyIntegerColumnAtItsExtremesThroughEveryCommand() throws {
        let directory = try temporaryDirectory("integer-extremes")
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = directory.appendingPathComponent("base.sqlite").path
        let fixture = try JournalFixture(path: base)
        try MutationBases.evidence(try fixture.session(label: "every rule"))
        // Deliveries slow on main and in the background, so slow-callback has groups of both.
        let s = try fixture.session(label: "slow", startedAt: "2025-01-01T11:00:00Z")
        let rate = try s.channel(try s.object("Player"), "rate")
        try s.register(rate, owner: try s.object("Screen"), at: "Screen.swift:5")
        try s.post(rate, old: "1", new: "2", duration: 40_000_000)
        try s.inThread(3) { try s.post(rate, old: "2", new: "3", duration: 40_000_000) }
        try fixture.finish()
        let baseBytes = try Data(contentsOf: URL(fileURLWithPath: base))

        let cases = try Self.cases(base)
        #expect(cases.count > 60)
        let cli = try InProcessCLI(directory: directory)
        let path = directory.appendingPathComponent("case.sqlite").path
        var failures: [String] = []
        var exits: [Int32: Int] = [:]
        let stride = ProcessInfo.processInfo.environment["OBSREPLAY_INTEGER_EXTREMES"] == "all" ? 1 : 12
        for (index, (name, sql)) in cases.enumerated() {
            try baseBytes.write(to: URL(fileURLWithPath: path))
            try JournalFixture.edit(path, "PRAGMA ignore_check_constraints = 1; " + sql)
            let before = Snapshot(path)
            for (number, command) in Self.commands.enumerated() where (index + number) % stride == 0 {
                let label = "\(name): obsreplay \(command.joined(separator: " "))"
                _ = FileManager.default.createFile(atPath: Self.currentCaseFile, contents: Data((label + "\n").utf8))
                let run = cli.run(command.map { $0 == Self.journal ? path : $0 })
                exits[run.status, default: 0] += 1
                var problems = MutationTests.check(run, command: command)
                if let change = before.difference(Snapshot(path)) { problems.append(change) }
                if !problems.isEmpty { failures.append("\(label): \(problems.joined(separator: "; "))") }
            }
            try? FileManager.default.removeItem(atPath: path)
            for suffix in SideFileCheck.suffixes { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        try? FileManager.default.removeItem(atPath: Self.currentCaseFile)
        #expect(failures == [])
        // Most cases are read, not refused: the numbers reach the rules and printers.
        #expect(exits[0, default: 0] + exits[1, default: 0] > exits[2, default: 0])
    }

    /// One statement per (table, integer column, extreme) of the fixture's schema (read from
    /// the file, so a column added by a migration is covered), plus every integer column
    /// of the events at once.
    static func cases(_ path: String) throws -> [(String, String)] {
        let database = try SQLiteDatabase(path: path, mode: .readOnly)
        let tables = try database.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        var names: [String] = []
        while try tables.step() { names.append(tables.text(0)) }
        var cases: [(String, String)] = []
        var eventColumns: [String: [String]] = [:]
        for table in names {
            let columns = try database.prepare("SELECT name FROM pragma_table_info(?1) WHERE type = 'INTEGER' ORDER BY cid")
            try columns.bind(table, at: 1)
            while try columns.step() {
                let column = columns.text(0)
                if table == "events" || table == "event_details" { eventColumns[table, default: []].append(column) }
                for value in extremes {
                    cases.append(("\(table).\(column) = \(value)", "UPDATE OR IGNORE \(table) SET \(column) = \(value)"))
                }
            }
        }
        for value in extremes {
            let updates = eventColumns.sorted { $0.key < $1.key }.map { table, columns in
                "UPDATE \(table) SET " + columns.filter { $0 != "session_id" && $0 != "seq" }.map { "\($0) = \(value)" }.joined(separator: ", ")
            }
            cases.append(("every integer of the events = \(value)", updates.joined(separator: "; ")))
        }
        return cases
    }
}
