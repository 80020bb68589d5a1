import Dispatch

// Dispatching: a change is numbered and recorded, then delivered to a snapshot of its
// channel's registrations outside the lock (the loop itself is in
// ObserverRegistry+DeliveryLoop.swift).

extension ObserverRegistry {
    /// Delivers `payload` to a snapshot of the channel's live registrations.
    ///
    /// - Parameters:
    ///   - unchanged: old equals new; `onlyWhenChanged` registrations are skipped.
    ///   - isPrior: a notification before the change; only `prior` registrations get it.
    ///   - sender: the posting object, matched against registrations that filter by sender.
    ///   - values: the old and new values for the event, computed only with a sink.
    func dispatch<Payload: Sendable>(
        on channel: Channel, payload: Payload, unchanged: Bool, isPrior: Bool,
        sender: AnyObject?, callSite: CallSite?, values: (Payload) -> ChangeValues
    ) {
        ErasedPayload.lending(payload) { erased in
            post(
                on: channel, isPrior: isPrior, sender: sender, callSite: callSite, payload: erased,
                produce: { unchanged }, values: { values(payload) },
                copy: { PayloadCopy(payload) }
            )
        }
    }

    /// Delivers the payload at `payload` to a snapshot of the channel's live registrations.
    ///
    /// Not generic, so callers that know the payload's type (`ObservableValue.set`, inlined
    /// into the app where its value type is concrete) run no unspecialised generic code: a
    /// generic post paid a dozen metadata lookups and value-witness copies per change.
    ///
    /// With a sink, `produce` runs under the registry's lock, in the same critical
    /// section as the `changed` event: a value set from several threads at once then
    /// records its changes in exactly the order its old → new chain happened.
    /// - Parameters:
    ///   - payload: the payload, of the channel's payload type; `produce` may write it
    ///     (through the slot its maker holds), and it is read only after `produce` ran.
    ///   - produce: makes the payload and says whether old equals new
    ///     (`onlyWhenChanged` registrations are skipped then). Must not call the registry.
    ///   - isPrior: a notification before the change; only `prior` registrations get it.
    ///   - sender: the posting object, matched against registrations that filter by sender.
    ///   - values: the old and new values for the event, computed only with a sink.
    ///   - copy: a copy of the produced payload, made only for deliveries queued to
    ///     another queue (once per post, shared by its queued deliveries).
    @usableFromInline
    func post(
        on channel: Channel, isPrior: Bool, sender: AnyObject?, callSite: CallSite?, payload: ErasedPayload,
        produce: () -> Bool, values: () -> ChangeValues, copy: () -> PayloadCopy
    ) {
        if isPrior && channel.priorCount.load(ordering: .relaxed) == 0 { return }
        let snapshot: ContiguousArray<RegistrationEntry?>
        let unchanged: Bool
        let depth: Int
        // 0 (no number) without a sink: nothing is recorded then.
        let change: UInt64
        // The thread's context, with a sink: looked up once per post (a thread-specific
        // lookup and a lazy-global check each time).
        let context: ThreadContext?
        // `hasSink`, not `if let sink`: copying the optional existential would be paid
        // on every post, even without a sink.
        if hasSink {
            (snapshot, unchanged, depth, change, context) = recordChange(
                on: channel, isPrior: isPrior, callSite: callSite, produce: produce, values: values
            )
        } else {
            unchanged = produce()
            // The channel's lock only: posts on different channels do not serialise.
            snapshot = channel.snapshot()
            depth = 0
            change = 0
            context = nil
        }
        let dead = deliver(
            snapshot, payload: payload, unchanged: unchanged, isPrior: isPrior, sender: sender,
            depth: depth, change: change, context: context
        ) { entry in
            // A queued delivery needs its own copy of the payload, and carries the
            // change's number: by the time it runs, later changes may have been posted.
            let held = copy()
            entry.queue?.async { [self] in
                guard let owner = self.ownerForQueuedDelivery(entry, depth: depth, change: change) else { return }
                held.withPayload { payload in
                    self.invoke(entry, owner: owner, payload: payload, depth: depth, change: change)
                }
            }
        }
        // The loop is over: its main-queue answer must not serve a later delivery of this
        // change from a queue (see `ThreadContext.queueChange`).
        context?.queueChange = 0
        if !dead.isEmpty { removeDeallocated(dead) }
    }

