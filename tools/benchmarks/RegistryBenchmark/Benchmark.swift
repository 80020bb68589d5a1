import Foundation
import JournalFixtures
import ObservationJournal
import ObserverCore

/// The core registry's benchmark: fan-out against a plain closure loop and
/// NotificationCenter, register-then-remove scaling, the cost of event sinks, and what
/// recording costs the calling thread next to a ring buffer and a log line. Every figure
/// is the median of `--rounds` rounds with its range; see BENCHMARKS.md.
@main
enum Benchmark {
    static let usage = """
        usage: RegistryBenchmark [--rounds N] [--verbose]
               RegistryBenchmark --recording [--rounds N]
               RegistryBenchmark --notification-center [--rounds N]
               RegistryBenchmark --threads [--count POSTS]
               RegistryBenchmark --profile closures|post|center|recording|ring|fputs|register|counting|sink [--fan-out F] [--count N]

          (no mode)              fan-out, register/remove, sink cost and recording cost
          --recording            only the recording cost (and its targets)
          --notification-center  RecordingNotificationCenter against NotificationCenter
          --threads              posts per second with 1/2/4/8 threads, each on its own channel
                                 (POSTS per thread, default 200000)
          --rounds N             measured rounds per figure, after one warm-up round (default 9)
          --verbose              also print every round's rates and the best-of-rounds ratios
          --profile WHAT         run one loop once, for callgrind or perf: COUNT closure calls
                                 (closures), posts (post, center, recording, counting, sink; a fan-out-1
                                 post is two events), events (ring, fputs) or registrations
                                 (register); --fan-out applies to closures, post, center, counting,
                         sink
        """

