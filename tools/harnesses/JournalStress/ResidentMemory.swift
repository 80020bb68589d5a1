import Foundation
import JournalFixtures

/// The process's resident memory (RSS), sampled on a thread of its own.
enum ResidentMemory {
    struct Sample {
        var seconds: Double
        /// The work done so far (events), as the sampler's `progress` read it.
        var work: Int
        var bytes: Int
    }

    /// RSS now, from `/proc/self/statm` (its second field, in pages).
    static func current() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    final class Sampler: Sendable {
        private let interval: Double
        private let progress: @Sendable () -> Int
        private let state = Locked<(samples: [Sample], running: Bool)>(([], false))

        /// Samples every `interval` seconds, each with the work `progress` reports.
        init(every interval: Double, progress: @escaping @Sendable () -> Int) {
            self.interval = interval
            self.progress = progress
        }

        func start() {
            state.withLock { $0.running = true }
            let begin = Date()
            Thread { [self] in
                while state.withLock({ $0.running }) {
                    let sample = Sample(seconds: Date().timeIntervalSince(begin), work: progress(), bytes: current())
                    state.withLock { $0.samples.append(sample) }
                    Thread.sleep(forTimeInterval: interval)
                }
            }.start()
        }

        func stop() -> [Sample] {
            state.withLock {
                $0.running = false
                return $0.samples
            }
        }
    }

    /// Whether RSS stayed flat while the work went on (`MemoryTrend`: the second half of
    /// the work, by events rather than seconds, must not show a rising line), with the
    /// figures it decided on and, for context, the first sample and the highest.
    static func growth(_ samples: [Sample], unit: String) -> (flat: Bool, description: String) {
        let trend = MemoryTrend(samples.map { MemoryTrend.Sample(work: Double($0.work), bytes: $0.bytes) })
        let mib = { (bytes: Int) in String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
        let first = samples.first.map { mib($0.bytes) } ?? "-"
        let peak = samples.map(\.bytes).max().map(mib) ?? "-"
        return (trend.flat, "start \(first), max \(peak); \(trend.description(unit: unit))")
    }
}
