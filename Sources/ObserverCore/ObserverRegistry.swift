import Dispatch
import Synchronization

/// A one-to-many observer registry: channels of (subject, key), registrations that hold
/// their owner weakly and their callback strongly, removal with the reason kept.
///
/// Thread-safe: every method may be called from any thread. A dispatch takes a snapshot
/// of the channel's registrations under the lock and calls them outside it, so a callback
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

    /// Creates a registry.
    /// - Parameter sink: receives every action as an event; `nil` (the default) costs nothing.
    public init(sink: (any EventSink)? = nil) {
        self.sink = sink
    }

    // MARK: - Events

    /// Builds and hands over an event; only called when a sink is installed.
    @inline(__always)
    func emit(_ sink: any EventSink, _ kind: ObserverEvent.Kind, _ fill: (inout ObserverEvent) -> Void) {
        let context = ThreadContext.current
        var event = ObserverEvent(
            kind: kind, time: monotonicNanoseconds(), thread: context.number,
            isMainThread: context.isMain, depth: context.depth
        )
        fill(&event)
        sink.record(event)
    }

    // MARK: - Channels

    /// The channel for (subject, key), created with `policy` if new. A channel keeps the
    /// policy it was created with.
    func channel<Payload>(
        subject: AnyObject?, key: String, policy: DeliveryPolicy, payload: Payload.Type
    ) -> Channel {
        state.withLock { state in
            let subjectRef = subject.map { state.identities.ref(for: $0) } ?? .any
            let channelKey = ChannelKey(subject: subjectRef.id, key: key)
            if let existing = state.channels[channelKey], existing.subject != nil || !existing.hasSubject {
                return existing
            }
            let info = ChannelInfo(id: state.nextChannelID, subject: subjectRef, key: key, policy: policy)
            state.nextChannelID += 1
            let channel = Channel(info: info, subject: subject, payloadType: ObjectIdentifier(Payload.self))
            state.channels[channelKey] = channel
            return channel
        }
    }

    /// The existing channel for (subject, key), if any.
    func existingChannel(subject: AnyObject?, key: String) -> Channel? {
        state.withLock { state in
            let subjectRef = subject.map { state.identities.ref(for: $0) } ?? .any
            return state.channels[ChannelKey(subject: subjectRef.id, key: key)]
        }
    }

    // MARK: - Registering

    /// Registers `callback` on `channel` for `owner`.
    func register<Owner: AnyObject, Payload>(
        on channel: Channel, owner: Owner, options: ObservationOptions, queue: DispatchQueue?,
        expectsMainThread: Bool, sender: AnyObject?, scope: ObservationScope?, callSite: CallSite,
        callback: @escaping @Sendable (Owner, Payload) -> Void
    ) -> RegistrationEntry {
        precondition(
            channel.payloadType == ObjectIdentifier(Payload.self),
            "\(channel.info) is observed with payload \(Payload.self), but it carries another type"
        )
        // Built outside the lock: only the insertion happens under it.
        let erased: (AnyObject, Payload) -> Void = { owner, payload in
            callback(unsafeDowncast(owner, to: Owner.self), payload)
        }
        // Not `queue === DispatchQueue.main`: on Linux every `DispatchQueue.main` is a new
        // wrapper object, so identity never matches; the main queue's label is unique.
        let expectsMain = expectsMainThread || queue?.label == DispatchQueue.main.label
        var garbage: [RegistrationEntry] = []
        let entry: RegistrationEntry = state.withLock { state in
            let ownerRef = state.identities.ref(for: owner)
            let senderRef = sender.map { state.identities.ref(for: $0) }
            let info = RegistrationInfo(
                id: state.nextRegistrationID, channelID: channel.info.id, owner: ownerRef,
                callSite: callSite, options: options, queueLabel: queue?.label,
                expectsMainThread: expectsMain, sender: senderRef, scope: scope?.info
            )
            state.nextRegistrationID += 1
            let entry = TypedRegistration<Payload>(
                info: info, owner: owner, sender: sender, queue: queue, channel: channel, callback: erased
            )
            var replaced: RegistrationEntry?
            if channel.info.policy == .singleSlot, let occupant = channel.occupant {
                if occupant.owner == nil {
                    removeLocked(occupant, reason: .ownerDeallocated, callSite: nil, state: &state, garbage: &garbage)
                } else {
                    retireLocked(occupant, state: &state, garbage: &garbage)
                    replaced = occupant
                }
            }
            channel.append(entry)
            state.registrations[info.id] = entry
            state.byOwner[ownerRef.id, default: []].insert(info.id)
            if let sink {
                if let replaced {
                    emit(sink, .replaced) {
                        $0.channel = channel.info
                        $0.registration = info
                        $0.replaced = replaced.info
                    }
                } else {
                    emit(sink, .registered) {
                        $0.channel = channel.info
                        $0.registration = info
                    }
                }
            }
            return entry
        }
        withExtendedLifetime(garbage) {}  // released here, after the lock
        return entry
    }

    // MARK: - Removing

    /// Marks `entry` removed and forgets it, without an event (shared by removal and
    /// replacement). Under the lock.
    func retireLocked(_ entry: RegistrationEntry, state: inout State, garbage: inout [RegistrationEntry]) {
        entry.removed.store(true, ordering: .releasing)
        // The garbage list keeps the entry alive until the lock is released.
        garbage.append(entry)
        entry.channel.remove(entry)
        state.registrations[entry.info.id] = nil
        let ownerID = entry.info.owner.id
        state.byOwner[ownerID]?.remove(entry.info.id)
        if state.byOwner[ownerID]?.isEmpty == true { state.byOwner[ownerID] = nil }
    }

    /// Removes a live entry and reports it. Under the lock. Returns false if it was
    /// already removed.
    @discardableResult
    func removeLocked(
        _ entry: RegistrationEntry, reason: RemovalReason, callSite: CallSite?,
        state: inout State, garbage: inout [RegistrationEntry]
    ) -> Bool {
        guard !entry.isRemoved else { return false }
        retireLocked(entry, state: &state, garbage: &garbage)
        if let sink {
            emit(sink, .removed) {
                $0.channel = entry.channel.info
                $0.registration = entry.info
                $0.removalReason = reason
                $0.callSite = callSite
            }
        }
        return true
    }

    /// Reports a removal request that matched nothing. Under the lock.
    func reportUnregisteredLocked(
        channel: ChannelInfo?, registration: RegistrationInfo?, owner: ObjectRef?, callSite: CallSite
    ) {
        guard let sink else { return }
        emit(sink, .removeUnregistered) {
            $0.channel = channel
            $0.registration = registration
            $0.owner = owner
            $0.callSite = callSite
        }
    }

    /// Removes the registration with `id`. A missing one is reported as
    /// `removeUnregistered` when `reportMissing` (an explicit request), and ignored
    /// otherwise (a token released after its registration already went).
    func remove(
        registrationID id: UInt64, info: RegistrationInfo?, reason: RemovalReason, callSite: CallSite?,
        reportMissing: Bool
    ) {
        var garbage: [RegistrationEntry] = []
        state.withLock { state in
            if let entry = state.registrations[id] {
                removeLocked(entry, reason: reason, callSite: callSite, state: &state, garbage: &garbage)
            } else if reportMissing, let callSite {
                reportUnregisteredLocked(channel: nil, registration: info, owner: info?.owner, callSite: callSite)
            }
        }
        withExtendedLifetime(garbage) {}  // released here, after the lock
    }

    /// Removes every registration of `owner`, or only those on `knownChannel` or the
    /// channel of (`subject`, `key`) when given.
    func removeObservers(
        owner: AnyObject, subject: AnyObject?, key: String?, knownChannel: Channel? = nil,
        reason: RemovalReason, callSite: CallSite
    ) {
        var garbage: [RegistrationEntry] = []
        state.withLock { state in
            let ownerRef = state.identities.ref(for: owner)
            var channel = knownChannel
            if channel == nil, let key {
                let subjectRef = subject.map { state.identities.ref(for: $0) } ?? .any
                channel = state.channels[ChannelKey(subject: subjectRef.id, key: key)]
            }
            let ids = (state.byOwner[ownerRef.id] ?? []).sorted()
            var matched = 0
            for id in ids {
                guard let entry = state.registrations[id] else { continue }
                if key != nil && entry.channel !== channel { continue }
                if removeLocked(entry, reason: reason, callSite: callSite, state: &state, garbage: &garbage) {
                    matched += 1
                }
            }
            if matched == 0 {
                var channelInfo = channel?.info
                if channelInfo == nil, let key {
                    let subjectRef = subject.map { state.identities.ref(for: $0) } ?? .any
                    channelInfo = ChannelInfo(id: 0, subject: subjectRef, key: key, policy: .multicast)
                }
                reportUnregisteredLocked(channel: channelInfo, registration: nil, owner: ownerRef, callSite: callSite)
            }
        }
        withExtendedLifetime(garbage) {}  // released here, after the lock
    }

    /// Removes every registration of a channel.
    func removeAll(on channel: Channel, callSite: CallSite) {
        var garbage: [RegistrationEntry] = []
        state.withLock { state in
            var matched = 0
            for entry in channel.liveEntries {
                if removeLocked(entry, reason: .explicit, callSite: callSite, state: &state, garbage: &garbage) {
                    matched += 1
                }
            }
            if matched == 0 {
                reportUnregisteredLocked(channel: channel.info, registration: nil, owner: nil, callSite: callSite)
            }
        }
        withExtendedLifetime(garbage) {}  // released here, after the lock
    }

    /// Removes entries found with a deallocated owner during a dispatch.
    func removeDeallocated(_ entries: [RegistrationEntry]) {
        var garbage: [RegistrationEntry] = []
        state.withLock { state in
            for entry in entries {
                removeLocked(entry, reason: .ownerDeallocated, callSite: nil, state: &state, garbage: &garbage)
            }
        }
        withExtendedLifetime(garbage) {}  // released here, after the lock
    }

    // MARK: - Dispatching

    /// Delivers `payload` to a snapshot of the channel's live registrations.
    ///
    /// - Parameters:
    ///   - unchanged: old equals new; `onlyWhenChanged` registrations are skipped.
    ///   - isPrior: a notification before the change; only `prior` registrations get it.
    ///   - sender: the posting object, matched against registrations that filter by sender.
    ///   - values: the old and new values for the event, computed only with a sink.
    func dispatch<Payload: Sendable>(
        on channel: Channel, payload: Payload, unchanged: Bool, isPrior: Bool,
        sender: AnyObject?, callSite: CallSite?, values: () -> (EventValue?, EventValue?)
    ) {
        if isPrior && channel.priorCount.load(ordering: .relaxed) == 0 { return }
        guard channel.payloadType == ObjectIdentifier(Payload.self) else { return }
        let snapshot: ContiguousArray<RegistrationEntry?>
        var changeDepth = 0
        if let sink {
            let (old, new) = values()
            snapshot = state.withLock { _ in
                emit(sink, .changed) {
                    $0.channel = channel.info
                    $0.old = old
                    $0.new = new
                    $0.isPrior = isPrior
                    $0.liveCount = channel.liveCount
                    $0.callSite = callSite
                    changeDepth = $0.depth
                }
                return channel.entries
            }
        } else {
            snapshot = state.withLock { _ in channel.entries }
        }
        let depth = changeDepth
        var dead: [RegistrationEntry] = []
        for case let entry? in snapshot {
            if entry.isRemoved { continue }
            let options = entry.info.options
            if isPrior && !options.contains(.prior) { continue }
            guard let owner = entry.owner else {
                dead.append(entry)
                continue
            }
            if let sink {
                if unchanged && options.contains(.onlyWhenChanged) {
                    reportSkip(sink, entry, .unchanged, depth: depth)
                    continue
                }
                if entry.info.sender != nil && (sender == nil || entry.sender !== sender) {
                    reportSkip(sink, entry, .senderMismatch, depth: depth)
                    continue
                }
            } else {
                if unchanged && options.contains(.onlyWhenChanged) { continue }
                if entry.info.sender != nil && (sender == nil || entry.sender !== sender) { continue }
            }
            let typed = unsafeDowncast(entry, to: TypedRegistration<Payload>.self)
            if let queue = entry.queue {
                queue.async { [self] in
                    guard !typed.isRemoved, let owner = typed.owner else { return }
                    self.invoke(typed, owner: owner, payload: payload, depth: depth, initial: nil)
                }
            } else {
                invoke(typed, owner: owner, payload: payload, depth: depth, initial: nil)
            }
        }
        if !dead.isEmpty { removeDeallocated(dead) }
    }

    /// Calls one registration, timing it and reporting the delivery when a sink is set.
    @inline(__always)
    func invoke<Payload>(
        _ entry: TypedRegistration<Payload>, owner: AnyObject, payload: Payload, depth: Int,
        initial: EventValue?
    ) {
        guard let sink else {
            entry.callback(owner, payload)
            return
        }
        let context = ThreadContext.current
        let savedDepth = context.depth
        context.depth = depth + 1
        let start = monotonicNanoseconds()
        entry.callback(owner, payload)
        let duration = monotonicNanoseconds() &- start
        context.depth = savedDepth
        emit(sink, .delivered) {
            $0.channel = entry.channel.info
            $0.registration = entry.info
            $0.duration = duration
            $0.depth = depth
            $0.new = initial
        }
    }

    func reportSkip(_ sink: any EventSink, _ entry: RegistrationEntry, _ reason: SkipReason, depth: Int) {
        emit(sink, .skipped) {
            $0.channel = entry.channel.info
            $0.registration = entry.info
            $0.skipReason = reason
            $0.depth = depth
        }
    }

    /// Delivers the current value to one new registration (the `initial` option).
    func deliverInitial<Payload: Sendable>(_ entry: RegistrationEntry, payload: Payload, value: () -> EventValue?) {
        let typed = unsafeDowncast(entry, to: TypedRegistration<Payload>.self)
        let initial = sink == nil ? nil : value()
        if let queue = entry.queue {
            queue.async { [self] in
                guard !typed.isRemoved, let owner = typed.owner else { return }
                self.invoke(typed, owner: owner, payload: payload, depth: 0, initial: initial)
            }
        } else if let owner = typed.owner {
            // The thread's context is only event work: untouched without a sink.
            let depth = sink == nil ? 0 : ThreadContext.current.depth
            invoke(typed, owner: owner, payload: payload, depth: depth, initial: initial)
        }
    }

    // MARK: - Public maintenance

    /// Removes every registration whose owner or subject has been deallocated (reason
    /// `ownerDeallocated` or `subjectDeallocated`), and forgets channels and identities
    /// of deallocated objects. Dispatch does this lazily per channel; call `sweep()` to
    /// do it everywhere now (the journal does before it ends a session).
    public func sweep() {
        var garbage: [RegistrationEntry] = []
        var deadChannels: [Channel] = []
        state.withLock { state in
            // Only the dead are sorted (by id, so events come in registration order).
            var dead: [(entry: RegistrationEntry, reason: RemovalReason)] = []
            for entry in state.registrations.values {
                if entry.owner == nil {
                    dead.append((entry, .ownerDeallocated))
                } else if entry.channel.hasSubject && entry.channel.subject == nil {
                    dead.append((entry, .subjectDeallocated))
                }
            }
            dead.sort { $0.entry.info.id < $1.entry.info.id }
            for (entry, reason) in dead {
                removeLocked(entry, reason: reason, callSite: nil, state: &state, garbage: &garbage)
            }
            for (key, channel) in state.channels where channel.hasSubject && channel.subject == nil {
                state.channels[key] = nil
                garbage.append(contentsOf: channel.drain())
                deadChannels.append(channel)
            }
            state.identities.prune()
        }
        withExtendedLifetime(garbage) {}  // released here, after the lock
        withExtendedLifetime(deadChannels) {}
    }

    /// Removes every registration of `owner` (reason `ownerRemovedAll`). If it has none,
    /// the request is reported as `removeUnregistered`.
    /// - Parameters:
    ///   - owner: the owner whose registrations go.
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    public func removeObservers(
        owner: AnyObject, file: String = #fileID, line: Int = #line, function: String = #function
    ) {
        removeObservers(
            owner: owner, subject: nil, key: nil, reason: .ownerRemovedAll,
            callSite: CallSite(file: file, line: line, function: function)
        )
    }

    /// Removes `owner`'s registrations on the channel (`subject`, `key`) (reason
    /// `explicit`). If there are none, the request is reported as `removeUnregistered`:
    /// removing twice, or removing a misspelled key, is a bug worth seeing.
    /// - Parameters:
    ///   - owner: the owner whose registrations go.
    ///   - subject: the observed object.
    ///   - key: the observed key.
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    public func removeObservers(
        owner: AnyObject, subject: AnyObject, key: String,
        file: String = #fileID, line: Int = #line, function: String = #function
    ) {
        removeObservers(
            owner: owner, subject: subject, key: key, reason: .explicit,
            callSite: CallSite(file: file, line: line, function: function)
        )
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
