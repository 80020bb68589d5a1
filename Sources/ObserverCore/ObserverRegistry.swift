import Dispatch
import SystemShim
import Synchronization

/// A one-to-many observer registry: channels of (subject, key), registrations that hold
/// their owner weakly and their callback strongly, removal with the reason kept.
///
/// Thread-safe: every method may be called from any thread. A dispatch takes a snapshot
/// of the channel's registrations under the channel's own lock (posts on different
/// channels do not wait for each other; registering and removing also take the
/// registry's lock) and calls them outside it, so a callback
/// may register, remove (itself included) or post without deadlock. A registration
/// removed during a dispatch is not called afterwards in that dispatch; one added during
/// a dispatch does not receive the change in flight.
///
/// Every action is also an `ObserverEvent` handed to the optional `EventSink`; with no
/// sink the registry does no event work at all.
public final class ObserverRegistry: Sendable {
    struct State {
        var identities = ObjectIdentityTable()
        var channels: [ChannelKey: Channel] = [:]
        var registrations: [UInt64: RegistrationEntry] = [:]
        var byOwner: [UInt64: Set<UInt64>] = [:]
        var nextChannelID: UInt64 = 1
        var nextRegistrationID: UInt64 = 1
        var nextScopeID: UInt64 = 1
    }

    let state = Protected(State())
    let sink: (any EventSink)?
    /// `sink != nil`, read on every delivery: testing the optional existential itself
    /// copies it (a retain, a release and two witness calls) each time.
    @usableFromInline let hasSink: Bool
    /// The number the next `changed` event gets (`ObserverEvent.changeNumber`); only
    /// counted with a sink. Taken under the channel's lock, so on one channel numbers
    /// follow the sink's order.
    let nextChangeNumber = Atomic<UInt64>(1)
    /// `sink` when it takes compact records (the journal's buffer): changes, deliveries
    /// and skips then go to it as `EventRecord`s, with no `ObserverEvent` built.
    let recordSink: (any RecordSink)?
    /// `recordSink != nil`, for the same reason as `hasSink`.
    let hasRecordSink: Bool

    /// Creates a registry.
    /// - Parameter sink: receives every action as an event; `nil` (the default) costs nothing.
    public init(sink: (any EventSink)? = nil) {
        self.sink = sink
        self.hasSink = sink != nil
        self.recordSink = sink as? any RecordSink
        self.hasRecordSink = recordSink != nil
    }

    // MARK: - Events

    /// Builds and hands over an event; only called when a sink is installed.
    func emit(_ sink: any EventSink, _ kind: ObserverEvent.Kind, _ fill: (inout ObserverEvent) -> Void) {
        let context = ThreadContext.current
        var event = ObserverEvent(
            kind: kind, time: monotonicNanoseconds(), thread: context.number,
            isMainThread: context.isMain, depth: context.depth, isMainQueue: MainQueue.isCurrent
        )
        fill(&event)
        sink.record(event)
    }

    // MARK: - Channels

    /// The channel for (subject, key), created with `policy` if new. A channel keeps the
    /// policy it was created with.
    ///
    /// A channel carries one payload type. Asking for the channel of (subject, key) with
    /// another type than it was made with — a second `ObservableValue` of another value
    /// type, or a `CallbackProperty`, on the same subject and key; a registry notification
    /// name a `RecordingNotificationCenter` already records — is a programming error and
    /// traps with a message naming both types and the key: the registry would otherwise
    /// drop every post of one of them without a trace. Registering a callback of another
    /// type traps with the same message.
    func channel(
        subject: AnyObject?, key: String, policy: DeliveryPolicy, payload: Any.Type
    ) -> Channel {
        let channel = channel(subject: subject, key: key, policy: policy, compatibleWith: payload)
        // Checked after the lock: a trap must not leave it held for a crash handler.
        channel.requirePayload(payload, "A value or callback is made")
        return channel
    }

    /// The channel for (subject, key), created with `policy` and `payload` if new; an
    /// existing one is returned whatever its payload type, for callers that choose
    /// another key when it does not match (`RecordingNotificationCenter`).
    func channel(
        subject: AnyObject?, key: String, policy: DeliveryPolicy, compatibleWith payload: Any.Type
    ) -> Channel {
        state.withLock { state in
            let subjectRef = subject.map { state.identities.ref(for: $0) } ?? .any
            let channelKey = ChannelKey(subject: subjectRef.id, key: key)
            if let existing = state.channels[channelKey], existing.subject != nil || !existing.hasSubject {
                return existing
            }
            let info = ChannelInfo(id: state.nextChannelID, subject: subjectRef, key: key, policy: policy)
            state.nextChannelID += 1
            let channel = Channel(info: info, subject: subject, payload: payload, recordSink: recordSink)
            state.channels[channelKey] = channel
            recordSink?.define(info)
            return channel
        }
    }

    /// Counters of the registry's current state.
    public struct Statistics: Sendable, Equatable {
        /// Live registrations.
        public var registrations: Int
        /// Channels known (including ones with no live registrations).
        public var channels: Int
        /// Objects whose ids are remembered.
        public var objects: Int
    }

    /// The registry's current counters.
    public var statistics: Statistics {
        state.withLock {
            Statistics(registrations: $0.registrations.count, channels: $0.channels.count, objects: $0.identities.count)
        }
    }
}

extension ObserverRegistry {
    /// Numbers a change (`ObserverEvent.changeNumber`). Under the channel's lock.
    func takeChangeNumber() -> UInt64 {
        nextChangeNumber.wrappingAdd(1, ordering: .relaxed).oldValue
    }
}
