import Dispatch

// Registering: a callback becomes a `RegistrationEntry` on its channel.

extension ObserverRegistry {
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
            callback(unsafeDowncast(owner, to: Owner.self), payload.load(as: Payload.self))
        }
    }

    /// Registers `call` on `channel` for `owner`. `call` receives a payload of type
    /// `payload`; callers build it where `payload` is a concrete type when they can,
    /// so the delivery path runs no unspecialised generic code.
    func register(
        on channel: Channel, owner: AnyObject, payload: Any.Type, options: ObservationOptions, queue: DispatchQueue?,
        expectsMainThread: Bool, sender: AnyObject?, scope: ObservationScope?, callSite: CallSite,
        call: @escaping @Sendable (AnyObject, ErasedPayload) -> Void
    ) -> RegistrationEntry {
        channel.requirePayload(payload, "A callback is registered")
        // Not `queue === DispatchQueue.main`: on Linux every `DispatchQueue.main` is a new
        // wrapper object, so identity never matches (see `MainQueue`).
        let expectsMain = expectsMainThread || queue.map(MainQueue.isMain) == true
        var garbage: [RegistrationEntry] = []
        var kept = KeptAlive()
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
                if kept.isGone(occupant.owner) {
                    removeLocked(occupant, reason: .ownerDeallocated, callSite: nil, state: &state, garbage: &garbage)
                } else {
                    replaced = occupant
                }
            }
            state.registrations[info.id] = entry
            state.byOwner[ownerRef.id, default: []].insert(info.id)
            // The channel's lock around the change and its event: a post on the channel
            // is recorded before or after it, as it was delivered.
            channel.exclusive {
                if let replaced { retireLocked(replaced, reason: .replaced, state: &state, garbage: &garbage) }
                channel.append(entry)
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
            }
            return entry
        }
        withExtendedLifetime(garbage) {}  // released here, after the lock
        withExtendedLifetime(kept) {}
        return entry
    }
}
