import Synchronization

/// How much of a long read is done, for a progress display: the reading code adds what it
/// has read (events, journals) and a display on another thread reads the count. Adding is
/// one relaxed atomic add, so readers add in batches (`batch` events at a time) and the
/// cost stays invisible next to reading the events.
package final class ReadProgress: Sendable {
    /// Events read between two additions in the reading loops.
    package static let batch = 1024

    private let done = Atomic<Int64>(0)

    package init() {}

    /// What has been read so far.
    package var count: Int64 { done.load(ordering: .relaxed) }

    /// Adds `amount` to what has been read.
    package func add(_ amount: Int) {
        done.add(Int64(amount), ordering: .relaxed)
    }
}
