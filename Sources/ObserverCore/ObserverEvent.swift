/// One action of an `ObserverRegistry`, handed to its `EventSink`.
///
/// Events are plain values. Fields that do not apply to a kind are `nil` (or zero);
/// the table on `Kind` says which are set. `isMainThread` and `isMainQueue` are set on
/// every event.
public struct ObserverEvent: Sendable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A registration was made. `channel`, `registration`.
        case registered
        /// On a single-slot channel a registration replaced a live one. `channel`,
        /// `registration` (the new one), `replaced` (the previous one). The previous one
        /// is not removed by a separate event.
        case replaced
        /// A registration was removed. `channel`, `registration`, `removalReason`,
        /// `callSite` (where the removal was asked for, if it was).
        case removed
        /// A removal was asked for that matched no live registration. `callSite`, and
        /// where known `channel`, `registration`, `owner`.
        case removeUnregistered
        /// A value changed or a notification was posted. `channel`, `old`, `new`,
        /// `isPrior`, `depth`, `liveCount`, `callSite` (where posted, when known),
        /// `changeNumber`.
        case changed
        /// A callback ran. `channel`, `registration`, `duration` (wall), `cpuDuration`,
        /// `waits` (Linux), `depth`, `isMainQueue`, `changeNumber` (of the change delivered).
        case delivered
        /// A live registration was not called for a change. `channel`, `registration`,
        /// `skipReason`, `changeNumber` (of the change not delivered).
        case skipped
        /// A scope began. `scope`.
        case scopeBegan
        /// A scope ended; registrations declared for it should be gone. `scope`.
        case scopeEnded
        /// A token was cancelled after the registry had already removed its registration
        /// by itself (owner or subject deallocated, or replaced in a single slot): a
        /// no-op, not a user error. `channel`, `registration`, `callSite` (of the
        /// cancel), `removalReason` (how the registration had gone).
        case cancelAfterAutoRemoval
        /// The owner of a registration another assignment had replaced was deallocated
        /// (its token went with it): the registration is long gone, but the owner's
        /// deallocation is a fact diagnosis needs. `channel`, `registration`.
        case ownerGone
    }

    /// What happened.
    public var kind: Kind
    /// Monotonic clock reading in nanoseconds (`CLOCK_MONOTONIC`).
    public var time: UInt64
    /// The registry's number for the thread that performed the action (1, 2, ...).
    public var thread: UInt64
    /// Whether the action ran on the main thread.
    public var isMainThread: Bool
    /// Whether the action ran on the main queue (`DispatchQueue.main`), recognised by a
    /// dispatch-specific key. Under `dispatchMain()` on Linux the main queue is drained on
    /// a thread that is not the main thread, so this, not `isMainThread`, says whether a
    /// `queue: .main` delivery was on main.
    public var isMainQueue: Bool
    /// The channel acted on.
    public var channel: ChannelInfo?
    /// The registration acted on.
    public var registration: RegistrationInfo?
    /// For `.replaced`: the registration that was replaced.
    public var replaced: RegistrationInfo?
    /// For `.removeUnregistered` by owner: the owner named in the request.
    public var owner: ObjectRef?
    /// Why a registration was removed.
    public var removalReason: RemovalReason?
    /// Why a registration was skipped.
    public var skipReason: SkipReason?
    /// Where the action was requested (removals, posts), when known.
    public var callSite: CallSite?
    /// For `.changed`: the value before the change (present when known).
    public var old: EventValue?
    /// For `.changed`: the value after the change, or the notification's payload.
    public var new: EventValue?
    /// For `.changed`: whether this is the notification before the change.
    public var isPrior: Bool
    /// Dispatch depth on this thread: 0 for a change posted outside any callback,
    /// 1 for one posted from inside a callback, and so on. For deliveries, the depth of
    /// the change being delivered.
    public var depth: Int
    /// For `.changed`: live registrations of the channel when the change was dispatched.
    public var liveCount: Int
    /// For `.delivered`: how long the callback ran, in nanoseconds (wall clock).
    public var duration: UInt64?
    /// For `.delivered`: the CPU time the delivering thread spent in the callback, in
    /// nanoseconds (the thread CPU clock, `CLOCK_THREAD_CPUTIME_ID`); unlike `duration`, time
    /// the thread was preempted or waiting does not count. Read only around callbacks of
    /// 50 µs or more (it costs a system call): for a faster one it is `duration`, an
    /// upper bound.
    public var cpuDuration: UInt64?
    /// For `.delivered`: how many times the callback's thread gave up the CPU voluntarily
    /// while it ran (sleep, lock, I/O); `nil` where the system does not count it per
    /// thread (it does on Linux), and for callbacks under 50 µs (not counted: see
    /// `cpuDuration`).
    public var waits: UInt64?
    /// For `.delivered`: how long, of `duration`, the callback's thread was ready to run
    /// but waiting for a CPU (preempted by other work, or woken from a sleep or a lock and
    /// not yet scheduled), in nanoseconds: time the machine's load added, not the
    /// callback. From the scheduler's statistics (Linux `schedstat`); `nil` where they are
    /// not available and for callbacks under 50 µs (see `cpuDuration`). The journal does
    /// not store it yet.
    public var runQueueWait: UInt64?
    /// For scope events: the scope.
    public var scope: ScopeInfo?
    /// For `.changed`: the registry's number of this change, 1, 2, … per registry, never
    /// reused, increasing in the sink's order on one channel (prior notifications are
    /// changes of their own; changes on different channels posted at the same moment may
    /// reach the sink in either order, see `EventSink`). For `.delivered` and `.skipped`: the number of the change being delivered,
    /// also for deliveries queued to another queue, which may run long after later changes
    /// were posted. `nil` for deliveries of no change (an `initial` value, a delivery made
    /// by another dispatcher) and for every other kind.
    public var changeNumber: UInt64?

    /// Creates an event; fields not given are empty.
    public init(
        kind: Kind, time: UInt64, thread: UInt64, isMainThread: Bool,
        channel: ChannelInfo? = nil, registration: RegistrationInfo? = nil,
        replaced: RegistrationInfo? = nil, owner: ObjectRef? = nil,
        removalReason: RemovalReason? = nil, skipReason: SkipReason? = nil,
        callSite: CallSite? = nil, old: EventValue? = nil, new: EventValue? = nil,
        isPrior: Bool = false, depth: Int = 0, liveCount: Int = 0,
        duration: UInt64? = nil, scope: ScopeInfo? = nil, cpuDuration: UInt64? = nil, isMainQueue: Bool = false,
        changeNumber: UInt64? = nil
    ) {
        self.kind = kind
        self.time = time
        self.thread = thread
        self.isMainThread = isMainThread
        self.isMainQueue = isMainQueue
        self.cpuDuration = cpuDuration
        self.channel = channel
        self.registration = registration
        self.replaced = replaced
        self.owner = owner
        self.removalReason = removalReason
        self.skipReason = skipReason
        self.callSite = callSite
        self.old = old
        self.new = new
        self.isPrior = isPrior
        self.depth = depth
        self.liveCount = liveCount
        self.duration = duration
        self.scope = scope
        self.changeNumber = changeNumber
    }
}

