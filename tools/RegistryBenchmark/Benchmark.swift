import Foundation
import ObserverCore

/// The core registry's benchmark: fan-out against a plain closure loop and
/// NotificationCenter, register-then-remove scaling, and the cost of the in-memory sink.
/// Prints tables of ratios; see BENCHMARKS.md for the recorded figures.
///
/// Run: `swift run -c release RegistryBenchmark`; `--notification-center` measures
/// `RecordingNotificationCenter` against `NotificationCenter` instead.
@main
enum Benchmark {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == "--help" || arguments.first == "-h" {
            print("usage: RegistryBenchmark [--profile fanout|closures|register|counting|sink [N [POSTS]]] [--notification-center] [--threads [POSTS]]")
            print("Without arguments: the registry's fan-out, register/remove and sink benchmarks.")
            return
        }
        if arguments.first == "--notification-center" {
            do {
                try RecordingCenter.run()
            } catch {
                FileHandle.standardError.write(Data("RegistryBenchmark: \(error)\n".utf8))
                exit(1)
            }
            return
        }
        if arguments.first == "--threads" {
            Threads.run(posts: arguments.dropFirst().first.flatMap { Int($0) } ?? 200_000)
            return
        }
        if arguments.first == "--profile" {
            // One loop alone, for a profiler (perf, valgrind --tool=callgrind).
            let what = arguments.dropFirst().first ?? "fanout"
            let size = arguments.dropFirst(2).first.flatMap { Int($0) }
            // An explicit post count makes instruction counts comparable: the difference
            // between two counts, divided by the difference in posts (times 3 rounds), is the
            // cost of one post without the setup.
            let posts = arguments.dropFirst(3).first.flatMap { Int($0) }
            switch what {
            case "fanout": print("registry fan-out: \(millions(FanOut.race([FanOut.registry(fanOut: size ?? 100, posts: posts)], deliveriesPerPost: size ?? 100, rounds: 3)[0]))")
            case "closures": print("closures fan-out: \(millions(FanOut.race([FanOut.closures(fanOut: size ?? 100)], deliveriesPerPost: size ?? 100, rounds: 3)[0]))")
            case "register": print("register+remove: \(RegisterRemove.registry(count: size ?? 100_000)) s")
            case "counting": print("counting sink: \(millions(FanOut.race([FanOut.registry(fanOut: 100, sink: CountingSink(), posts: 2_000)], deliveriesPerPost: 100, rounds: 3)[0]))")
            case "threadsink": print("discarding sink, 1 thread: \(millions(Threads.rate(threads: 1, posts: posts ?? 100_000, sink: Threads.DiscardingSink(), rounds: 3)))")
            case "sink": print("in-memory sink: \(millions(FanOut.race([FanOut.registry(fanOut: 100, sink: InMemoryEventSink(), posts: 2_000)], deliveriesPerPost: 100, rounds: 3)[0]))")
            default: print("usage: RegistryBenchmark [--notification-center | --profile fanout|closures|register|counting|sink [N [POSTS]]]")
            }
            return
        }
        #if DEBUG
        print("warning: debug build; run with -c release for meaningful figures")
        #endif
        print("## Fan-out: deliveries per second (contenders interleaved, best of 7 rounds, no sink)")
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
        print("## Register then remove N registrations (shuffled order), seconds (best of 5 interleaved rounds)")
        print("")
        print("| N | registry | NotificationCenter | registry / NotificationCenter |")
        print("|---:|---:|---:|---:|")
        var times: [Int: RegisterRemoveResult] = [:]
        for result in RegisterRemove.run(counts: [50_000, 100_000, 200_000]) {
            times[result.count] = result
            print("| \(result.count) | \(String(format: "%.3f", result.registry)) | \(String(format: "%.3f", result.notificationCenter)) | \(ratio(result.registry / result.notificationCenter)) |")
        }
        let growth100 = times[100_000]!.registry / times[50_000]!.registry
        let growth200 = times[200_000]!.registry / times[100_000]!.registry
        print("")
        print("registry time ratio 100k/50k = \(ratio(growth100)), 200k/100k = \(ratio(growth200)) (linear: 2.00, quadratic: 4.00)")

        print("")
        print("## Event sink cost at fan-out 100 (deliveries per second)")
        print("")
        let posts = 2_000  // 200,000 deliveries per run: the in-memory sink keeps every event
        let sinkRates = FanOut.race(
            [
                FanOut.registry(fanOut: 100, posts: posts),
                FanOut.registry(fanOut: 100, sink: CountingSink(), posts: posts),
                FanOut.registry(fanOut: 100, sink: InMemoryEventSink(), posts: posts),
            ],
            deliveriesPerPost: 100
        )
        let (plain, counting, recorded) = (sinkRates[0], sinkRates[1], sinkRates[2])
        print("| no sink | counting sink | in-memory sink | counting / no sink | in-memory / no sink |")
        print("|---:|---:|---:|---:|---:|")
        print("| \(millions(plain)) | \(millions(counting)) | \(millions(recorded)) | \(ratio(counting / plain)) | \(ratio(recorded / plain)) |")
        print("")
        print("(`ObserverEvent` is \(MemoryLayout<ObserverEvent>.stride) bytes; the in-memory sink stores one per delivery.)")
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