    static func main() {
        var rounds = 9
        var verbose = false
        var mode = "all"
        var profile = ""
        var fanOut: Int?
        var count: Int?
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "--rounds": rounds = positive(arguments.next(), argument)
            case "--verbose": verbose = true
            case "--notification-center": mode = "notification-center"
            case "--recording": mode = "recording"
            case "--threads": mode = "threads"
            case "--profile":
                mode = "profile"
                profile = arguments.next() ?? ""
            case "--fan-out": fanOut = positive(arguments.next(), argument)
            case "--count": count = positive(arguments.next(), argument)
            case "--help", "-h":
                print(usage)
                return
            default: fail("unknown argument \(argument)\n\(usage)", status: 64)
            }
        }
        #if DEBUG
        print("warning: debug build; run with -c release for meaningful figures")
        #endif
        do {
            switch mode {
            case "notification-center": try RecordingCenter.run(rounds: rounds)
            case "recording": try recording(rounds: rounds, printTargets: true)
            case "profile": try Profile.run(profile, fanOut: fanOut, count: count)
            case "threads": Threads.run(posts: count ?? 200_000)
            default: try all(rounds: rounds, verbose: verbose)
            }
        } catch {
            fail("\(error)", status: 1)
        }
    }

    static func all(rounds: Int, verbose: Bool) throws {
        print("Each figure: median of \(rounds) rounds (range min–max), after one warm-up round; contenders run")
        print("back to back in every round, and each ratio is taken within a round.")
        print("")
        print("## Fan-out: deliveries per second, no sink")
        print("")
        print("| fan-out | closures | registry | NotificationCenter | registry / closures | registry / NotificationCenter |")
        print("|---:|---:|---:|---:|---:|---:|")
        var results: [FanOutResult] = []
        for fanOut in [1, 10, 100] {
            let result = FanOut.run(fanOut: fanOut, rounds: rounds)
            results.append(result)
            print("| \(fanOut) | \(millions(Spread(result.closures).median)) | \(millions(Spread(result.registry).median)) | \(millions(Spread(result.notificationCenter).median)) | \(Spread(ratios(result.registry, result.closures)).text(ratio)) | \(Spread(ratios(result.registry, result.notificationCenter)).text(ratio)) |")
        }
        if verbose {
            print("")
            print("Every round (deliveries per second, millions), and the ratios of each side's best round:")
            for result in results {
                print("fan-out \(result.fanOut):")
                print("  closures           " + result.closures.map { String(format: "%6.2f", $0 / 1e6) }.joined(separator: " "))
                print("  registry           " + result.registry.map { String(format: "%6.2f", $0 / 1e6) }.joined(separator: " "))
                print("  NotificationCenter " + result.notificationCenter.map { String(format: "%6.2f", $0 / 1e6) }.joined(separator: " "))
                print("  best-of ratios: registry / closures \(ratio(result.registry.max()! / result.closures.max()!)), registry / NotificationCenter \(ratio(result.registry.max()! / result.notificationCenter.max()!))")
            }
        }

        print("")
        print("## Register then remove N registrations (shuffled order), seconds")
        print("")
        print("| N | registry | NotificationCenter | registry / NotificationCenter |")
        print("|---:|---:|---:|---:|")
        let removal = RegisterRemove.run(counts: [50_000, 100_000, 200_000], rounds: rounds)
        for result in removal {
            print("| \(result.count) | \(String(format: "%.3f", Spread(result.registry).median)) | \(String(format: "%.3f", Spread(result.notificationCenter).median)) | \(Spread(ratios(result.registry, result.notificationCenter)).text(ratio)) |")
        }
        let growth100 = Spread(ratios(removal[1].registry, removal[0].registry))
        let growth200 = Spread(ratios(removal[2].registry, removal[1].registry))
        print("")
        print("registry time ratio 100k/50k = \(growth100.text(ratio)), 200k/100k = \(growth200.text(ratio)) (linear: 2.00, quadratic: 4.00)")

        print("")
        print("## Event sink cost at fan-out 100, deliveries per second")
        print("")
        let posts = 2_000  // 200,000 deliveries per round: the in-memory sink keeps every event
        let sinkRates = FanOut.race(
            [
                FanOut.registry(fanOut: 100, posts: posts),
                FanOut.registry(fanOut: 100, sink: CountingSink(), posts: posts),
                FanOut.registry(fanOut: 100, sink: InMemoryEventSink(), posts: posts),
            ],
            deliveriesPerPost: 100, rounds: rounds
        )
        print("| no sink | counting sink | in-memory sink | counting / no sink | in-memory / no sink |")
        print("|---:|---:|---:|---:|---:|")
        print("| \(millions(Spread(sinkRates[0]).median)) | \(millions(Spread(sinkRates[1]).median)) | \(millions(Spread(sinkRates[2]).median)) | \(Spread(ratios(sinkRates[1], sinkRates[0])).text(ratio)) | \(Spread(ratios(sinkRates[2], sinkRates[0])).text(ratio)) |")
        print("")
        print("(`ObserverEvent` is \(MemoryLayout<ObserverEvent>.stride) bytes; the in-memory sink stores one per delivery.)")

        let (added, addedOverRing) = try recording(rounds: rounds, printTargets: false)

        print("")
        print("## Targets")
        let hundred = results[2]
        let closureShare = Spread(ratios(hundred.registry, hundred.closures)).median
        let overCenter = Spread(ratios(hundred.registry, hundred.notificationCenter)).median
        print("fan-out 100, registry / closures >= 0.25: \(ratio(closureShare)) \(closureShare >= 0.25 ? "met" : "MISSED")")
        print("fan-out 100, registry / NotificationCenter >= 5: \(ratio(overCenter)) \(overCenter >= 5 ? "met" : "MISSED")")
        let linear = growth100.median < 3 && growth200.median < 3
        print("removal linear (each doubling < 3x): \(linear ? "met" : "MISSED")")
        printRecordingTargets(added: added, addedOverRing: addedOverRing)
    }

    /// The recording section: what recording costs the calling thread, next to its anchors.
    /// Returns recording's addition and its ratio to the ring buffer (medians).
    @discardableResult
    static func recording(rounds: Int, printTargets: Bool) throws -> (added: Double, addedOverRing: Double) {
        print("")
        print("## Recording: calling-thread CPU per event at fan-out 1 (a change = 2 events)")
        print("")
        let directory = NSTemporaryDirectory() + "RegistryBenchmark-\(ProcessInfo.processInfo.processIdentifier)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cost = try RecordingCost.run(rounds: rounds, directory: directory)
        let added = zip(cost.recording, cost.bare).map { $0 - $1 }
        print("| what the calling thread does per event | ns/event | / ring buffer |")
        print("|---|---:|---:|")
        print("| ring buffer: clock read + one 64-byte record | \(Spread(cost.ring).text(nanoseconds)) | 1.00 |")
        print("| log line: string interpolation + fputs to a file | \(Spread(cost.logLine).text(nanoseconds)) | \(Spread(ratios(cost.logLine, cost.ring)).text(ratio)) |")
        print("| registry, no sink | \(Spread(cost.bare).text(nanoseconds)) | \(Spread(ratios(cost.bare, cost.ring)).text(ratio)) |")
        print("| registry, empty sink (the registry making events) | \(Spread(cost.emptySink).text(nanoseconds)) | \(Spread(ratios(cost.emptySink, cost.ring)).text(ratio)) |")
        print("| registry with the journal's sink | \(Spread(cost.recording).text(nanoseconds)) | \(Spread(ratios(cost.recording, cost.ring)).text(ratio)) |")
        print("| recording's addition (journal's sink − no sink) | \(Spread(added).text(nanoseconds)) | \(Spread(ratios(added, cost.ring)).text(ratio)) |")
        let medians = (Spread(added).median, Spread(ratios(added, cost.ring)).median)
        if printTargets {
            print("")
            print("## Targets")
            printRecordingTargets(added: medians.0, addedOverRing: medians.1)
        }
        return medians
    }

    static func printRecordingTargets(added addedMedian: Double, addedOverRing: Double) {
        print("recording adds <= 150 ns/event: \(nanoseconds(addedMedian)) \(addedMedian <= 150 ? "met" : "MISSED")")
        print("recording adds <= 3x the ring buffer: \(ratio(addedOverRing)) \(addedOverRing <= 3 ? "met" : "MISSED")")
    }

    static func positive(_ text: String?, _ option: String) -> Int {
        guard let text, let value = Int(text), value > 0 else { fail("\(option) needs a positive number", status: 64) }
        return value
    }

    static func fail(_ message: String, status: Int32) -> Never {
        FileHandle.standardError.write(Data("RegistryBenchmark: \(message)\n".utf8))
        exit(status)
    }
}