    /// With a sink: produces the change and records it (numbered) in one critical section
    /// of the channel's lock (not the registry's: posts on other channels go on meanwhile),
    /// and takes the snapshot to deliver to. Returns the snapshot, whether old equals new,
    /// the change's depth, its number and the thread's context.
    @inline(never)
    func recordChange(
        on channel: Channel, isPrior: Bool, callSite: CallSite?,
        produce: () -> Bool, values: () -> ChangeValues
    ) -> (ContiguousArray<RegistrationEntry?>, Bool, Int, UInt64, ThreadContext) {
        // The record sink first: binding `sink` copies an optional `any EventSink` (through
        // its value witnesses), a class reference is a retain.
        if hasRecordSink {
            return channel.exclusive {
                let unchanged = produce()
                let number = takeChangeNumber()
                let context = ThreadContext.current
                let stamp = recordChanged(
                    context: context, channel: channel, values: values(), isPrior: isPrior,
                    callSite: callSite, change: number
                )
                // The loop that follows on this thread starts from the record's answers;
                // `post` clears them when it ends.
                context.queueChange = number
                context.onMainQueue = stamp.onMainQueue
                context.loopTime = stamp.time
                return (channel.entries, unchanged, stamp.depth, number, context)
            }
        }
        guard let sink else { preconditionFailure("recordChange without a sink") }
        return channel.exclusive {
            let unchanged = produce()
            let values = values()
            let number = takeChangeNumber()
            var depth = 0
            emit(sink, .changed) {
                $0.channel = channel.info
                $0.old = values.old
                $0.new = values.new
                $0.isPrior = isPrior
                $0.liveCount = channel.liveCount
                $0.callSite = callSite
                $0.changeNumber = number
                depth = $0.depth
            }
            return (channel.entries, unchanged, depth, number, ThreadContext.current)
        }
    }

    /// The owner a queued delivery may still be made to, or `nil` if the registration
    /// went (or its owner died) while the delivery waited on its queue; either is
    /// recorded, so a journal never shows a change silently lost in a queue.
    func ownerForQueuedDelivery(_ entry: RegistrationEntry, depth: Int, change: UInt64) -> AnyObject? {
        if entry.isRemoved {
            if hasSink { reportSkip(entry, .removedBeforeDelivery, depth: depth, change: change) }
            return nil
        }
        guard let owner = entry.owner else {
            removeDeallocated([entry])
            return nil
        }
        return owner
    }

    /// Calls one registration; with a sink, also times it and reports the delivery.
    /// `context`: the calling thread's, if the caller has it (`nil`: looked up).
    func invoke(
        _ entry: RegistrationEntry, owner: AnyObject, payload: ErasedPayload, depth: Int, change: UInt64,
        context: ThreadContext? = nil
    ) {
        if hasSink {
            invokeRecorded(entry, owner: owner, payload: payload, depth: depth, change: change, context: context)
        } else {
            entry.call(owner, payload)
        }
    }

    /// `invoke` with a sink. Kept out of line so the no-sink path never touches `sink`
    /// or an `EventValue`: both are existentials, costly to copy for every delivery.
    /// `change` is the number of the change delivered, 0 for none; `context` the calling
    /// thread's, if the caller has it (a thread-specific lookup saved per delivery).
    @inline(never)
    func invokeRecorded(
        _ entry: RegistrationEntry, owner: AnyObject, payload: ErasedPayload, depth: Int, change: UInt64,
        context: ThreadContext? = nil
    ) {
        guard hasSink else {
            entry.call(owner, payload)
            return
        }
        if entry.handsOff {
            handOff(entry, owner: owner, payload: payload, depth: depth, initial: nil, change: change)
            return
        }
        let call = timedCall(
            entry, owner: owner, payload: payload, depth: depth, change: change,
            context: context ?? ThreadContext.current
        )
        if hasRecordSink {
            recordDelivered(
                context: call.context, entry: entry, depth: depth, onMainQueue: call.onMainQueue,
                end: call.end, duration: call.duration, cpu: call.cpu, waits: call.waits, runQueue: call.runQueue, change: change
            )
            return
        }
        recordDeliveredEvent(call, entry: entry, depth: depth, initial: nil, change: change)
    }

    /// `invokeRecorded` for a delivery that carries a value of its own (`initial`: a new
    /// registration's initial value, recorded on its `delivered` event), or none.
    @inline(never)
    func invokeRecorded(
        _ entry: RegistrationEntry, owner: AnyObject, payload: ErasedPayload, depth: Int, initial: EventValue?,
        change: UInt64
    ) {
        guard let initial else {
            invokeRecorded(entry, owner: owner, payload: payload, depth: depth, change: change)
            return
        }
        guard hasSink else {
            entry.call(owner, payload)
            return
        }
        if entry.handsOff {
            handOff(entry, owner: owner, payload: payload, depth: depth, initial: initial, change: change)
            return
        }
        let call = timedCall(
            entry, owner: owner, payload: payload, depth: depth, change: change, context: ThreadContext.current
        )
        recordDeliveredEvent(call, entry: entry, depth: depth, initial: initial, change: change)
    }

