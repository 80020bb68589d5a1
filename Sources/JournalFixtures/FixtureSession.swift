package import JournalStore

/// One session of a `JournalFixture`: a compact DSL that records what a registry would.
///
/// Every method appends the events the registry would emit and keeps the tables in step
/// (registrations' removal, objects' deallocation, scopes' ends). Sequence numbers are
/// assigned in order; time advances 1 ms per event unless `advance(by:)` says otherwise.
package final class FixtureSession {
    let fixture: JournalFixture
    package let id: Int64
    package private(set) var seq: Int64 = 0
    package var timeNs: Int64 = 0
    /// Added to the time of each new event.
    package var tickNs: Int64 = 1_000_000
    /// Thread of the next events (`inThread` changes it).
    package private(set) var thread: Int64 = 1
    package private(set) var isMain = true
    /// Dispatch depth of the next events (`inCallback` raises it).
    package private(set) var depth = 0
    private var nextObject: Int64 = 1
    private var nextChannel: Int64 = 1
    private var nextRegistration: Int64 = 1
    private var nextScope: Int64 = 1
    private var policies: [Int64: JournalDeliveryPolicy] = [:]
    /// Live registrations: id → (channel, owner), in registration order per channel.
    private var live: [Int64: (channel: Int64, owner: Int64)] = [:]
    private var liveOrder: [Int64: [Int64]] = [:]
    /// Every registration ever made, live or not (a callback may be delivered once more
    /// after removing itself).
    private var known: [Int64: (channel: Int64, owner: Int64)] = [:]
    private var deallocated: Set<Int64> = []

    init(fixture: JournalFixture, id: Int64) {
        self.fixture = fixture
        self.id = id
    }

    // MARK: - Entities

    /// A new object of `type`; returns its id.
    package func object(_ type: String) throws -> Int64 {
        let object = nextObject
        nextObject += 1
        try fixture.run(
            "INSERT INTO objects (session_id, id, type_id, first_seq) VALUES (?1, ?2, ?3, ?4)",
            [.int(id), .int(object), .int(try fixture.string(type)), .int(seq + 1)]
        )
        return object
    }

    /// A channel on `subject` (0 for a notification) with `key`.
    package func channel(_ subject: Int64, _ key: String, singleSlot: Bool = false) throws -> Int64 {
        let channel = nextChannel
        nextChannel += 1
        let policy: JournalDeliveryPolicy = singleSlot ? .singleSlot : .multicast
        policies[channel] = policy
        try fixture.run(
            "INSERT INTO channels (session_id, id, subject_id, key_id, policy, first_seq) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            [.int(id), .int(channel), .int(subject), .int(try fixture.string(key)), stored(policy), .int(seq + 1)]
        )
        return channel
    }

    // MARK: - Events

    /// Appends one event row; returns its seq.
    @discardableResult
    package func event(
        _ kind: JournalEventKind, channel: Int64? = nil, registration: Int64? = nil, owner: Int64? = nil,
        other: Int64? = nil, site: String? = nil, scope: Int64? = nil, liveCount: Int64? = nil,
        duration: Int64? = nil, prior: Bool = false, old: String? = nil, new: String? = nil,
        reason: String? = nil, detail: String? = nil, mainQueue: Bool? = nil, cpu: Int64? = nil, waits: Int64? = nil,
        changeSeq: Int64? = nil, runQueue: Int64? = nil
    ) throws -> Int64 {
        seq += 1
        timeNs += tickNs
        let callSite = try site.map { try fixture.callSite($0) }
        guard fixture.schemaVersion > 1 else {
            // As 0.1.0 wrote it: the kind by name, every column in the one table.
            try fixture.run("""
                INSERT INTO events (session_id, seq, time_ns, kind, thread, is_main, channel_id, registration_id, owner_id,
                    other_registration_id, call_site_id, scope_id, depth, live_count, duration_ns, is_prior, old_value,
                    new_value, reason, detail)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)
                """, [
                    .int(id), .int(seq), .int(timeNs), .text(kind.name), .int(thread), .int(isMain ? 1 : 0), .optional(channel),
                    .optional(registration), .optional(owner), .optional(other), .optional(callSite), .optional(scope),
                    .int(Int64(depth)), .optional(liveCount), .optional(duration), .int(prior ? 1 : 0), .text(old),
                    .text(new), .text(reason), .text(detail),
                ])
            return seq
        }
        var row = StoredEvent(
            sessionID: id, seq: seq, timeNs: timeNs, kind: kind.code, thread: thread,
            flags: EventFlags.encode(isMain: isMain, isPrior: prior, isMainQueue: mainQueue, depth: Int64(depth))
        )
        row.channelID = channel
        row.registrationID = registration
        row.ownerID = owner
        row.changeBack = changeSeq.map { seq - $0 }
        row.durationNs = duration
        row.cpuNs = cpu
        row.liveCount = liveCount
        row.callSiteID = callSite
        row.oldValue = old.map(ValueText.text)
        row.newValue = new.map(ValueText.text)
        row.reason = reason
        var details = StoredEventDetails(sessionID: id, seq: seq)
        details.otherRegistrationID = other
        details.scopeID = scope
        details.waits = waits
        details.detail = detail
        details.runQueueNs = runQueue
        try fixture.insert(row, details)
        return seq
    }

    /// Registers `owner` on `channel` from `site`. On a single-slot channel with a live
    /// occupant this is a `replaced` event (or, if the occupant's owner is deallocated,
    /// its automatic removal followed by `registered`), as the registry does.
    @discardableResult
    package func register(
        _ channel: Int64, owner: Int64, at site: String, options: String = "new", queue: String? = nil,
        expectsMain: Bool = false, scope: Int64? = nil, function: String = "f()", sender: Int64? = nil
    ) throws -> Int64 {
        let registration = nextRegistration
        nextRegistration += 1
        var replaced: Int64?
        if policies[channel] == .singleSlot, let occupant = liveOrder[channel]?.first {
            if deallocated.contains(live[occupant]!.owner) {
                try remove(occupant, reason: .ownerDeallocated)
            } else {
                replaced = occupant
            }
        }
        try fixture.run(
            """
            INSERT INTO registrations (session_id, id, channel_id, owner_id, call_site_id, options, queue_id, expects_main,
                sender_id, scope_id, registered_seq)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?11, ?9, ?10)
            """,
            [
                .int(id), .int(registration), .int(channel), .int(owner), .int(try fixture.callSite(site, function: function)),
                .text(options), try queue.map { .int(try fixture.string($0)) } ?? .null, .int(expectsMain ? 1 : 0),
                .optional(scope), .int(seq + 1), .optional(sender),
            ]
        )
        if let replaced {
            try markRemoved(replaced, at: seq + 1, reason: .replaced)
            try event(.replaced, channel: channel, registration: registration, owner: owner, other: replaced, scope: scope)
        } else {
            try event(.registered, channel: channel, registration: registration, owner: owner, scope: scope)
        }
        live[registration] = (channel, owner)
        known[registration] = (channel, owner)
        liveOrder[channel, default: []].append(registration)
        return registration
    }

    /// Removes a live registration (`removed` event); `site` is where removal was asked for.
    @discardableResult
    package func remove(_ registration: Int64, reason: JournalRemovalReason = .explicit, at site: String? = nil) throws -> Int64 {
        let entry = live[registration]!
        try markRemoved(registration, at: seq + 1, reason: reason)
        return try event(.removed, channel: entry.channel, registration: registration, owner: entry.owner, site: site, reason: reason.name)
    }

    /// A channel's policy or a registration's removal reason as this journal's schema stores
    /// it: a code from schema 5 on, the name before.
    private func stored(_ value: some JournalEnumeration) -> JournalFixture.Value {
        fixture.schemaVersion > 1 ? .int(value.code) : .text(value.name)
    }

    private func markRemoved(_ registration: Int64, at removedSeq: Int64, reason: JournalRemovalReason) throws {
        let entry = live.removeValue(forKey: registration)!
        liveOrder[entry.channel]?.removeAll { $0 == registration }
        try fixture.run(
            "UPDATE registrations SET removed_seq = ?1, removal_reason = ?2 WHERE session_id = ?3 AND id = ?4",
            [.int(removedSeq), stored(reason), .int(id), .int(registration)]
        )
    }

    /// A removal request that matched nothing (`removeUnregistered`).
    @discardableResult
    package func removeUnregistered(
        at site: String, channel: Int64? = nil, registration: Int64? = nil, owner: Int64? = nil, detail: String? = nil
    ) throws -> Int64 {
        try event(.removeUnregistered, channel: channel, registration: registration, owner: owner, site: site, detail: detail)
    }

    /// Whether a registration is live.
    package func isLive(_ registration: Int64) -> Bool { live[registration] != nil }

    /// The live registrations of a channel, oldest first.
    package func liveRegistrations(on channel: Int64) -> [Int64] { liveOrder[channel] ?? [] }

    /// A change posted on `channel` (`changed` event with the live count).
    @discardableResult
    package func change(
        _ channel: Int64, old: String? = nil, new: String? = nil, at site: String? = nil, prior: Bool = false
    ) throws -> Int64 {
        try event(
            .changed, channel: channel, site: site, liveCount: Int64(liveOrder[channel]?.count ?? 0), prior: prior,
            old: old, new: new
        )
    }

    /// A callback ran (`delivered`), taking `duration` ns.
    @discardableResult
    /// `cpu`, `mainQueue` and `waits` are the schema-2 facts (NULL when not given).
    package func deliver(
        _ registration: Int64, duration: Int64 = 100_000, initial: String? = nil, cpu: Int64? = nil,
        mainQueue: Bool? = nil, waits: Int64? = nil
    ) throws -> Int64 {
        let entry = known[registration]
        return try event(
            .delivered, channel: entry?.channel, registration: registration, owner: entry?.owner, duration: duration,
            new: initial, mainQueue: mainQueue, cpu: cpu, waits: waits
        )
    }

    /// A live registration was not called (`skipped`).
    @discardableResult
    package func skip(_ registration: Int64, reason: JournalSkipReason = .unchanged) throws -> Int64 {
        let entry = live[registration]!
        return try event(.skipped, channel: entry.channel, registration: registration, owner: entry.owner, reason: reason.name)
    }

    /// Posts a change and delivers it to every live registration, as a dispatch does;
    /// `inside` runs inside the callback of the registration it is given (nested events
    /// come before that registration's `delivered`).
    @discardableResult
    package func post(
        _ channel: Int64, old: String? = nil, new: String? = nil, at site: String? = nil,
        duration: Int64 = 100_000, inside: ((Int64) throws -> Void)? = nil
    ) throws -> Int64 {
        let changeSeq = try change(channel, old: old, new: new, at: site)
        for registration in liveRegistrations(on: channel) {
            if let owner = live[registration]?.owner, deallocated.contains(owner) {
                try remove(registration, reason: .ownerDeallocated)
                continue
            }
            if let inside { try inCallback { try inside(registration) } }
            try deliver(registration, duration: duration)
        }
        return changeSeq
    }

    /// Runs `body` one dispatch level deeper (events inside a callback).
    package func inCallback(_ body: () throws -> Void) throws {
        depth += 1
        defer { depth -= 1 }
        try body()
    }

    /// Runs `body` with events on another thread.
    package func inThread(_ number: Int64, main: Bool = false, _ body: () throws -> Void) throws {
        let saved = (thread, isMain)
        (thread, isMain) = (number, main)
        defer { (thread, isMain) = saved }
        try body()
    }

    /// The owner was deallocated. With `autoRemove`, its live registrations are removed
    /// (`ownerDeallocated`) now, and the first removal is where the deallocation was seen;
    /// without, it is seen at the next event (the registry notices lazily), or at `seenAt`
    /// (the writer records the seq of the removal that noticed it, which may come after a
    /// change the owner was already dead for).
    package func deallocate(_ object: Int64, autoRemove: Bool = true, seenAt: Int64? = nil) throws {
        deallocated.insert(object)
        let seen = seenAt ?? seq + 1
        if autoRemove {
            for (registration, entry) in live.sorted(by: { $0.key < $1.key }) where entry.owner == object {
                try remove(registration, reason: .ownerDeallocated)
            }
        }
        try fixture.run(
            "UPDATE objects SET dealloc_seq = ?1 WHERE session_id = ?2 AND id = ?3", [.int(seen), .int(id), .int(object)]
        )
    }

    /// Begins a scope (`scopeBegan`); returns its id.
    package func beginScope(_ name: String) throws -> Int64 {
        let scope = nextScope
        nextScope += 1
        try fixture.run(
            "INSERT INTO scopes (session_id, id, name_id, began_seq) VALUES (?1, ?2, ?3, ?4)",
            [.int(id), .int(scope), .int(try fixture.string(name)), .int(seq + 1)]
        )
        try event(.scopeBegan, scope: scope)
        return scope
    }

    /// Ends a scope (`scopeEnded`).
    @discardableResult
    package func endScope(_ scope: Int64) throws -> Int64 {
        try fixture.run(
            "UPDATE scopes SET ended_seq = ?1 WHERE session_id = ?2 AND id = ?3", [.int(seq + 1), .int(id), .int(scope)]
        )
        return try event(.scopeEnded, scope: scope)
    }

    /// Events the writer dropped (`gap` event with `dropped=N`).
    @discardableResult
    package func gap(dropped: Int) throws -> Int64 {
        try event(.gap, reason: JournalGapReason.bufferFull.name, detail: "dropped=\(dropped)")
    }

    /// Leaves `count` sequence numbers unused (a damaged journal; the writer never does).
    package func skipSeqs(_ count: Int64) { seq += count }

    /// Advances the clock by `ns` before the next event.
    package func advance(by ns: Int64) { timeNs += ns }
}
