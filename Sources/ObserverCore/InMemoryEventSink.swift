/// An `EventSink` that keeps every event in memory, for tests (yours and ours).
///
/// Thread-safe. Memory grows with every event: use it for tests and short diagnostics,
/// and the journal for anything long-running.
public final class InMemoryEventSink: EventSink {
    // `Protected` (a pthread mutex) rather than `Synchronization.Mutex`: on Linux the
    // latter locks with raw futex calls that ThreadSanitizer cannot see, so every test
    // run under TSan would report the sink's own storage as a race.
    private let storage = Protected<[ObserverEvent]>([])

    /// Creates an empty sink.
    public init() {}

    /// Appends the event.
    public func record(_ event: ObserverEvent) {
        storage.withLock { $0.append(event) }
    }

    /// Every event recorded so far, in the order the sink received them.
    public var events: [ObserverEvent] { storage.withLock { $0 } }

    /// The kinds of the events recorded so far, in order.
    public var kinds: [ObserverEvent.Kind] { events.map(\.kind) }

    /// Forgets every event recorded so far. Keeps the storage, so recording the next
    /// batch does not grow it again from nothing.
    public func removeAll() { storage.withLock { $0.removeAll(keepingCapacity: true) } }
}
