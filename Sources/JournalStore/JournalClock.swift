import Foundation

/// Wall-clock time as text for people. (The monotonic clock events are stamped with is
/// ObserverCore's `monotonicNanoseconds()`, the one clock function of the package.)
package enum JournalClock {
    /// Now, as ISO 8601 UTC with milliseconds (`2026-11-29T14:46:22.123Z`).
    package static func isoNow() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date())
    }
}
