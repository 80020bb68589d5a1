import ObserverCore
import Synchronization
import TestSupport

// Objects and recorders shared by the test files.

/// A subject: the object whose values or callbacks are observed.
final class Player {}

/// An owner that keeps its tokens, as apps should.
final class Screen {
    let name: String
    var tokens: [ObservationToken] = []
    /// Another screen a callback acts on; callbacks reach it through their owner.
    var partner: Screen?
    init(_ name: String) { self.name = name }
}

/// Collects what callbacks saw, from any thread.
final class Received: Sendable {
    private let items = Locked<[String]>([])
    func append(_ item: String) { items.withLock { $0.append(item) } }
    var all: [String] { items.withLock { $0 } }
}

/// A thread-safe counter for callbacks.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    func increment() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}

extension InMemoryEventSink {
    /// The events of one kind, in order.
    func events(_ kind: ObserverEvent.Kind) -> [ObserverEvent] { events.filter { $0.kind == kind } }
}
