import Foundation
import ObserverCore

/// The core registry's benchmark: fan-out against a plain closure loop and
/// NotificationCenter, register-then-remove scaling, and the cost of the in-memory sink.
/// Prints tables of ratios; see BENCHMARKS.md for the recorded figures.
///
/// Run: `swift run -c release RegistryBenchmark`
@main
enum Benchmark {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == "--profile" {
            // One loop alone, for a profiler (perf, valgrind --tool=callgrind).
            let what = arguments.dropFirst().first ?? "fanout"
            let size = arguments.dropFirst(2).first.flatMap { Int($0) }
            switch what {
            case "fanout": print("registry fan-out: \(millions(FanOut.registry(fanOut: size ?? 100, runs: 3)))")
            case "closures": print("closures fan-out: \(millions(FanOut.closures(fanOut: size ?? 100)))")
            case "register": print("register+remove: \(RegisterRemove.registry(count: size ?? 100_000)) s")
            case "sink": print("sink fan-out 100: \(millions(FanOut.registry(fanOut: 100, sink: InMemoryEventSink(), runs: 3, posts: 2_000)))")
            default: print("usage: RegistryBenchmark [--profile fanout|closures|register|sink [N]]")
            }
            return
        }
        #if DEBUG
        print("warning: debug build; run with -c release for meaningful figures")
        #endif
        print("## Fan-out: deliveries per second (best of several runs, no sink)")
        print("")
        print("| fan-out | closures | registry | NotificationCenter | registry / closures | registry / NotificationCenter |")
        print("|---:|---:|---:|---:|---:|---:|")
        var atHundred: FanOutResult?
        for fanOut in [1, 10, 100] {
            let result = FanOut.run(fanOut: fanOut)
            if fanOut == 100 { atHundred = result }
            print("| \(fanOut) | \(millions(result.closures)) | \(millions(result.registry)) | \(millions(result.notificationCenter)) | \(ratio(result.registry / result.closures)) | \(ratio(result.registry / result.notificationCenter)) |")
        }

        print("")
        print("## Register then remove N registrations (shuffled order), seconds")
        print("")
        print("| N | registry | NotificationCenter | registry / NotificationCenter |")
        print("|---:|---:|---:|---:|")
        var times: [Int: RegisterRemoveResult] = [:]
        for count in [50_000, 100_000, 200_000] {
            let result = RegisterRemove.run(count: count)
            times[count] = result
            print("| \(count) | \(String(format: "%.3f", result.registry)) | \(String(format: "%.3f", result.notificationCenter)) | \(ratio(result.registry / result.notificationCenter)) |")
        }
        let growth100 = times[100_000]!.registry / times[50_000]!.registry
        let growth200 = times[200_000]!.registry / times[100_000]!.registry
        print("")
        print("registry time ratio 100k/50k = \(ratio(growth100)), 200k/100k = \(ratio(growth200)) (linear: 2.00, quadratic: 4.00)")

        print("")
        print("## In-memory sink cost at fan-out 100")
        print("")
        let posts = 2_000  // 200,000 deliveries per run: the sink keeps every event
        let plain = FanOut.registry(fanOut: 100, runs: 5, posts: posts)
        let recorded = FanOut.registry(fanOut: 100, sink: InMemoryEventSink(), runs: 5, posts: posts)
        print("| no sink | in-memory sink | sink / no sink |")
        print("|---:|---:|---:|")
        print("| \(millions(plain)) | \(millions(recorded)) | \(ratio(recorded / plain)) |")

        print("")
        print("## Targets")
        let hundred = atHundred!
        let closureShare = hundred.registry / hundred.closures
        let overCenter = hundred.registry / hundred.notificationCenter
        print("fan-out 100, registry / closures >= 0.25: \(ratio(closureShare)) \(closureShare >= 0.25 ? "met" : "MISSED")")
        print("fan-out 100, registry / NotificationCenter >= 5: \(ratio(overCenter)) \(overCenter >= 5 ? "met" : "MISSED")")
        let linear = growth100 < 3 && growth200 < 3
        print("removal linear (each doubling < 3x): \(linear ? "met" : "MISSED")")
    }
}
