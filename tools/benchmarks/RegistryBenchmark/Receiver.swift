import ObserverCore

/// What every delivery does, in all three contenders: add the new value to its receiver's
/// total, so the work cannot be optimised away and is the same everywhere.
final class Receiver: @unchecked Sendable {
    var total = 0
}

/// The subject whose value is observed.
final class Subject {}

/// A sink that only counts: the registry's own event work, without the cost of keeping
/// events (which is the in-memory sink's, and grows with the size of `ObserverEvent`).
final class CountingSink: EventSink, @unchecked Sendable {
    var count = 0
    func record(_ event: ObserverEvent) { count &+= 1 }
}
