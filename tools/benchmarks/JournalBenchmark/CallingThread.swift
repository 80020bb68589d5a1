import SystemShim
import Foundation
import ObservationJournal
import ObserverCore

/// (c) What recording costs the thread that changes values, at fan-out 1 (2 events per
/// change: `changed`, `delivered`).
///
/// Bursts of changes alternate between the bare registry and the recording one, so load
/// from other processes on this shared machine hits both alike. Each burst's events fit
/// the buffer and stay under the writer's batch threshold, and the writer commits between
/// bursts (not timed): this is the hand-over cost, never a wait for the disk. Reported as
/// the calling thread's CPU time (immune to being descheduled) and as wall time.
enum CallingThread {
    /// Changes per burst: 3,000 events, under the default 4,096-event batch threshold.
    static let burst = 1_500

    struct Cost {
        var bareCPU: Double
        var emptySinkCPU: Double
        var recordedCPU: Double
        var bareWall: Double
        var recordedWall: Double
    }

    static func run(path: String, events: Int) throws -> Cost {
        let changes = events / 2
        let bare = Workload(registry: ObserverRegistry())
        let emptySink = Workload(registry: ObserverRegistry(sink: EmptySink()))
        let recording = try Journal.open(path: path).startSession(label: "calling thread")
        let recorded = Workload(registry: recording.registry)
        var done = 0
        while done < changes {
            let count = min(burst, changes - done)
            bare.burst(from: done, count: count)
            emptySink.burst(from: done, count: count)
            recorded.burst(from: done, count: count)
            recording.flush()
            done += count
        }
        recording.close()
        precondition(recording.lastError == nil && recording.counters.written == 2 * changes + 1)
        let perEvent = Double(changes * 2)
        return Cost(
            bareCPU: Double(bare.cpu) / perEvent, emptySinkCPU: Double(emptySink.cpu) / perEvent, recordedCPU: Double(recorded.cpu) / perEvent,
            bareWall: Double(bare.wall) / perEvent, recordedWall: Double(recorded.wall) / perEvent
        )
    }

    /// One observed value with one observer, and the time spent setting it.
    final class Workload {
        let subject = Subject()
        let owner = Owner()
        let value: ObservableValue<Int>
        let token: ObservationToken
        var cpu: UInt64 = 0
        var wall: UInt64 = 0

        init(registry: ObserverRegistry) {
            value = ObservableValue(0, subject: subject, key: "value", registry: registry)
            token = value.observe(owner: owner) { _, _ in }
        }

        func burst(from first: Int, count: Int) {
            let startCPU = threadCPU()
            let startWall = now()
            for number in first..<(first + count) { value.value = number }
            wall += now() - startWall
            cpu += threadCPU() - startCPU
        }
    }

    /// A sink that ignores events: what the registry itself spends on making them.
    struct EmptySink: EventSink {
        func record(_ event: ObserverEvent) {}
    }

    /// The calling thread's CPU time in nanoseconds.
    static func threadCPU() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}

private func threadCPU() -> UInt64 { CallingThread.threadCPU() }
