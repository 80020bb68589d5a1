// Benchmark of obsreplay on a 1,000,000-event journal.
//
//   swift build -c release --product obsreplay --product ObsReplayBenchmark
//   .build/release/ObsReplayBenchmark [--events N] [--journal PATH] [--runs R]
//
// Generates a journal with a realistic mix (many subjects, channels and owners that come
// and go; multicast and single-slot channels; nested posts, off-main and slow
// deliveries, scopes, removals), then times, in the same run, each command against the
// reference: a full scan of the events table by the sqlite3 shell
// (`sqlite3 -readonly J 'SELECT * FROM events' > /dev/null`). Wall time and peak
// resident memory come from /usr/bin/time; each figure is the median of R runs with its
// range (min–max), the ratio taken within each run (command and scan back to back).

import Foundation
import JournalFixtures

struct Options {
    var events = 1_000_000
    var journal = FileManager.default.temporaryDirectory.appendingPathComponent("obsreplay-bench.sqlite").path
    var runs = 3

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--events": events = Int(iterator.next() ?? "") ?? events
            case "--journal": journal = iterator.next() ?? journal
            case "--runs": runs = Int(iterator.next() ?? "") ?? runs
            case "--help", "-h":
                print("usage: ObsReplayBenchmark [--events N] [--journal PATH] [--runs R]")
                exit(0)
            default: FileHandle.standardError.write(Data("unknown argument \(argument)\n".utf8)); exit(64)
            }
        }
    }
}

/// Runs a shell command under /usr/bin/time; returns (seconds, peak RSS in MB).
func measure(_ command: String) throws -> (seconds: Double, megabytes: Double) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
    process.arguments = ["-f", "%e %M", "/bin/sh", "-c", command]
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let data = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let last = String(decoding: data, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
    let fields = last.split(separator: " ")
    guard fields.count == 2, let seconds = Double(fields[0]), let kilobytes = Double(fields[1]) else {
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot time \(command): \(last)"])
    }
    return (seconds, kilobytes / 1024)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// "1.95 (1.80–2.10)": the median and range of `values`.
func spread(_ values: [Double], _ format: String) -> String {
    "\(String(format: format, median(values))) (\(String(format: format, values.min()!))–\(String(format: format, values.max()!)))"
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("obsreplay").path
guard FileManager.default.isExecutableFile(atPath: binary) else {
    FileHandle.standardError.write(Data("obsreplay not found next to the benchmark: \(binary)\n".utf8))
    exit(2)
}
let start = Date()
try SyntheticWorkload.write(to: options.journal, events: options.events)
let size = (try FileManager.default.attributesOfItem(atPath: options.journal)[.size] as? Int) ?? 0
print("journal: \(options.journal), \(options.events) events target, \(size / 1_048_576) MB, generated in \(String(format: "%.1f", Date().timeIntervalSince(start))) s")

let journal = "'\(options.journal)'"
let scanCommand = "sqlite3 -readonly \(journal) 'SELECT * FROM events' > /dev/null"
let commands: [(name: String, command: String)] = [
    ("diagnose --all", "'\(binary)' diagnose \(journal) --all --fail-on never > /dev/null"),
    ("timeline > /dev/null", "'\(binary)' timeline \(journal) > /dev/null"),
    ("export --what events --format csv", "'\(binary)' export \(journal) --what events --format csv > /dev/null"),
]
let count = try String(decoding: {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    process.arguments = ["-readonly", options.journal, "SELECT count(*) FROM events"]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return data
}(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
print("events in journal: \(count)\n")
print("Median (min–max) of \(options.runs) runs; the ratio is taken within each run.\n")
print("| command | time (s) | sqlite3 full scan (s) | ratio | peak memory (MB) |")
print("|---|---|---|---|---|")
for entry in commands {
    var times: [Double] = [], scans: [Double] = [], memory: [Double] = []
    for _ in 0..<options.runs {
        // Interleaved, so both see the same machine load.
        scans.append(try measure(scanCommand).seconds)
        let run = try measure(entry.command)
        times.append(run.seconds)
        memory.append(run.megabytes)
    }
    let ratios = zip(times, scans).map { $0 / max($1, 0.01) }
    print("| `\(entry.name)` | \(spread(times, "%.2f")) | \(spread(scans, "%.2f")) | \(spread(ratios, "%.2fx")) | \(String(format: "%.1f", memory.max()!)) |")
}
let scanMemory = try measure(scanCommand).megabytes
print(String(format: "\nsqlite3 full scan peak memory: %.1f MB", scanMemory))

// Memory must follow live state, not the number of events: diagnose a journal a quarter
// the size, written by the same generator, and compare peak memory.
let quarter = options.journal + ".quarter.sqlite"
try SyntheticWorkload.write(to: quarter, events: options.events / 4)
let small = try measure("'\(binary)' diagnose '\(quarter)' --all --fail-on never > /dev/null").megabytes
let large = try measure("'\(binary)' diagnose \(journal) --all --fail-on never > /dev/null").megabytes
print(String(format: "diagnose peak memory: %.1f MB at %d events, %.1f MB at %d events", small, options.events / 4, large, options.events))
try? FileManager.default.removeItem(atPath: quarter)
