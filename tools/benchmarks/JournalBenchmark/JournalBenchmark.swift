import SystemShim
import Foundation
import JournalFixtures
import JournalStore
import ObservationJournal
import ObserverCore

/// Measures the journal in one run, so the figures are ratios against references taken on
/// the same machine at the same moment:
///
/// (a) raw ceiling: the rows the recorder writes for a fan-out-1 workload, inserted into
///     the journal's `events` table by C code calling the SQLite C API: 256 staged rows per
///     `INSERT … SELECT` (the writer's statement), 64 bound rows per `INSERT … VALUES` and
///     one, in 10,000-event transactions, no registry, no recorder (`RawCeiling`);
/// (b) sustained events per second through the recorder, until `close()` has committed
///     everything, and its ratio to (a) in the same round;
/// (c) the calling thread's cost per event: recording vs the bare registry, in bursts that
///     fit the buffer (so no waiting for the disk is measured);
/// `--only check`: what the `CHECK` on `events.kind` costs per row (see `CheckCost`);
/// `--only shapes`: rows/s of candidate shapes of the events table (see `Shapes`).
///
/// Every figure is the median of `--rounds` rounds and its range (min–max).
@main
enum JournalBenchmark {
    static let usage = """
        usage: JournalBenchmark [--events N] [--rounds R] [--only a|b|c|check|shapes]
               JournalBenchmark --profile raw|raw64|raw256|staged256|writer|check-in|check-or|check-none|check-int|check-bare[32]|shape-N [--count N]
               JournalBenchmark --profile enum-channel|registration|removal-4|latest [--count N]

          --events N   events (rows) per measurement (default 1000000)
          --rounds R   rounds; each figure is their median and range (default 5)
          --only X     one part: a (raw ceiling), b (sustained), c (calling thread), check
                       (the CHECK on events.kind), shapes (shapes of the events table); not in the default run
          --profile X  one loop once, for callgrind: COUNT rows (raw, raw64, raw256: 1, 64, 256 bound rows
                       per statement; staged256: 256 staged rows per INSERT … SELECT, the writer's form;
                       check-*: a name ending in 32 inserts 32 rows per statement) or events through the recorder
                       (writer); shape-N: COUNT rows into shape N of --only shapes (0, 1, …);
                       enum-WHAT-SCHEMA: COUNT channel or registration inserts (removal: and
                       then COUNT removals) at schema 4 or the latest (see EnumerationCost);
                       see tools/benchmarks/callgrind-per-event.sh
        """

