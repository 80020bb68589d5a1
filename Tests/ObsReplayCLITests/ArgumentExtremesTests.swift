import Foundation
import ObservationJournal
@testable import ObsReplayCLI
import Testing
import TestSupport

/// Every option of every command that takes a value, given values at and past the edges
/// of what it parses: each run exits 0, 1, 2 or 64 (usage) with a one-line `error:` when it
/// refuses, never a crash, and the journal is unchanged. Found while following up the
/// mutation harness: `--budget-ms 9223372036854775807` overflowed when turned into ns.
@Test func extremeOptionValuesAreRefusedOrUsedNeverACrash() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = try demoJournal(in: directory)
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    let cli = try InProcessCLI(directory: directory)
    let extremes = [
        "9223372036854775807", "9223372036854775806", "-9223372036854775808", "18446744073709551616", "-1", "0", "",
        "1e3", "0x10", " 7", "\u{1B}[31m", "9223372036854",
    ]
    // The fewest arguments each command runs with.
    let bases: [String: [String]] = [
        "replay": ["--at", "3"], "export": ["--what", "events", "--format", "csv"],
    ]
    var runs = 0
    for command in ObsReplay.commands {
        let spec = command.spec
        let base = [spec.name, path] + (bases[spec.name] ?? [])
        for option in spec.options where option.valueName != nil && option.name != "output" {
            for extreme in extremes {
                // A file the command writes goes in the scratch directory, never the
                // current one (these runs once left a baseline per value in the package).
                let writes = ["write-baseline", "journal"].contains(option.name) && !extreme.isEmpty
                let value = writes ? directory.appendingPathComponent(extreme).path : extreme
                var arguments = base
                if let index = arguments.firstIndex(of: "--\(option.name)") {
                    arguments[index + 1] = value
                } else {
                    arguments += ["--\(option.name)", value]
                }
                let run = cli.run(arguments)
                runs += 1
                let label = "obsreplay \(arguments.map { $0.debugDescription }.joined(separator: " "))"
                #expect([0, 1, 2, 64].contains(run.status), "\(label): exit \(run.status)")
                if run.status == 2 || run.status == 64 {
                    #expect(run.stderr.hasPrefix("error: "), "\(label): \(run.stderr)")
                }
                #expect(!run.stderr.unicodeScalars.contains { $0.value == 0x1B }, "\(label): raw escape on stderr")
            }
        }
    }
    #expect(runs > 100)
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
}

/// A session whose recorded start and end are ten thousand years apart: more nanoseconds
/// than Int64 holds. `sessions` used to trap converting the duration; it now falls back to
/// the time of the last event, as for a session without an end.
@Test(.tags(.childProcess)) func sessionsWithDatesMillenniaApartShowTheEventTime() throws {
    let directory = try temporaryDirectory()
    let path = try demoJournal(in: directory)
    let database = try SQLiteDatabase(path: path, mode: .readWrite)
    try database.execute("UPDATE sessions SET started_at = '0001-01-01T00:00:00Z', ended_at = '9999-12-31T23:59:59Z' WHERE id = 1")
    let result = try obsreplay(["sessions", path, "--json"])
    #expect(result.status == 0)
    #expect(result.stdout.contains("\"id\":1,\"label\":\"three screens\""))
    #expect(result.stdout.contains("\"duration_ns\":10000000,"))
}
