import JournalStore

extension Rule {
    /// OJ012 silent-change: see `SilentChangeChecker.rule`.
    package static var silentChange: Rule { SilentChangeChecker.rule }
}

/// OJ012: a change that reached nobody on a channel whose owners had stopped being told
/// without anyone asking: their registrations were replaced, or their tokens released
/// while they lived on. Owners that removed their registrations themselves (explicitly,
/// all at once, or by cancelling the token) asked not to hear more, and owners that were
/// deallocated went away (the documented happy path: the token goes with its owner):
/// neither is counted.
struct SilentChangeChecker: RuleChecker {
    /// OJ012: the rule this checker decides, described next to its logic.
    static let rule = Rule(
        code: "OJ012", name: "silent-change", severities: [.info],
        summary: "A channel changed and nobody was told, although owners that had registered on it were still alive and never asked to stop.",
        details: """
            A change reached nobody (no delivery, no skip) on a channel where owners had
            registered earlier in the session and stopped being told without anyone asking:
            replaced by another owner's callback, or their token released while they lived
            on. Sometimes intended, often the symptom of an earlier removal that came too
            soon (a token not kept, a single-slot callback taken over).

            Not counted: owners that removed their registrations themselves (remove,
            removeAll, cancelling the token): they asked not to be told; and owners that
            were deallocated (their token released with them, the documented happy path, or
            removed by the registry when found dead): they went away, there is nobody
            left to tell.
            """,
        fix: "Check that the owners who registered are still meant to be told: were they removed, replaced or deallocated too early?"
    )

    /// An ending as a finding tells it, read back from its event when the finding is made.
    struct LastRemoval {
        var seq: Int64
        var registrationID: Int64
        var reason: String
    }

    /// What was true of the channel when a change was posted.
    struct AtChange {
        /// Owners whose registrations on the channel had ended without their asking.
        var owners: Int
        /// The seq of the latest of those endings before it (its event says which
        /// registration ended and why).
        var lastRemovalSeq: Int64?
    }

    struct Group {
        var firstSeq: Int64
        var atFirst: AtChange
        var count = 1
    }

    /// Removal reasons that mean the owner asked to stop, or went away.
    static let deliberate: Set<JournalRemovalReason> = [
        .explicit, .ownerRemovedAll, .tokenCancelled, .ownerDeallocated, .subjectDeallocated, .streamEnded,
    ]

    /// The owners of one channel whose last registration there ended without their asking,
    /// with that ending, and the latest of those endings at hand: a change asks for both,
    /// and a channel that many owners left (thousands of tokens released on a shared
    /// channel over a long session) must not cost a pass over all of them per change.
    struct UnaskedOwners {
        /// Each owner here, with the seq of its ending. Only the seq is kept: its event says
        /// which registration ended and why, read back for the few endings a finding names.
        /// (A map to the whole ending, reason text included, held 40 bytes a slot: owners
        /// that lived on with their tokens released are kept until the end, thousands on a
        /// long session.)
        private var byOwner: [Int64: Int64] = [:]
        /// The owners in the order their endings happened (seqs rising, as events come),
        /// owners only: an entry is stale when its owner has left or ended again since,
        /// and the top one never is while its owner is here (a later ending would sit above
        /// it), so the latest ending is the top's after dropping stale tops. Stale entries
        /// are dropped when they reach the top or outnumber live ones.
        private var order: [Int64] = []

        var count: Int { byOwner.count }
        var isEmpty: Bool { byOwner.isEmpty }
        /// Endings kept in order, stale ones included: at most about twice `count`.
        var keptEndings: Int { order.count }

        /// `owner`'s registration ended without its asking, at `seq`.
        mutating func set(_ owner: Int64, seq: Int64) {
            byOwner[owner] = seq
            order.append(owner)
            if order.count > 2 * byOwner.count + 32 { compact() }
        }

        mutating func remove(_ owner: Int64) {
            guard byOwner.removeValue(forKey: owner) != nil else { return }
            if order.count > 2 * byOwner.count + 32 { compact() }
        }

        /// Drops the stale endings: each owner here once, by its ending's seq.
        private mutating func compact() {
            order = byOwner.sorted { $0.value < $1.value }.map(\.key)
        }

        /// The seq of the latest ending of an owner still here.
        mutating func latest() -> Int64? {
            while let last = order.last {
                if let seq = byOwner[last] { return seq }
                order.removeLast()
            }
            return nil
        }
    }

    /// Per channel, the owners whose last registration there ended without their asking.
    /// An owner leaves it when it registers again, removes deliberately, or is seen
    /// deallocated.
    private var unasked = IDMap<UnaskedOwners>()
    /// When each owner in `unasked` will be seen deallocated (from the catalog), earliest
    /// first: it leaves `unasked` then, as a later change would drop it anyway, so the
    /// checker's state follows owners still alive, not every owner the session had.
    private var deaths = DeathQueue()
    /// Changes not yet complete, on channels that had such owners when they were posted.
    private var pending = IDMap<AtChange>()
    private var groups = IDMap<Group>()

    /// How many (channel, owner) entries the checker holds.
    var heldOwners: Int { unasked.allValues.reduce(0) { $0 + $1.count } }

