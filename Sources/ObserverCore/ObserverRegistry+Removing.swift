import Synchronization

// Removing: every way a registration goes, each recorded with its reason. Entries are
// released after the lock (see `garbage`): their callbacks may hold tokens whose release
// calls back into the registry.

extension ObserverRegistry {
    /// Marks `entry` removed and forgets it, without an event (shared by removal and
    /// replacement). Under the registry's lock and the entry's channel's.
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
        // The event in the same critical section of the channel's lock as the removal: a
        // post on the channel is recorded before or after it, as it was delivered.
        entry.channel.exclusive {
            retireLocked(entry, reason: reason, state: &state, garbage: &garbage)
            if let sink {
                emit(sink, .removed) {
                    $0.channel = entry.channel.info
                    $0.registration = entry.info
                    $0.removalReason = reason
                    $0.callSite = callSite
                }
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
        var kept = KeptAlive()
        state.withLock { state in
            if let entry = state.registrations[id] {
                let reason = reason == .tokenReleased && kept.isGone(entry.owner) ? .ownerDeallocated : reason
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
        withExtendedLifetime(kept) {}
    }

    /// Removes the registration with `id` (reason `ownerDeallocated`) if its owner is gone.
    /// If another assignment had already replaced it, records the owner's deallocation
    /// (`ownerGone`): otherwise a replaced owner would never be seen deallocated.
    func removeIfOwnerGone(registrationID id: UInt64, info: RegistrationInfo, ending: RegistrationEnding, channel: ChannelInfo) {
        var garbage: [RegistrationEntry] = []
        var kept = KeptAlive()
        state.withLock { state in
            if let entry = state.registrations[id] {
                if kept.isGone(entry.owner) {
                    removeLocked(entry, reason: .ownerDeallocated, callSite: nil, state: &state, garbage: &garbage)
                }
            } else if ending.reason == .replaced, kept.isGone(ending.owner), let sink {
                emit(sink, .ownerGone) {
                    $0.channel = channel
                    $0.registration = info
                }
            }
        }
        withExtendedLifetime(garbage) {}  // released here, after the lock
        withExtendedLifetime(kept) {}
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
        var kept = KeptAlive()
        state.withLock { state in
            for entry in channel.liveEntries {
                let reason: RemovalReason = kept.isGone(entry.owner) ? .ownerDeallocated : .subjectDeallocated
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
        withExtendedLifetime(kept) {}
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

    // MARK: Public removal

    /// Removes every registration whose owner or subject has been deallocated (reason
    /// `ownerDeallocated` or `subjectDeallocated`), and forgets channels and identities
    /// of deallocated objects. Dispatch does this lazily per channel; call `sweep()` to
    /// do it everywhere now (the journal does before it ends a session).
    ///
    /// It holds every owner and subject it finds alive until it has released the
    /// registry's lock: one whose last other reference goes meanwhile is deinitialised on
    /// the sweeping thread then, outside the lock, so its `deinit` may release tokens.
    public func sweep() {
        var garbage: [RegistrationEntry] = []
        var deadChannels: [Channel] = []
        // Every owner and subject found alive: an app thread may drop its last reference to
        // one during the read, and its deinit must not run under the lock (see `KeptAlive`).
        var kept = KeptAlive()
        state.withLock { state in
            // A subject may die on another thread at any moment, even under the lock (weak
            // references do not take it). So whether a channel is dead is read once, here,
            // and both passes below use that answer: a channel found alive while its
            // registrations were checked and dead when channels were dropped was once
            // drained with its registrations still listed, and the next cancel trapped on
            // the stale index.
            var deadSubjectChannels: Set<ObjectIdentifier> = []
            for (key, channel) in state.channels where channel.hasSubject && kept.isGone(channel.subject) {
                deadSubjectChannels.insert(ObjectIdentifier(channel))
                state.channels[key] = nil
                deadChannels.append(channel)
            }
            // Only the dead are sorted (by id, so events come in registration order).
            var dead: [(entry: RegistrationEntry, reason: RemovalReason)] = []
            for entry in state.registrations.values {
                if kept.isGone(entry.owner) {
                    dead.append((entry, .ownerDeallocated))
                } else if entry.channel.hasSubject
                    && (deadSubjectChannels.contains(ObjectIdentifier(entry.channel)) || kept.isGone(entry.channel.subject))
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
            state.identities.prune(keeping: &kept)
        }
        withExtendedLifetime(garbage) {}  // released here, after the lock
        withExtendedLifetime(deadChannels) {}
        withExtendedLifetime(kept) {}
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
}