    /// Delivers to a registration that hands the value off to a stream's consumer
    /// (`RegistrationEntry.handsOff`): recorded first, then called. The hand-off runs no
    /// code of the app's on this thread, so it is recorded as taking no time (what the
    /// consumer then does is its own task's).
    @inline(never)
    func handOff(
        _ entry: RegistrationEntry, owner: AnyObject, payload: ErasedPayload, depth: Int, initial: EventValue?,
        change: UInt64
    ) {
        let context = ThreadContext.current
        let now = monotonicNanoseconds()
        let onMainQueue = context.isOnMainQueue(delivering: change)
        // Not shared with `invokeRecorded`'s recording: that path must not test an
        // `EventValue?` (see `callgrind-per-event.sh RegistryBenchmark recording`).
        if initial == nil, hasRecordSink {
            recordDelivered(
                context: context, entry: entry, depth: depth, onMainQueue: onMainQueue,
                end: now, duration: 0, cpu: 0, waits: nil, runQueue: nil, change: change
            )
        } else {
            let call = TimedCall(
                context: context, onMainQueue: onMainQueue, end: now, duration: 0, cpu: 0, waits: nil, runQueue: nil
            )
            recordDeliveredEvent(call, entry: entry, depth: depth, initial: initial, change: change)
        }
        entry.call(owner, payload)
    }

    /// What `timedCall` measured of one callback, and where it ran.
    struct TimedCall {
        let context: ThreadContext
        let onMainQueue: Bool
        let end: UInt64
        let duration: UInt64
        let cpu: UInt64
        let waits: UInt64?
        let runQueue: UInt64?
    }

    /// Calls one registration, timed, one level deeper on this thread (whose context is
    /// `context`).
    func timedCall(
        _ entry: RegistrationEntry, owner: AnyObject, payload: ErasedPayload, depth: Int, change: UInt64,
        context: ThreadContext
    ) -> TimedCall {
        let savedDepth = context.depth
        context.depth = depth + 1
        let onMainQueue = context.isOnMainQueue(delivering: change)
        let start = context.time(delivering: change)
        // The callback may run code on another queue: nothing in it reuses this answer.
        let savedQueueChange = context.queueChange
        let savedOnMainQueue = context.onMainQueue
        context.queueChange = 0
        let clock = CallbackClock(context, start: start)
        entry.call(owner, payload)
        let spent = clock.finish(context)
        context.depth = savedDepth
        // A post inside the callback may have put its own answer in.
        context.queueChange = savedQueueChange
        context.onMainQueue = savedOnMainQueue
        // The next callback of a running loop starts here (a reading after this thread's
        // latest record, whichever loop it was in).
        context.loopTime = spent.end
        return TimedCall(
            context: context, onMainQueue: onMainQueue, end: spent.end, duration: spent.duration, cpu: spent.cpu,
            waits: spent.waits, runQueue: spent.runQueue
        )
    }

    /// Hands a delivery to the sink as an `ObserverEvent` (a sink that does not take records,
    /// or a delivery with an initial value).
    func recordDeliveredEvent(_ call: TimedCall, entry: RegistrationEntry, depth: Int, initial: EventValue?, change: UInt64) {
        // The most frequent event: built in one initialisation (filling a default event
        // field by field copied it several times), stamped with the call's end.
        var event = ObserverEvent(
            kind: .delivered, time: call.end, thread: call.context.number, isMainThread: call.context.isMain,
            channel: entry.channel.info, registration: entry.info, new: initial, depth: depth,
            duration: call.duration, cpuDuration: call.cpu, isMainQueue: call.onMainQueue,
            changeNumber: change == 0 ? nil : change
        )
        event.waits = call.waits
        event.runQueueWait = call.runQueue
        sink?.record(event)
    }

    @inline(never)
    func reportSkip(_ entry: RegistrationEntry, _ reason: SkipReason, depth: Int, change: UInt64) {
        if let recordSink {
            recordSkipped(recordSink, entry: entry, reason: reason, depth: depth, change: change)
            return
        }
        guard let sink else { return }
        emit(sink, .skipped) {
            $0.channel = entry.channel.info
            $0.registration = entry.info
            $0.skipReason = reason
            $0.depth = depth
            $0.changeNumber = change == 0 ? nil : change
        }
    }

    /// Delivers the current value to one new registration (the `initial` option).
    func deliverInitial<Payload: Sendable>(_ entry: RegistrationEntry, payload: Payload, value: () -> EventValue?) {
        let initial = sink == nil ? nil : value()
        if let queue = entry.queue {
            queue.async { [self] in
                guard let owner = self.ownerForQueuedDelivery(entry, depth: 0, change: 0) else { return }
                ErasedPayload.lending(payload) { payload in
                    self.invokeRecorded(entry, owner: owner, payload: payload, depth: 0, initial: initial, change: 0)
                }
            }
        } else if let owner = entry.owner {
            // The thread's context is only event work: untouched without a sink.
            let depth = sink == nil ? 0 : ThreadContext.current.depth
            ErasedPayload.lending(payload) { payload in
                invokeRecorded(entry, owner: owner, payload: payload, depth: depth, initial: initial, change: 0)
            }
        }
    }
}