    /// Removes `owner` from `channel`'s unasked owners, and the channel when none is left.
    private mutating func forget(_ owner: Int64, on channel: Int64) {
        let emptied = unasked.update(channel) { owners in
            owners.remove(owner)
            return owners.isEmpty
        }
        if emptied == true { unasked[channel] = nil }
    }

    /// Marks `owner` as not asked on `channel`, and when it will be seen deallocated.
    private mutating func markUnasked(_ owner: Int64, on channel: Int64, at seq: Int64, _ context: DiagnosisContext) {
        unasked.update(channel, default: UnaskedOwners()) { $0.set(owner, seq: seq) }
        if let deallocSeq = context.catalog.objects[owner]?.deallocSeq {
            deaths.push(Death(seq: deallocSeq, channel: channel, owner: owner))
        }
    }

    mutating func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        // Owners deallocated by now are dropped, as the next change would (they went away).
        while let death = deaths.popFirst(atOrBefore: event.seq) {
            forget(death.owner, on: death.channel)
        }
        switch event.kind {
        case .registered, .replaced:
            guard let channel = event.channelID, let id = event.registrationID else { return }
            if event.kind == .replaced, let old = event.otherRegistrationID,
               let oldOwner = try context.registration(old)?.ownerID {
                markUnasked(oldOwner, on: channel, at: event.seq, context)
            }
            if let owner = try context.registration(id)?.ownerID ?? event.ownerID {
                forget(owner, on: channel)
            }
        case .removed:
            guard let channel = event.channelID, let id = event.registrationID else { return }
            var owner = event.ownerID
            if owner == nil { owner = try context.registration(id)?.ownerID }
            guard let owner else { return }
            if let removal = event.removalReason, Self.deliberate.contains(removal) {
                forget(owner, on: channel)
            } else {
                markUnasked(owner, on: channel, at: event.seq, context)
            }
        case .changed:
            // Owners deallocated by now (a token released in their deinit, a replaced owner
            // that went away) already left with their deaths above: they are not waiting
            // to be told anything.
            // One lookup of the channel, its owners then read and updated in place.
            guard !event.isPrior, let channel = event.channelID else { return }
            let atChange = unasked.update(channel) { unaskedOwners -> AtChange? in
                let owners = unaskedOwners.count
                return owners > 0 ? AtChange(owners: owners, lastRemovalSeq: unaskedOwners.latest()) : nil
            }
            guard let atChange = atChange ?? nil else { return }
            pending[event.seq] = atChange
        default:
            break
        }
    }

    mutating func completed(_ change: DispatchTracker.CompletedChange, _ context: DiagnosisContext) {
        let event = change.event
        guard let atChange = pending.removeValue(forKey: event.seq), change.receipts.isEmpty,
              let channel = event.channelID
        else { return }
        // Changes complete out of order (each when its own dispatch is done): the group's
        // first is the earliest change, whenever it completed.
        if var group = groups[channel] {
            group.count += 1
            if event.seq < group.firstSeq { (group.firstSeq, group.atFirst) = (event.seq, atChange) }
            groups[channel] = group
        } else {
            groups[channel] = Group(firstSeq: event.seq, atFirst: atChange)
        }
    }

    /// The ending recorded at `seq`, as `observe` marked it: a replacement ends the
    /// replaced registration, a removal its own registration, for its reason.
    private func removal(at seq: Int64, _ context: DiagnosisContext) throws(AnalysisError) -> LastRemoval? {
        guard let event = try context.reader.event(session: context.session.id, seq: seq) else { return nil }
        switch event.kind {
        case .replaced:
            return event.otherRegistrationID.map { LastRemoval(seq: seq, registrationID: $0, reason: JournalRemovalReason.replaced.name) }
        case .removed:
            return event.registrationID.map { LastRemoval(seq: seq, registrationID: $0, reason: event.reason ?? EventKind.removed.name) }
        default:
            return nil
        }
    }

    mutating func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError) {
        for (channelID, group) in groups.entries.sorted(by: { $0.value.firstSeq < $1.value.firstSeq }) {
            let channel = context.channel(channelID)
            var evidence = ["seq \(group.firstSeq): first change that reached nobody"]
            var seqs = [group.firstSeq]
            var ownerNames: [String] = []
            var sites: [String] = []
            if let seq = group.atFirst.lastRemovalSeq, let removal = try removal(at: seq, context),
               let row = try context.registration(removal.registrationID) {
                let owner = context.owner(row.ownerID)
                let site = context.site(row.callSiteID)
                evidence.append("seq \(removal.seq): the last registration before it, \(owner)'s (\(site)), ended without its owner asking (\(removal.reason))")
                seqs.append(removal.seq)
                ownerNames.append(owner)
                sites.append(site)
            }
            emit(Finding(
                rule: Self.rule, sessionID: context.session.id,
                message: "\(channel) changed \(times(group.count)) with nobody to tell, although \(plural(group.atFirst.owners, "owner")) had registered on it and never asked to stop (first at seq \(group.firstSeq)).",
                evidence: evidence, seqs: seqs, callSites: sites, owners: ownerNames, channel: channel, count: group.count
            ))
        }
    }
}