/// Why a registration went away.
public enum RemovalReason: String, Sendable, Hashable, CaseIterable {
    /// Removed by an explicit call naming it (or its channel).
    case explicit
    /// Removed by a call that removed all of an owner's registrations.
    case ownerRemovedAll
    /// Its token was cancelled.
    case tokenCancelled
    /// Its token was released (deinitialised).
    case tokenReleased
    /// Its owner was found deallocated, at dispatch or `sweep()`.
    case ownerDeallocated
    /// The observed subject was found deallocated.
    case subjectDeallocated
    /// Another assignment took its single slot. Recorded by the `replaced` event, never by
    /// a `removed` one; appears as the reason of `cancelAfterAutoRemoval`.
    case replaced
    /// The consumer of a `changes()` sequence stopped: its loop exited, its task was
    /// cancelled, or the sequence was dropped.
    case streamEnded
}

/// Why a live registration was not called for a change.
public enum SkipReason: String, Sendable, Hashable, CaseIterable {
    /// `onlyWhenChanged` and the old value equals the new one.
    case unchanged
    /// The registration filters by sender and the change came from another one.
    case senderMismatch
    /// The delivery was queued (the registration asked for a `DispatchQueue`), but the
    /// registration was removed before the queue ran it.
    case removedBeforeDelivery
}

