import SystemShim
import Foundation
import ObservationJournal
import ObserverCore

/// Measures the journal in one run, so the figures are ratios against references taken on
/// the same machine at the same moment:
///
/// (a) raw ceiling: the event rows a fan-out-1 workload produces, inserted through one
///     prepared statement in 10,000-row transactions, no registry;
/// (b) sustained events per second through `RecordingSession`, until `close()` has
///     committed everything;
/// (c) the calling thread's cost per event: recording vs the bare registry, in bursts that
///     fit the buffer (so no waiting for the disk is measured).
///
/// Usage: `swift run -c release JournalBenchmark [--events N] [--rounds R]`.
@main
enum JournalBenchmark {
    static func main() throws {
        var events = 1_000_000
        var rounds = 3
        var only: String?
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "--events": events = Int(arguments.next() ?? "") ?? events
            case "--rounds": rounds = Int(arguments.next() ?? "") ?? rounds
            case "--only": only = arguments.next()
            case "--help", "-h":
                print("usage: JournalBenchmark [--events N] [--rounds R] [--only a|b|c]")
                exit(0)
            default:
                FileHandle.standardError.write(Data("usage: JournalBenchmark [--events N] [--rounds R] [--only a|b|c]\n".utf8))
                exit(2)
            }
        }
        let directory = NSTemporaryDirectory() + "JournalBenchmark-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        print("events per measurement: \(events), rounds: \(rounds) (best of rounds reported)")
        var raw: [Double] = []
        var rawMulti: [Double] = []
        var sustained: [Double] = []
        var costs: [CallingThread.Cost] = []
        for round in 1...rounds {
            if only == nil || only == "a" {
                raw.append(try RawCeiling.run(path: "\(directory)/raw\(round).sqlite", rows: events))
                rawMulti.append(try RawCeiling.run(
                    path: "\(directory)/raw32-\(round).sqlite", rows: events, rowsPerStatement: 32))
            }
            if only == nil || only == "b" {
                sustained.append(try Sustained.run(path: "\(directory)/sustained\(round).sqlite", events: events))
            }
            if only == nil || only == "c" {
                costs.append(try CallingThread.run(path: "\(directory)/cost\(round).sqlite", events: events))
            }
        }
        let rawBest = raw.max() ?? .nan
        let rawMultiBest = rawMulti.max() ?? .nan
        let sustainedBest = sustained.max() ?? .nan
        // The round whose recording cost the least CPU: the one least disturbed.
        let cost = costs.min { $0.recordedCPU < $1.recordedCPU }
        print(String(format: "(a) raw ceiling, one prepared statement:        %10.0f rows/s", rawBest))
        print(String(format: "    the same, 32 rows per statement (as the writer): %7.0f rows/s", rawMultiBest))
        print(String(format: "(b) sustained through RecordingSession:         %10.0f events/s = %.0f%% of (a) (target >= 50%%), %.0f%% of 32-row (a)",
                     sustainedBest, 100 * sustainedBest / rawBest, 100 * sustainedBest / rawMultiBest))
        if let cost {
            print(String(format: "(c) calling thread CPU, bare registry:          %10.1f ns/event", cost.bareCPU))
            print(String(format: "    calling thread CPU, registry + empty sink:  %10.1f ns/event (the registry making events)",
                         cost.emptySinkCPU))
            print(String(format: "    calling thread CPU, recording:              %10.1f ns/event = %.2fx bare, +%.0f ns (target <= 1000 ns)",
                         cost.recordedCPU, cost.recordedCPU / cost.bareCPU, cost.recordedCPU - cost.bareCPU))
            print(String(format: "    wall time, bare / recording:                %10.1f / %.1f ns/event",
                         cost.bareWall, cost.recordedWall))
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        print("peak resident memory of the whole run: \(usage.ru_maxrss / 1024) MiB")
    }
}

/// Monotonic nanoseconds.
func now() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

final class Subject {}
final class Owner {}
