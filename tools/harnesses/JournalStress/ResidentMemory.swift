import Foundation
import Synchronization

/// The process's resident memory (RSS), sampled on a thread of its own.
enum ResidentMemory {
    struct Sample {
        var seconds: Double
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
        private let state = Mutex<(samples: [Sample], running: Bool)>(([], false))

        init(every interval: Double) {
            self.interval = interval
        }

        func start() {
            state.withLock { $0.running = true }
            let begin = Date()
            Thread { [self] in
                while state.withLock({ $0.running }) {
                    let sample = Sample(seconds: Date().timeIntervalSince(begin), bytes: current())
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

    /// Whether RSS stayed flat: after the first quarter (warm-up: buffers, caches and
    /// statements reach their size), the highest sample of the last half is at most 10%
    /// (and 8 MiB) above the highest sample of the second quarter.
    static func growth(_ samples: [Sample]) -> (flat: Bool, description: String) {
        guard samples.count >= 8 else { return (true, "too few samples (\(samples.count))") }
        let quarter = samples.count / 4
        let early = samples[quarter..<(2 * quarter)].map(\.bytes).max()!
        let late = samples[(2 * quarter)...].map(\.bytes).max()!
        let first = samples[0].bytes
        let mib = { (bytes: Int) in String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
        let flat = late <= early + max(early / 10, 8 << 20)
        return (flat, "start \(mib(first)), after warm-up \(mib(early)), end max \(mib(late)), \(samples.count) samples")
    }
}
