import Foundation
import JournalFixtures
import SystemShim

/// Timing helpers. The machine is shared and noisy, so every comparison is a ratio between
/// figures measured in the same process, in the same round: contenders run back to back,
/// round after round, and each round gives one value of each ratio. The figures printed are
/// the median of the rounds and their range (min–max), never the best round of each side
/// (each side's best comes from a different moment, which favours the side whose rounds
/// vary most).
enum Measurement {
    static let clock = ContinuousClock()

    /// Seconds taken by `body`.
    static func seconds(_ body: () -> Void) -> Double {
        let start = clock.now
        body()
        let elapsed = clock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }

    /// The calling thread's CPU time in nanoseconds (user + system; immune to the thread
    /// being descheduled by other work on the machine).
    static func threadCPU() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}

/// Formats 12_345_678 as "12.35M".
func millions(_ rate: Double) -> String {
    String(format: "%.2fM", rate / 1e6)
}

func ratio(_ value: Double) -> String {
    String(format: "%.2f", value)
}

func nanoseconds(_ value: Double) -> String {
    String(format: "%.1f", value)
}
