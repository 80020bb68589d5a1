// Benchmark of obsreplay on a 1,000,000-event journal.
//
//   swift build -c release --product obsreplay --product obsreplay-bench
//   .build/release/obsreplay-bench [--events N] [--journal PATH] [--runs R]
//
// Generates a journal with a realistic mix (many subjects, channels and owners that come
// and go; multicast and single-slot channels; nested posts, off-main and slow
// deliveries, scopes, removals), then times, in the same run, each command against the
// reference: a full scan of the events table by the sqlite3 shell
// (`sqlite3 -readonly J 'SELECT * FROM events' > /dev/null`). Wall time and peak
// resident memory come from /usr/bin/time; each figure is the median of R runs.

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
            default: FileHandle.standardError.write(Data("unknown argument \(argument)\n".utf8)); exit(64)
            }
        }
    }
}

/// A small deterministic generator (SplitMix64), so every run writes the same journal.
struct Random {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}

/// Writes the journal: one session of `count` events.
func generate(_ path: String, count: Int) throws {
    let fixture = try JournalFixture(path: path, wal: true)
    let s = try fixture.session(label: "benchmark", process: "BenchApp")
    var random = Random(state: 42)
    let subjectTypes = ["Player", "Uploader", "ScrollView", "Toolbar", "Downloader", "Session", "Settings", "Library"]
    let keys = ["isPlaying", "rate", "volume", "progress", "contentOffset", "isVisible", "title", "state", "count", "error"]
    let ownerTypes = ["VideoScreen", "FloatingWindow", "ListScreen", "ProgressBar", "Label", "Chart", "Toolbar", "Cell", "Badge"]
    var channels: [Int64] = []
    for index in 0..<200 {
        let subject = try s.object(subjectTypes[index % subjectTypes.count])
        channels.append(try s.channel(subject, keys[index % keys.count] + (index % 7 == 0 ? "Changed" : ""), singleSlot: index % 10 == 0))
    }
    for index in 0..<20 { channels.append(try s.channel(0, "Notification\(index)")) }
    var owners: [(id: Int64, registrations: [Int64], scope: Int64?)] = []
    func newOwner() throws {
        let id = try s.object(ownerTypes[random.below(ownerTypes.count)])
        var registrations: [Int64] = []
        let scope: Int64? = random.chance(30) ? try s.beginScope("Screen \(id) visible") : nil
        for _ in 0..<(1 + random.below(4)) {
            let channel = channels[random.below(channels.count)]
            registrations.append(try s.register(
                channel, owner: id, at: "\(ownerTypes[Int(id) % ownerTypes.count]).swift:\(10 + random.below(200))",
                options: random.chance(20) ? "new,onlyWhenChanged" : "new", expectsMain: random.chance(40), scope: scope
            ))
        }
        owners.append((id, registrations, scope))
    }
    for _ in 0..<300 { try newOwner() }
    var value = 0
    while s.seq < count {
        switch random.below(100) {
        case 0..<80:  // a post and its deliveries, sometimes nested or on another thread
            let channel = channels[random.below(channels.count)]
            let old = String(value)
            if !random.chance(5) { value += 1 }
            let post = { () throws in
                _ = try s.post(
                    channel, old: old, new: String(value), at: "Model.swift:\(40 + random.below(60))",
                    duration: random.chance(1) ? 25_000_000 : Int64(50_000 + random.below(400_000))
                ) { _ in
                    if random.chance(3) { try s.change(channels[random.below(channels.count)], old: "a", new: "b") }
                }
            }
            if random.chance(5) { try s.inThread(Int64(2 + random.below(4)), post) } else { try post() }
        case 80..<90:  // an owner goes: removed explicitly, by token, or deallocated
            guard !owners.isEmpty else { continue }
            let owner = owners.remove(at: random.below(owners.count))
            if let scope = owner.scope { try s.endScope(scope) }
            switch random.below(3) {
            case 0:
                for registration in owner.registrations where s.isLive(registration) && random.chance(90) {
                    try s.remove(registration, reason: "tokenReleased")
                }
                if random.chance(10) { try s.removeUnregistered(at: "Cleanup.swift:12", owner: owner.id) }
            case 1:
                try s.deallocate(owner.id)
            default:
                try s.deallocate(owner.id, autoRemove: false)
            }
        default:
            try newOwner()
        }
        if s.seq % 100_000 < 5, s.seq > 0 { try fixture.commit() }
    }
    try fixture.finish()
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

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

let options = Options(Array(CommandLine.arguments.dropFirst()))
let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("obsreplay").path
guard FileManager.default.isExecutableFile(atPath: binary) else {
    FileHandle.standardError.write(Data("obsreplay not found next to the benchmark: \(binary)\n".utf8))
    exit(2)
}
let start = Date()
try generate(options.journal, count: options.events)
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
    let ratio = median(times) / max(median(scans), 0.01)
    print(String(format: "| `%@` | %.2f | %.2f | %.2fx | %.1f |", entry.name, median(times), median(scans), ratio, memory.max()!))
}
let scanMemory = try measure(scanCommand).megabytes
print(String(format: "\nsqlite3 full scan peak memory: %.1f MB", scanMemory))

// Memory must follow live state, not the number of events: diagnose a journal a quarter
// the size, written by the same generator, and compare peak memory.
let quarter = options.journal + ".quarter.sqlite"
try generate(quarter, count: options.events / 4)
let small = try measure("'\(binary)' diagnose '\(quarter)' --all --fail-on never > /dev/null").megabytes
let large = try measure("'\(binary)' diagnose \(journal) --all --fail-on never > /dev/null").megabytes
print(String(format: "diagnose peak memory: %.1f MB at %d events, %.1f MB at %d events", small, options.events / 4, large, options.events))
try? FileManager.default.removeItem(atPath: quarter)
