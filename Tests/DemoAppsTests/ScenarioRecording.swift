import DemoAppRunner
import ObserverCore
import DemoApps
import Testing

/// One run of a scenario variant, recorded with an in-memory sink on the test's thread
/// (never the main thread under `swift test`).
struct ScenarioRecording {
    let events: [ObserverEvent]

    init(_ name: String, _ variant: ScenarioVariant) throws {
        let scenario = try #require(DemoApp.named(name))
        let sink = InMemoryEventSink()
        try scenario.run(variant: variant, registry: ObserverRegistry(sink: sink))
        events = sink.events
    }

    /// The events as shapes (see `EventLine`).
    var shapes: [String] { EventLine.lines(of: events).map(\.shape) }

    /// The events of `kind`, on the channel described as `channel` when given.
    func events(_ kind: ObserverEvent.Kind, on channel: String? = nil) -> [ObserverEvent] {
        events.filter { $0.kind == kind && (channel == nil || $0.channel?.description == channel) }
    }

    /// The owners of the deliveries on `channel`, in order.
    func deliveredOwners(on channel: String) -> [String] {
        events(.delivered, on: channel).compactMap { $0.registration?.owner.description }
    }

    /// For each change on `channel`, the owners it was delivered to, in order.
    ///
    /// Deliveries are attributed to the latest change before them on the channel, which
    /// holds because the stories drain the UI queue after every change.
    func deliveriesPerChange(on channel: String) -> [[String]] {
        var result: [[String]] = []
        for event in events where event.channel?.description == channel {
            if event.kind == .changed { result.append([]) }
            if event.kind == .delivered, let owner = event.registration?.owner.description, !result.isEmpty {
                result[result.count - 1].append(owner)
            }
        }
        return result
    }

    /// The position of the first event of `kind`.
    func index(of kind: ObserverEvent.Kind) -> Int? {
        events.firstIndex { $0.kind == kind }
    }
}
