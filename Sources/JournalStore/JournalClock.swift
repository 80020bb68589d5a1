import Foundation

/// The two clocks a journal uses: wall-clock time as text for people, and the monotonic
/// clock the registry stamps events with.
package enum JournalClock {
    /// Now, as ISO 8601 UTC with milliseconds (`2026-11-29T14:46:22.123Z`).
    package static func isoNow() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date())
    }

    /// The monotonic clock in nanoseconds, the one `ObserverEvent.time` is read from.
    package static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }
}
