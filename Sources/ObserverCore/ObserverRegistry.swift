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
    /// `sink != nil`, read on every delivery: testing the optional existential itself
    /// copies it (a retain, a release and two witness calls) each time.
    let hasSink: Bool
    /// `sink` when it takes compact records (the journal's buffer): changes, deliveries
    /// and skips then go to it as `EventRecord`s, with no `ObserverEvent` built.
    let recordSink: (any RecordSink)?

    /// Creates a registry.
    /// - Parameter sink: receives every action as an event; `nil` (the default) costs nothing.
    public init(sink: (any EventSink)? = nil) {
        self.sink = sink
        self.hasSink = sink != nil
        self.recordSink = sink as? any RecordSink
    }

    // MARK: - Events

    /// Builds and hands over an event; only called when a sink is installed.
    @inline(__always)
    func emit(_ sink: any EventSink, _ kind: ObserverEvent.Kind, _ fill: (inout ObserverEvent) -> Void) {
        let context = ThreadContext.current
        var event = ObserverEvent(
            kind: kind, time: monotonicNanoseconds(), thread: context.number,
            isMainThread: context.isMain, depth: context.depth, isMainQueue: context.isOnMainQueue
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
            recordSink?.define(info)
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
        register(
            on: channel, owner: owner, payload: Payload.self, options: options, queue: queue,
            expectsMainThread: expectsMainThread, sender: sender, scope: scope, callSite: callSite
        ) { owner, payload in
            callback(unsafeDowncast(owner, to: Owner.self), payload.assumingMemoryBound(to: Payload.self).pointee)
        }
    }

    /// Registers `call` on `channel` for `owner`. `call` receives a pointer to a value of
    /// type `payload`; callers build it where `payload` is a concrete type when they can,
    /// so the delivery path runs no unspecialised generic code.
    func register(
        on channel: Channel, owner: AnyObject, payload: Any.Type, options: ObservationOptions, queue: DispatchQueue?,
        expectsMainThread: Bool, sender: AnyObject?, scope: ObservationScope?, callSite: CallSite,
        call: @escaping @Sendable (AnyObject, UnsafeRawPointer) -> Void
    ) -> RegistrationEntry {
        precondition(
            channel.payloadType == ObjectIdentifier(payload),
            "\(channel.info) is observed with payload \(payload), but it carries another type"
        )
        // Not `queue === DispatchQueue.main`: on Linux every `DispatchQueue.main` is a new
        // wrapper object, so identity never matches (see `MainQueue`).
        let expectsMain = expectsMainThread || queue.map(MainQueue.isMain) == true
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
            let entry = RegistrationEntry(
                info: info, owner: owner, sender: sender, queue: queue, channel: channel, call: call
            )
            var replaced: RegistrationEntry?
            if channel.info.policy == .singleSlot, let occupant = channel.occupant {
                if occupant.owner == nil {
                    removeLocked(occupant, reason: .ownerDeallocated, callSite: nil, state: &state, garbage: &garbage)
                } else {
                    retireLocked(occupant, reason: .replaced, state: &state, garbage: &garbage)
                    replaced = occupant
                }
            }
            channel.append(entry)
            state.registrations[info.id] = entry
            state.byOwner[ownerRef.id, default: []].insert(info.id)
            if let sink {
                recordSink?.define(info)
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
    func retireLocked(
        _ entry: RegistrationEntry, reason: RemovalReason, state: inout State, garbage: inout [RegistrationEntry]
    ) {
        entry.ending.record(reason)
        entry.removed.store(true, ordering: .releasing)
        // The garbage list keeps the entry alive until the lock is released.
        garbage.append(entry)
        entry.channel.remove(entry)
        state.registrations[entry.info.id] = nil
        // One hash lookup, not three: this runs for every removal.
        if let index = state.byOwner.index(forKey: entry.info.owner.id) {
            state.byOwner.values[index].remove(entry.info.id)
            if state.byOwner.values[index].isEmpty { state.byOwner.remove(at: index) }
        }
    }

    /// Removes a live entry and reports it. Under the lock. Returns false if it was
    /// already removed.
    @discardableResult
    func removeLocked(
        _ entry: RegistrationEntry, reason: RemovalReason, callSite: CallSite?,
        state: inout State, garbage: inout [RegistrationEntry]
    ) -> Bool {
        guard !entry.isRemoved else { return false }
        retireLocked(entry, reason: reason, state: &state, garbage: &garbage)
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
    /// otherwise (a token released after its registration already went) — unless
    /// `ending` says the registry removed it by itself: then the request is recorded as
    /// the no-op `cancelAfterAutoRemoval`.
    ///
    /// A token released while its owner is being deallocated (the weak owner already
    /// reads `nil` inside the owner's `deinit`) is recorded as `ownerDeallocated`.
    func remove(
        registrationID id: UInt64, info: RegistrationInfo?, reason: RemovalReason, callSite: CallSite?,
        reportMissing: Bool, ending: RegistrationEnding? = nil, channel: ChannelInfo? = nil
    ) {
        var garbage: [RegistrationEntry] = []
        state.withLock { state in
            if let entry = state.registrations[id] {
                let reason = reason == .tokenReleased && entry.owner == nil ? .ownerDeallocated : reason
                removeLocked(entry, reason: reason, callSite: callSite, state: &state, garbage: &garbage)
            } else if reportMissing, let ending, let info, ending.wasAutomatic {
                if let sink {
                    emit(sink, .cancelAfterAutoRemoval) {
                        $0.channel = channel
                        $0.registration = info
                        $0.removalReason = ending.reason
                        $0.callSite = callSite
                    }
                }
            } else if reportMissing, let callSite {
                reportUnregisteredLocked(channel: nil, registration: info, owner: info?.owner, callSite: callSite)
            }
        }
        withExtendedLifetime(garbage) {}  // released here, after the lock
    }

    /// Removes the registration with `id` (reason `ownerDeallocated`) if its owner is gone.
    /// If another assignment had already replaced it, records the owner's deallocation
    /// (`ownerGone`): otherwise a replaced owner would never be seen deallocated.
    func removeIfOwnerGone(registrationID id: UInt64, info: RegistrationInfo, ending: RegistrationEnding, channel: ChannelInfo) {
        var garbage: [RegistrationEntry] = []
        state.withLock { state in
            if let entry = state.registrations[id] {
                if entry.owner == nil {
                    removeLocked(entry, reason: .ownerDeallocated, callSite: nil, state: &state, garbage: &garbage)
                }
            } else if ending.reason == .replaced, ending.owner == nil, let sink {
                emit(sink, .ownerGone) {
                    $0.channel = channel
                    $0.registration = info
                }
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

    /// The state object holding `channel` for its subject (an `ObservableValue`, a
    /// `CallbackProperty`) is being deallocated. When that is because the subject died (its
    /// weak reference already reads `nil`: the subject owns the object, so its deallocation
    /// runs this), the channel's registrations are removed now, as `sweep()` would remove
    /// them (`subjectDeallocated`, or `ownerDeallocated` for an owner that is gone too),
    /// and the channel is forgotten. Without this a dead subject nobody posts on again is
    /// only seen by the sweep at the end of the session, after its observers were gone.
    ///
    /// Safe from any thread; like a token's release, never called under the registry's
    /// lock (entries and channels are released after it).
    func subjectStateReleased(_ channel: Channel) {
        guard channel.hasSubject, channel.subject == nil else { return }
        var garbage: [RegistrationEntry] = []
        var dropped: Channel?
        state.withLock { state in
            for entry in channel.liveEntries {
                let reason: RemovalReason = entry.owner == nil ? .ownerDeallocated : .subjectDeallocated
                removeLocked(entry, reason: reason, callSite: nil, state: &state, garbage: &garbage)
            }
            let key = ChannelKey(subject: channel.info.subject.id, key: channel.info.key)
            if state.channels[key] === channel {
                state.channels[key] = nil
                dropped = channel
            }
            garbage.append(contentsOf: channel.drain())
        }
        withExtendedLifetime(garbage) {}  // released here, after the lock
        withExtendedLifetime(dropped) {}
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
        sender: AnyObject?, callSite: CallSite?, values: (Payload) -> (EventValue?, EventValue?)
    ) {
        dispatch(
            on: channel, isPrior: isPrior, sender: sender, callSite: callSite,
            produce: { (payload, unchanged) }, values: values
        )
    }

    /// Delivers what `produce` makes to a snapshot of the channel's live registrations.
    ///
    /// With a sink, `produce` runs under the registry's lock, in the same critical
    /// section as the `changed` event: a value set from several threads at once then
    /// records its changes in exactly the order its old → new chain happened.
    /// - Parameters:
    ///   - produce: makes the payload and says whether old equals new
    ///     (`onlyWhenChanged` registrations are skipped then). Must not call the registry.
    ///   - isPrior: a notification before the change; only `prior` registrations get it.
    ///   - sender: the posting object, matched against registrations that filter by sender.
    ///   - values: the old and new values for the event, computed only with a sink.
    func dispatch<Payload: Sendable>(
        on channel: Channel, isPrior: Bool, sender: AnyObject?, callSite: CallSite?,
        produce: () -> (Payload, Bool), values: (Payload) -> (EventValue?, EventValue?)
    ) {
        if isPrior && channel.priorCount.load(ordering: .relaxed) == 0 { return }
        guard channel.payloadType == ObjectIdentifier(Payload.self) else {
            _ = produce()
            return
        }
        let snapshot: ContiguousArray<RegistrationEntry?>
        let payload: Payload
        let unchanged: Bool
        var changeDepth = 0
        // With a sink: the thread's context, and whether it is on the main queue, asked
        // once for the change and all its deliveries.
        var context: ThreadContext?
        var onMainQueue: UInt8 = 0
        if let sink {
            (snapshot, payload, unchanged) = state.withLock { _ in
                let (payload, unchanged) = produce()
                let (old, new) = values(payload)
                if let recordSink {
                    let thread = ThreadContext.current
                    context = thread
                    (changeDepth, onMainQueue) = recordChanged(
                        recordSink, context: thread, channel: channel, old: old, new: new, isPrior: isPrior,
                        callSite: callSite
                    )
                } else {
                    emit(sink, .changed) {
                        $0.channel = channel.info
                        $0.old = old
                        $0.new = new
                        $0.isPrior = isPrior
                        $0.liveCount = channel.liveCount
                        $0.callSite = callSite
                        changeDepth = $0.depth
                    }
                }
                return (channel.entries, payload, unchanged)
            }
        } else {
            (payload, unchanged) = produce()
            snapshot = state.withLock { _ in channel.entries }
        }
        let depth = changeDepth
        let savedMainQueue = context?.mainQueue ?? 0
        context?.mainQueue = onMainQueue
        defer { context?.mainQueue = savedMainQueue }
        let dead = withUnsafePointer(to: payload) { pointer in
            deliver(snapshot, payload: UnsafeRawPointer(pointer), unchanged: unchanged, isPrior: isPrior, sender: sender, depth: depth) { entry in
                // A queued delivery needs its own copy of the payload.
                entry.queue?.async { [self] in
                    guard let owner = self.ownerForQueuedDelivery(entry, depth: depth) else { return }
                    withUnsafePointer(to: payload) { pointer in
                        self.invoke(entry, owner: owner, payload: UnsafeRawPointer(pointer), depth: depth)
                    }
                }
            }
        }
        if !dead.isEmpty { removeDeallocated(dead) }
    }

    /// The owner a queued delivery may still be made to, or `nil` if the registration
    /// went (or its owner died) while the delivery waited on its queue; either is
    /// recorded, so a journal never shows a change silently lost in a queue.
    func ownerForQueuedDelivery(_ entry: RegistrationEntry, depth: Int) -> AnyObject? {
        if entry.isRemoved {
            if hasSink { reportSkip(entry, .removedBeforeDelivery, depth: depth) }
            return nil
        }
        guard let owner = entry.owner else {
            removeDeallocated([entry])
            return nil
        }
        return owner
    }

    /// The delivery loop: calls every live entry of `snapshot` that wants this change,
    /// in order, and returns the entries found with a deallocated owner.
    ///
    /// Not generic, so it is compiled once, fully optimised: the payload is passed by
    /// pointer and only each entry's `call` knows its type.
    func deliver(
        _ snapshot: ContiguousArray<RegistrationEntry?>, payload: UnsafeRawPointer, unchanged: Bool, isPrior: Bool,
        sender: AnyObject?, depth: Int, enqueue: (RegistrationEntry) -> Void
    ) -> [RegistrationEntry] {
        var dead: [RegistrationEntry] = []
        // The snapshot keeps every entry alive for the whole loop, so entries are read
        // unretained: a retain and a release per delivery is a tenth of its cost.
        snapshot.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: Unmanaged<RegistrationEntry>?.self) { entries in
                for slot in entries {
                    guard let slot else { continue }
                    slot._withUnsafeGuaranteedRef { entry in
                        deliver(
                            to: entry, payload: payload, unchanged: unchanged, isPrior: isPrior, sender: sender,
                            depth: depth, dead: &dead, enqueue: enqueue
                        )
                    }
                }
            }
        }
        return dead
    }

    /// One step of the delivery loop.
    @inline(__always)
    func deliver(
        to entry: RegistrationEntry, payload: UnsafeRawPointer, unchanged: Bool, isPrior: Bool, sender: AnyObject?,
        depth: Int, dead: inout [RegistrationEntry], enqueue: (RegistrationEntry) -> Void
    ) {
        if entry.isRemoved { return }
        let options = entry.options
        if isPrior && !options.contains(.prior) { return }
        guard let owner = entry.owner else {
            dead.append(entry)
            return
        }
        if unchanged && options.contains(.onlyWhenChanged) {
            if hasSink { reportSkip(entry, .unchanged, depth: depth) }
            return
        }
        if entry.filtersBySender && (sender == nil || entry.sender !== sender) {
            if hasSink { reportSkip(entry, .senderMismatch, depth: depth) }
            return
        }
        if entry.queue != nil {
            enqueue(entry)
        } else {
            invoke(entry, owner: owner, payload: payload, depth: depth)
        }
    }

    /// Calls one registration; with a sink, also times it and reports the delivery.
    @inline(__always)
    func invoke(_ entry: RegistrationEntry, owner: AnyObject, payload: UnsafeRawPointer, depth: Int) {
        if hasSink {
            invokeRecorded(entry, owner: owner, payload: payload, depth: depth, initial: nil)
        } else {
            entry.call(owner, payload)
        }
    }

    /// `invoke` with a sink. Kept out of line so the no-sink path never touches `sink`
    /// or an `EventValue`: both are existentials, costly to copy for every delivery.
    @inline(never)
    func invokeRecorded(_ entry: RegistrationEntry, owner: AnyObject, payload: UnsafeRawPointer, depth: Int, initial: EventValue?) {
        guard let sink else {
            entry.call(owner, payload)
            return
        }
        let context = ThreadContext.current
        let savedDepth = context.depth
        let savedMainQueue = context.mainQueue
        let onMainQueue = context.isOnMainQueue
        context.depth = depth + 1
        // The callback's code may change queues (`DispatchQueue.main.sync`): it asks anew.
        context.mainQueue = 0
        let clock = CallbackClock(context)
        entry.call(owner, payload)
        let (end, duration, cpu, waits) = clock.finish(context)
        context.depth = savedDepth
        context.mainQueue = savedMainQueue
        if let recordSink, initial == nil {
            recordDelivered(
                recordSink, context: context, entry: entry, depth: depth, onMainQueue: onMainQueue, end: end,
                duration: duration, cpu: cpu, waits: waits
            )
            return
        }
        // The most frequent event: built in one initialisation (filling a default event
        // field by field copied it several times), stamped with the call's end.
        var event = ObserverEvent(
            kind: .delivered, time: end, thread: context.number, isMainThread: context.isMain,
            channel: entry.channel.info, registration: entry.info, new: initial, depth: depth,
            duration: duration, cpuDuration: cpu, isMainQueue: onMainQueue
        )
        event.waits = waits
        sink.record(event)
    }

    @inline(never)
    func reportSkip(_ entry: RegistrationEntry, _ reason: SkipReason, depth: Int) {
        guard let sink else { return }
        if let recordSink {
            recordSkipped(recordSink, entry: entry, reason: reason, depth: depth)
            return
        }
        emit(sink, .skipped) {
            $0.channel = entry.channel.info
            $0.registration = entry.info
            $0.skipReason = reason
            $0.depth = depth
        }
    }

    /// Delivers the current value to one new registration (the `initial` option).
    func deliverInitial<Payload: Sendable>(_ entry: RegistrationEntry, payload: Payload, value: () -> EventValue?) {
        let initial = sink == nil ? nil : value()
        if let queue = entry.queue {
            queue.async { [self] in
                guard let owner = self.ownerForQueuedDelivery(entry, depth: 0) else { return }
                withUnsafePointer(to: payload) { pointer in
                    self.invokeRecorded(entry, owner: owner, payload: UnsafeRawPointer(pointer), depth: 0, initial: initial)
                }
            }
        } else if let owner = entry.owner {
            // The thread's context is only event work: untouched without a sink.
            let depth = sink == nil ? 0 : ThreadContext.current.depth
            withUnsafePointer(to: payload) { pointer in
                invokeRecorded(entry, owner: owner, payload: UnsafeRawPointer(pointer), depth: depth, initial: initial)
            }
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
            // A subject may die on another thread at any moment, even under the lock (weak
            // references do not take it). So whether a channel is dead is read once, here,
            // and both passes below use that answer: a channel found alive while its
            // registrations were checked and dead when channels were dropped was once
            // drained with its registrations still listed, and the next cancel trapped on
            // the stale index.
            var deadSubjectChannels: Set<ObjectIdentifier> = []
            for (key, channel) in state.channels where channel.hasSubject && channel.subject == nil {
                deadSubjectChannels.insert(ObjectIdentifier(channel))
                state.channels[key] = nil
                deadChannels.append(channel)
            }
            // Only the dead are sorted (by id, so events come in registration order).
            var dead: [(entry: RegistrationEntry, reason: RemovalReason)] = []
            for entry in state.registrations.values {
                if entry.owner == nil {
                    dead.append((entry, .ownerDeallocated))
                } else if entry.channel.hasSubject
                    && (deadSubjectChannels.contains(ObjectIdentifier(entry.channel)) || entry.channel.subject == nil)
                {
                    dead.append((entry, .subjectDeallocated))
                }
            }
            dead.sort { $0.entry.info.id < $1.entry.info.id }
            for (entry, reason) in dead {
                removeLocked(entry, reason: reason, callSite: nil, state: &state, garbage: &garbage)
            }
            // Every registration of a dropped channel was removed above, so nothing listed
            // still points into the entries drained here.
            for channel in deadChannels {
                garbage.append(contentsOf: channel.drain())
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