    static func main() throws {
        var events = 1_000_000
        var rounds = 5
        var only: String?
        var profile: String?
        var count: Int?
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "--events": events = positive(arguments.next(), argument)
            case "--rounds": rounds = positive(arguments.next(), argument)
            case "--count": count = positive(arguments.next(), argument)
            case "--only":
                only = arguments.next()
                guard ["a", "b", "c", "check", "shapes"].contains(only) else { fail("--only takes a, b, c, check or shapes") }
            case "--profile": profile = arguments.next()
            case "--help", "-h":
                print(usage)
                exit(0)
            default: fail("unknown argument \(argument)")
            }
        }
        let directory = NSTemporaryDirectory() + "JournalBenchmark-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        if let profile {
            try Self.profile(profile, count: count, directory: directory)
            return
        }
        if only == "shapes" {
            try shapes(rows: events, rounds: rounds, directory: directory)
            return
        }
        if only == "check" {
            try check(rows: events, rounds: rounds, directory: directory)
            return
        }

        print("events per measurement: \(events), rounds: \(rounds); each figure: median (min–max) of the rounds")
        var raw: [Double] = []
        var rawMulti: [Double] = []
        var rawStaged: [Double] = []
        var sustained: [Double] = []
        var costs: [CallingThread.Cost] = []
        for round in 1...rounds {
            if only == nil || only == "a" || only == "b" {
                raw.append(try RawCeiling.run(path: "\(directory)/raw\(round).sqlite", rows: events))
                rawMulti.append(try RawCeiling.run(
                    path: "\(directory)/raw64-\(round).sqlite", rows: events - events % 64, rowsPerStatement: 64))
                rawStaged.append(try RawCeiling.run(
                    path: "\(directory)/staged-\(round).sqlite", rows: events - events % 256, rowsPerStatement: 256, staged: true))
            }
            if only == nil || only == "b" {
                sustained.append(try Sustained.run(path: "\(directory)/sustained\(round).sqlite", events: events))
            }
            if only == nil || only == "c" {
                costs.append(try CallingThread.run(path: "\(directory)/cost\(round).sqlite", events: events))
            }
            for file in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
                try? FileManager.default.removeItem(atPath: "\(directory)/\(file)")
            }
        }
        if !raw.isEmpty {
            print("(a) raw ceiling, 256 staged rows per statement:  \(Spread(rawStaged).text(rate)) rows/s")
            print("    64 bound rows per statement:                 \(Spread(rawMulti).text(rate)) rows/s")
            print("    one row per statement:                       \(Spread(raw).text(rate)) rows/s")
        }
        if !sustained.isEmpty {
            print("(b) sustained through the recorder:              \(Spread(sustained).text(rate)) events/s")
            print("    / (a) 256 staged rows, same round:           \(Spread(ratios(sustained, rawStaged)).text(percent))")
            print("    / (a) 64 bound rows, same round:             \(Spread(ratios(sustained, rawMulti)).text(percent))")
            print("    / (a) one row per statement, same round:     \(Spread(ratios(sustained, raw)).text(percent))")
        }
        if !costs.isEmpty {
            let bare = costs.map(\.bareCPU), empty = costs.map(\.emptySinkCPU), recorded = costs.map(\.recordedCPU)
            print("(c) calling thread CPU, bare registry:          \(Spread(bare).text(ns)) ns/event")
            print("    calling thread CPU, registry + empty sink:  \(Spread(empty).text(ns)) ns/event (the registry making events)")
            print("    calling thread CPU, recording:              \(Spread(recorded).text(ns)) ns/event")
            print("    recording − bare:                           \(Spread(zip(recorded, bare).map { $0 - $1 }).text(ns)) ns/event")
            print("    wall time, bare / recording:                \(Spread(costs.map(\.bareWall)).text(ns)) / \(Spread(costs.map(\.recordedWall)).text(ns)) ns/event")
        }
        var usage = rusage()
        _ = processResourceUsage(&usage)
        print("peak resident memory of the whole run: \(peakResidentBytes(usage) / 1_048_576) MiB")
    }

    static func check(rows: Int, rounds: Int, directory: String) throws {
        let rows = rows - rows % 32
        print("CHECK on events.kind: \(rows) rows per measurement, \(rounds) rounds; rows/s median (min–max), ratio to the first within a round")
        for rowsPerStatement in [1, 32] {
            var rates = Array(repeating: [Double](), count: CheckCost.variants.count)
            for round in 1...rounds {
                for (index, variant) in CheckCost.variants.enumerated() {
                    let path = "\(directory)/check\(round)-\(index).sqlite"
                    rates[index].append(try CheckCost.run(variant, path: path, rows: rows, rowsPerStatement: rowsPerStatement))
                    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
                }
            }
            print("")
            print("\(rowsPerStatement) row\(rowsPerStatement == 1 ? "" : "s") per statement:")
            print("")
            print("| kind column | rows/s | / CHECK IN |")
            print("|---|---:|---:|")
            for (index, variant) in CheckCost.variants.enumerated() {
                print("| \(variant.name) | \(Spread(rates[index]).text(rate)) | \(Spread(ratios(rates[index], rates[0])).text { String(format: "%.2f", $0) }) |")
            }
        }
    }

    static func shapes(rows: Int, rounds: Int, directory: String) throws {
        print("Shapes of the events table: \(rows) rows per measurement, \(rounds) rounds; rows/s median (min–max), ratio to shape 0 within a round")
        var rates = Array(repeating: [Double](), count: Shapes.shapes.count)
        var reads = Array(repeating: [Double](), count: Shapes.shapes.count)
        for round in 1...rounds {
            for (index, shape) in Shapes.shapes.enumerated() {
                let path = "\(directory)/shape\(round)-\(index).sqlite"
                rates[index].append(try Shapes.run(shape, path: path, rows: rows))
                if let read = try Shapes.readRate(shape, path: path, rows: rows - rows % max(shape.json, shape.rowsPerStatement)) {
                    reads[index].append(read)
                }
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
        }
        print("")
        print("| # | shape | rows/s | / shape 0 |")
        print("|---|---|---:|---:|")
        for (index, shape) in Shapes.shapes.enumerated() {
            print("| \(index) | \(shape.name) | \(Spread(rates[index]).text(rate)) | \(Spread(ratios(rates[index], rates[0])).text { String(format: "%.2f", $0) }) |")
        }
        print("")
        print("Read back through SQL (every varying column of every event, one query), events/s:")
        print("")
        print("| # | shape | events/s | / shape 0 |")
        print("|---|---|---:|---:|")
        for (index, shape) in Shapes.shapes.enumerated() where !reads[index].isEmpty {
            print("| \(index) | \(shape.name) | \(Spread(reads[index]).text(rate)) | \(Spread(ratios(reads[index], reads[0])).text { String(format: "%.2f", $0) }) |")
        }
    }

    /// One loop once, for a profiler.
    static func profile(_ what: String, count: Int?, directory: String) throws {
        let path = "\(directory)/profile.sqlite"
        switch what {
        case "raw": print("raw: \(try RawCeiling.run(path: path, rows: count ?? 100_000)) rows/s")
        case "raw64": print("raw64: \(try RawCeiling.run(path: path, rows: (count ?? 100_000) / 64 * 64, rowsPerStatement: 64)) rows/s")
        case "raw256": print("raw256: \(try RawCeiling.run(path: path, rows: (count ?? 100_000) / 256 * 256, rowsPerStatement: 256)) rows/s")
        case "staged256":
            let rows = (count ?? 100_000) / 256 * 256
            print("staged256: \(try RawCeiling.run(path: path, rows: rows, rowsPerStatement: 256, staged: true)) rows/s")
        case "writer": print("writer: \(try Sustained.run(path: path, events: count ?? 100_000)) events/s")
        case _ where what.hasPrefix("enum-"):
            guard let (which, schema) = EnumerationCost.parse(what) else { fail("unknown profile '\(what)'") }
            try EnumerationCost.run(which, schema: schema, path: path, count: count ?? 100_000)
            print("\(what): \(count ?? 100_000) rows")
        case _ where what.hasPrefix("shape-"):
            guard let index = Int(what.dropFirst(6)), Shapes.shapes.indices.contains(index) else { fail("unknown profile '\(what)'") }
            print("\(what): \(try Shapes.run(Shapes.shapes[index], path: path, rows: count ?? 100_000)) rows/s")
        default:
            // check-in, …, and check-in32, …: 32 rows per statement, as the writer inserts.
            let names = ["check-in", "check-or", "check-none", "check-int", "check-bare"]
            let perStatement = what.hasSuffix("32") ? 32 : 1
            guard let index = names.firstIndex(of: perStatement == 32 ? String(what.dropLast(2)) : what) else {
                fail("unknown profile '\(what)'")
            }
            let rows = (count ?? 100_000) / perStatement * perStatement
            print("\(what): \(try CheckCost.run(CheckCost.variants[index], path: path, rows: rows, rowsPerStatement: perStatement)) rows/s")
        }
    }

    static func positive(_ text: String?, _ option: String) -> Int {
        guard let text, let value = Int(text), value > 0 else { fail("\(option) needs a positive number") }
        return value
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("JournalBenchmark: \(message)\n\(usage)\n".utf8))
        exit(64)
    }
}

func rate(_ value: Double) -> String { String(format: "%.0f", value) }
func percent(_ value: Double) -> String { String(format: "%.0f%%", 100 * value) }
func ns(_ value: Double) -> String { String(format: "%.1f", value) }

/// Monotonic nanoseconds.
func now() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

final class Subject {}
final class Owner {}
