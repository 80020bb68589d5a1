import Foundation
import ObservationJournal
import ObserverCore

/// What recording costs the thread that changes values, at fan-out 1, in nanoseconds of
/// that thread's CPU time per event (a change produces two: `changed`, `delivered`),
/// next to two anchors measured in the same run: a ring buffer of 64-byte records (the
/// physical limit) and a formatted log line written with `fputs`.
///
/// Bursts of 3,000 events alternate between the contenders (order rotating), so load from
/// other work falls on all alike. A burst fits the journal's buffer and stays under its
/// writer's batch threshold, and the writer commits between bursts (not timed): this is
/// the hand-over cost, never a wait for the disk. A round is `burstsPerRound` bursts of
/// every contender and gives one ns/event value for each.
enum RecordingCost {
    /// Events per burst: under the journal's default 4,096-event batch threshold.
    static let burstEvents = 3_000
    static let burstsPerRound = 15

    struct Result {
        /// Nanoseconds of calling-thread CPU per event, one value per round.
        var ring: [Double] = []
        var logLine: [Double] = []
        var bare: [Double] = []
        var emptySink: [Double] = []
        var recording: [Double] = []
    }

    static func run(rounds: Int, directory: String) throws -> Result {
        let ring = RingBuffer()
        let log = try LogLine(path: "\(directory)/log.txt")
        let bare = Workload(registry: ObserverRegistry())
        let emptySink = Workload(registry: ObserverRegistry(sink: EmptySink()))
        let session = try Journal.open(path: "\(directory)/recording.sqlite").startSession(label: "recording cost")
        let recording = Workload(registry: session.registry)
        let changes = burstEvents / 2
        // The contenders: a burst each, timed on the calling thread's CPU clock.
        let contenders: [(Int) -> Void] = [
            { ring.burst(from: $0, count: burstEvents) },
            { log.burst(from: $0, count: burstEvents) },
            { bare.burst(from: $0, count: changes) },
            { emptySink.burst(from: $0, count: changes) },
            { recording.burst(from: $0, count: changes) },
        ]
        var result = Result()
        var first = 0
        for round in -1..<rounds {  // round -1: warm-up, not recorded
            var cpu = Array(repeating: UInt64(0), count: contenders.count)
            for burst in 0..<burstsPerRound {
                for offset in contenders.indices {
                    let index = (burst + offset) % contenders.count
                    let start = Measurement.threadCPU()
                    contenders[index](first)
                    cpu[index] += Measurement.threadCPU() - start
                }
                session.flush()
                first += burstEvents
            }
            log.restart()
            guard round >= 0 else { continue }
            let events = Double(burstsPerRound * burstEvents)
            result.ring.append(Double(cpu[0]) / events)
            result.logLine.append(Double(cpu[1]) / events)
            result.bare.append(Double(cpu[2]) / events)
            result.emptySink.append(Double(cpu[3]) / events)
            result.recording.append(Double(cpu[4]) / events)
        }
        session.close()
        guard session.lastError == nil, session.counters.written == session.counters.accepted else {
            throw CocoaError(.fileWriteUnknown, userInfo: [
                NSLocalizedDescriptionKey: "recording failed: \(String(describing: session.lastError)), \(session.counters)",
            ])
        }
        keep(ring.checksum &+ bare.owner.total &+ emptySink.owner.total &+ recording.owner.total)
        return result
    }

    /// One observed value with one observer that adds up the new values.
    final class Workload {
        let subject = Subject()
        let owner = Receiver()
        let value: ObservableValue<Int>
        let token: ObservationToken

        init(registry: ObserverRegistry) {
            value = ObservableValue(0, subject: subject, key: "value", registry: registry)
            token = value.observe(owner: owner) { owner, change in owner.total &+= change.new! }
        }

        func burst(from first: Int, count: Int) {
            for number in first..<(first + count) { value.value = number }
        }
    }

    /// A sink that ignores events: what the registry itself spends on making them.
    struct EmptySink: EventSink {
        func record(_ event: ObserverEvent) {}
    }
}
