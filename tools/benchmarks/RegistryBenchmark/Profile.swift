import Foundation
import ObservationJournal
import ObserverCore

/// `RegistryBenchmark --profile WHAT`: one loop, run once, for a profiler. Instructions per
/// unit come from two callgrind runs with different `--count`s (setup cancels out):
/// `tools/benchmarks/callgrind-per-event.sh RegistryBenchmark WHAT`.
enum Profile {
    static func run(_ what: String, fanOut: Int?, count: Int?) throws {
        let directory = NSTemporaryDirectory() + "RegistryBenchmark-profile-\(ProcessInfo.processInfo.processIdentifier)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fanOut = fanOut ?? 1
        switch what {
        case "closures":
            let contender = FanOut.closures(fanOut: fanOut, posts: count ?? 1_000_000)
            contender.run()
            keep(contender.checksum())
            print("closures: \(contender.posts) posts to \(fanOut) closures")
        case "post", "fanout":
            let contender = FanOut.registry(fanOut: fanOut, posts: count ?? 1_000_000)
            contender.run()
            keep(contender.checksum())
            print("registry: \(contender.posts) posts at fan-out \(fanOut), no sink")
        case "center":
            let contender = FanOut.notificationCenter(fanOut: fanOut, posts: count ?? 100_000)
            contender.run()
            keep(contender.checksum())
            print("NotificationCenter: \(contender.posts) posts to \(fanOut) block observers")
        case "counting", "sink":
            let sink: any EventSink = what == "counting" ? CountingSink() : InMemoryEventSink()
            let contender = FanOut.registry(fanOut: fanOut, sink: sink, posts: count ?? 10_000)
            contender.run()
            keep(contender.checksum())
            print("registry with \(what == "counting" ? "a counting" : "the in-memory") sink: \(contender.posts) posts at fan-out \(fanOut)")
        case "recording":
            // Bursts under the writer's batch threshold, flushed between, as in the timed run;
            // count with `valgrind --separate-threads=yes` to see the calling thread alone.
            let session = try Journal.open(path: "\(directory)/profile.sqlite").startSession(label: "profile")
            let workload = RecordingCost.Workload(registry: session.registry)
            let posts = count ?? 150_000
            var done = 0
            while done < posts {
                let burst = min(RecordingCost.burstEvents / 2, posts - done)
                workload.burst(from: done, count: burst)
                session.flush()
                done += burst
            }
            session.close()
            keep(workload.owner.total)
            print("recording: \(posts) posts at fan-out 1 (\(session.counters.written) events written)")
        case "ring":
            let ring = RingBuffer()
            let events = count ?? 1_000_000
            ring.burst(from: 0, count: events)
            keep(ring.checksum)
            print("ring buffer: \(events) events")
        case "fputs":
            let events = count ?? 1_000_000
            do {
                let log = try LogLine(path: "\(directory)/log.txt")
                log.burst(from: 0, count: events)
            }
            print("log line: \(events) events")
        case "register":
            print("register+remove: \(RegisterRemove.registry(count: count ?? 100_000)) s")
        default:
            Benchmark.fail("unknown profile '\(what)'\n\(Benchmark.usage)", status: 64)
        }
    }
}