/// A channel as events name it.
public struct ChannelInfo: Sendable, Hashable, CustomStringConvertible {
    /// The registry's id for the channel.
    public var id: UInt64
    /// The observed object, or `ObjectRef.any` for named notifications.
    public var subject: ObjectRef
    /// The key path's name or the notification's name.
    public var key: String
    /// How the channel treats several registrations.
    public var policy: DeliveryPolicy

    /// Creates channel info from its parts.
    public init(id: UInt64, subject: ObjectRef, key: String, policy: DeliveryPolicy) {
        self.id = id
        self.subject = subject
        self.key = key
        self.policy = policy
    }

    /// `Player#1.isPlaying`, or `*.name` for notifications.
    public var description: String { "\(subject).\(key)" }
}

/// A registration as events name it. Immutable for the registration's lifetime.
public struct RegistrationInfo: Sendable, Hashable {
    /// The registry's id for the registration, unique and never reused.
    public var id: UInt64
    /// The id of the channel it is registered on.
    public var channelID: UInt64
    /// Its owner (held weakly by the registry).
    public var owner: ObjectRef
    /// Where it was registered.
    public var callSite: CallSite
    /// What it asked to be told.
    public var options: ObservationOptions
    /// The label of the queue it asked to be delivered on, if any.
    public var queueLabel: String?
    /// Whether it asked for (or declared it expects) delivery on the main thread.
    public var expectsMainThread: Bool
    /// For notification observers filtering by sender: the sender.
    public var sender: ObjectRef?
    /// The scope it was declared for, if any.
    public var scope: ScopeInfo?

    /// Creates registration info from its parts.
    public init(
        id: UInt64, channelID: UInt64, owner: ObjectRef, callSite: CallSite,
        options: ObservationOptions, queueLabel: String? = nil,
        expectsMainThread: Bool = false, sender: ObjectRef? = nil, scope: ScopeInfo? = nil
    ) {
        self.id = id
        self.channelID = channelID
        self.owner = owner
        self.callSite = callSite
        self.options = options
        self.queueLabel = queueLabel
        self.expectsMainThread = expectsMainThread
        self.sender = sender
        self.scope = scope
    }
}

/// A named stretch of an app's life (a screen being visible) that registrations can be
/// declared for, so that outliving it can be diagnosed.
public struct ScopeInfo: Sendable, Hashable {
    /// The registry's id for the scope.
    public var id: UInt64
    /// The name given when it began.
    public var name: String

    /// Creates scope info from its parts.
    public init(id: UInt64, name: String) {
        self.id = id
        self.name = name
    }
}

/// A value carried by an event: kept as the value, described on demand.
///
/// The sink decides whether and how to turn it into text (the journal truncates and
/// redacts), so the registry never formats values itself.
public struct EventValue: Sendable, Equatable, CustomStringConvertible {
    /// The value as posted.
    public let value: any Sendable

    /// Wraps a value.
    public init(_ value: any Sendable) { self.value = value }

    /// `String(describing:)` of the value.
    public var description: String { String(describing: value) }

    /// Two event values are equal when their descriptions are.
    public static func == (lhs: EventValue, rhs: EventValue) -> Bool {
        lhs.description == rhs.description
    }
}
