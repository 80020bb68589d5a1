/// One frequent registry action — a change, a delivery, a skip — as a fixed-size record of
/// ids and numbers, for a sink that takes records (`RecordSink`: the journal's buffer).
///
/// Why not an `ObserverEvent`: building one (large, with the channel's and the
/// registration's strings and references copied in) and copying it into a buffer would
/// be most of what recording costs the app's thread per event. A record is
/// plain data (no references: copying it is a `memcpy`); what its ids name — channels and
/// registrations — the sink was told once, when they were made (`RecordSink.define`).
package struct EventRecord: Sendable {
    /// Which action; the fields each one uses are listed.
    package enum Kind: UInt8, Sendable {
        /// `channel`, `liveCount`, `isPrior`, `depth`, `changeNumber`; the values
        /// (`ChangeValues`) and the call site are handed over beside the record.
        case changed
        /// `channel`, `registration`, `depth`, `duration`, `cpu`, `waits`, `changeNumber`.
        case delivered
        /// `channel`, `registration`, `depth`, `skipReason`, `changeNumber`.
        case skipped
        /// Not made by the registry: a sink's mark for an `ObserverEvent` it keeps beside
        /// its records (the rare actions), so that one list of records says the order.
        case event
    }

    /// Yes/no facts of the record.
    package struct Flags: OptionSet, Sendable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Whether every flag of `member` is set: a bit test. `OptionSet`'s own reaches
        /// this type through its conformance from another module (the journal's writer,
        /// several times per event).
        @inlinable
        package func contains(_ member: Flags) -> Bool { rawValue & member.rawValue == member.rawValue }
        /// The action ran on the main thread.
        package static let mainThread = Flags(rawValue: 1)
        /// The action ran on the main queue (see `ObserverEvent.isMainQueue`).
        package static let mainQueue = Flags(rawValue: 2)
        /// A notification before the change.
        package static let prior = Flags(rawValue: 4)
        /// `waits` was counted (the callback was slow enough to read the thread's usage).
        package static let countedWaits = Flags(rawValue: 8)
        /// `runQueue` was measured (a slow callback, where the system tells it).
        package static let measuredRunQueue = Flags(rawValue: 16)
    }

    package var kind: Kind
    package var flags: Flags
    package var skipReason: SkipReason?
    package var depth: Int32
    /// `CLOCK_MONOTONIC` in nanoseconds.
    package var time: UInt64
    /// The registry's thread number.
    package var thread: UInt64
    package var channel: UInt64
    package var registration: UInt64
    /// The owner of `registration` (deliveries, skips): a delivery's row needs only the
    /// registration's id and its owner's, so the writer need not keep the definitions of
    /// registrations that ended (a long session makes them without end).
    package var owner: UInt64
    package var liveCount: UInt64
    package var duration: UInt64
    package var cpu: UInt64
    package var waits: UInt64
    /// The registry's number of the change (`ObserverEvent.changeNumber`); 0 for none.
    package var changeNumber: UInt64

    package init(
        kind: Kind, flags: Flags, time: UInt64, thread: UInt64, channel: UInt64, depth: Int32,
        registration: UInt64 = 0, owner: UInt64 = 0, liveCount: UInt64 = 0, skipReason: SkipReason? = nil,
        duration: UInt64 = 0, cpu: UInt64 = 0, waits: UInt64 = 0, changeNumber: UInt64 = 0
    ) {
        self.changeNumber = changeNumber
        self.kind = kind
        self.flags = flags
        self.skipReason = skipReason
        self.depth = depth
        self.time = time
        self.thread = thread
        self.channel = channel
        self.registration = registration
        self.owner = owner
        self.liveCount = liveCount
        self.duration = duration
        self.cpu = cpu
        self.waits = waits
    }

    /// Whether the action ran on the main thread.
    package var isMainThread: Bool { flags.contains(.mainThread) }

    /// `delivered`: how long the callback was runnable but waiting for a CPU
    /// (`ObserverEvent.runQueueWait`); `nil` when not measured. Kept in `liveCount`'s place:
    /// a delivery has no live count, and a field of its own would make every record larger.
    package var runQueue: UInt64? { flags.contains(.measuredRunQueue) ? liveCount : nil }
}

/// A sink that takes the registry's frequent actions as `EventRecord`s (the journal's
/// buffer). The registry still hands it the rare ones (registrations, removals, scopes)
/// as `ObserverEvent`s through `record(_:)`.
///
/// The same contract as `EventSink`: called synchronously, quick, never calling back
/// into the registry. `define` and `recordChange` are called under the registry's lock.
/// A class: the registry reads it for every event, and copying a class reference is a
/// retain, where copying an `any EventSink` goes through its value witnesses.
package protocol RecordSink: AnyObject, EventSink {
    /// A channel was made; later records name it by `info.id`. Called once per channel,
    /// before any record names it.
    func define(_ info: ChannelInfo)
    /// A registration was made; later records name it by `info.id`. Called once per
    /// registration, before any record names it (and before its `registered` event).
    func define(_ info: RegistrationInfo)
    /// A `changed` record, with its values and call site (kept as given: turned into text
    /// on the sink's own thread, never on the app's).
    func recordChange(
        _ record: EventRecord, values: consuming ChangeValues, callSite: CallSite?
    )
    /// A `delivered` or `skipped` record.
    func record(_ record: EventRecord)
    /// A channel was deallocated: no later record or event names it, so the sink can
    /// forget its definition (memory then follows live channels, not history). Called
    /// once per channel defined, on whichever thread released it last (possibly under the
    /// registry's lock, as `define` is).
    func channelEnded(_ id: UInt64)
}

extension RecordSink {
    /// Sinks that keep nothing per channel have nothing to forget.
    package func channelEnded(_ id: UInt64) {}
}
