extension Rule {
    /// OJ003 remove-unregistered: see `RemoveUnregisteredChecker.rule`.
    package static var removeUnregistered: Rule { RemoveUnregisteredChecker.rule }
}

/// OJ003: a removal that matched no live registration.
struct RemoveUnregisteredChecker: RuleChecker {
    /// OJ003: the rule this checker decides, described next to its logic.
    static let rule = Rule(
        code: "OJ003", name: "remove-unregistered", severities: [.warning],
        summary: "A removal was asked for that matched no live registration (never made, or already removed).",
        details: """
            A removal was asked for that matched no live registration: removing twice (in
            dealloc and in removeFromSuperview), removing from the wrong object, or removing a
            misspelled key. The registry treats it as a no-op, but it is a bug worth seeing.
            The finding says whether the registration existed and when and where it was
            already removed.

            A removal that names a registration still live and leaves it live did not reach it:
            a NotificationCenter token passed to removeObserver of another center than the one
            that added it. Foundation keeps calling the block; the finding names the
            registration and counts the deliveries it had after the removal.

            Not reported: a callback removing itself during a delivery (that removal matches
            its live registration); cancelling a token whose registration the registry had
            removed by itself (owner or subject deallocated, replaced in a single slot): the
            app could not know, and the journal records it as the no-op event
            cancelAfterAutoRemoval.
            """,
        fix: "Remove each registration exactly once, in one place (keep the token and cancel it, or let the owner's deallocation remove it), and check the key's spelling."
    )

    /// The first removal of a group: what `explain` needs of it, resolved when the finding
    /// is made. A long session has one group per registration cancelled twice (a group a
    /// round in the soak, 12,845 at 1.9M events), so a group is plain bytes, written out
    /// past a few hundred (`ScratchTable`): ids, not the event's row and the finding's text.
    struct Removal {
        var seq: Int64
        var callSiteID: Int64?
        var channelID: Int64?
        var ownerID: Int64?
        var registrationID: Int64?
        /// Whether the event named what it removed (`detail`, a key maybe megabytes long in
        /// a journal from elsewhere): read back from the event when the finding needs it.
        var hasDetail: Bool
        /// For an owner-wide removal: a registration the owner had live when it came, which
        /// the removal did not reach (a block observer, removed only by its token); 0: none.
        var ownedLive: Int64 = 0
    }

    struct Group {
        var key: Key
        var first: Removal
        /// The seqs of the later removals (as many as a finding can list): inline, so a
        /// group is plain bytes.
        var repeats = FirstValues(limit: RemoveUnregisteredChecker.listedSeqs - 1)
        var count = 1

        /// One more removal like the first, at `seq` (the first few seqs are kept).
        mutating func add(seq: Int64) {
            count += 1
            repeats.append(seq)
        }

        /// The later removals' seqs kept, first first.
        var repeatSeqs: [Int64] { repeats.values }
    }

    /// How many sequence numbers a finding lists.
    static let listedSeqs = 10

    struct Key: Hashable {
        var callSite: Int64?
        var channel: Int64?
        var owner: Int64?
        var registration: Int64?
    }

    /// The groups, by a number made from their key (`place(of:)`), mostly written out.
    private let groups: ScratchTable<Group>
    /// The owners of owner-wide removals, whose ended registrations `finish` looks up.
    private var ownersRemovingAll: Set<Int64> = []
    /// Registrations a removal named while they were live and did not remove (asked of
    /// another center): their deliveries after the first such removal, while still live.
    private var missed: [Int64: Int] = [:]

    /// A checker keeping up to twice `capacity` groups in memory (tests pass a small one
    /// to exercise the file).
    init(capacity: Int) {
        groups = ScratchTable(capacity: capacity, orderedBy: { $0.first.seq })
    }

    init() { self.init(capacity: 256) }

    /// Where `key`'s group is in `groups`, and the group if there is one: the key's hash,
    /// or the next number after it while other keys' groups hold them (nothing is removed
    /// before `finish`, so probing on from a taken number finds every key). The hash is
    /// seeded per process, so a journal cannot pile its keys on one number.
    private func place(of key: Key) -> (Int64, Group?) {
        var number = Int64(truncatingIfNeeded: key.hashValue)
        while let group = groups[number] {
            if group.key == key { return (number, group) }
            number &+= 1
        }
        return (number, nil)
    }

    /// How many groups the checker holds, in memory and written out.
    var heldGroups: Int { groups.count }

    /// How many groups are in memory: bounded by the table's capacity, not by history.
    var groupsInMemory: Int { groups.entriesInMemory }

    mutating func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        switch event.kind {
        case .delivered:
            if let id = event.registrationID, missed[id] != nil, !event.isInitialDelivery { missed[id]? += 1 }
            return
        case .removeUnregistered:
            if let id = event.registrationID, context.live.registrations.contains(id), missed[id] == nil { missed[id] = 0 }
            // A schema-1 journal records a token cancelled after the registry removed its
            // registration by itself as removeUnregistered; schema 2 as the no-op
            // cancelAfterAutoRemoval. Either way not the app's mistake.
            // A registration live at the removal is not one removed by itself earlier: a
            // removal that left it live (another center's) stays the app's, whatever ended it later.
            if let id = event.registrationID, !context.live.registrations.contains(id),
               let reason = try context.storedRegistration(id)?.removal, reason.isAutomatic {
                return
            }
        default:
            return
        }
        let key = Key(
            callSite: event.callSiteID, channel: event.channelID, owner: event.ownerID, registration: event.registrationID
        )
        let (number, found) = place(of: key)
        if var group = found {
            group.add(seq: event.seq)
            groups[number] = group
            return
        }
        var first = Removal(
            seq: event.seq, callSiteID: event.callSiteID, channelID: event.channelID, ownerID: event.ownerID,
            registrationID: event.registrationID, hasDetail: event.detail != nil
        )
        if Self.isOwnerWide(first), let owner = first.ownerID {
            ownersRemovingAll.insert(owner)
            // Once per group (a removal repeated from one place is looked at once).
            first.ownedLive = context.live.registrations.values.first { $0.ownerID == owner }?.id ?? 0
        }
        groups[number] = Group(key: key, first: first)
    }

    /// Whether `removal` removes all of an owner's registrations (no channel, no key named).
    private static func isOwnerWide(_ removal: Removal) -> Bool {
        removal.channelID == nil && !removal.hasDetail && removal.ownerID != nil
    }

    /// An owner's registration that ended, by when.
    struct Ended: Comparable {
        var removedSeq: Int64
        var id: Int64
        static func < (lhs: Ended, rhs: Ended) -> Bool { (lhs.removedSeq, lhs.id) < (rhs.removedSeq, rhs.id) }
    }

    /// The ended registrations of the owners of owner-wide removals, each owner's sorted,
    /// from the table in one pass. Kept per owner while streaming, it held an entry for
    /// every owner that ever removed anything, deallocated ones included (the table has no
    /// index by owner, hence the one pass); sorted once per owner and searched per
    /// removal, so an owner with many removals and many registrations does not cost their
    /// product.
    private func endedRegistrations(_ context: DiagnosisContext) throws(AnalysisError) -> [Int64: [Ended]] {
        guard !ownersRemovingAll.isEmpty else { return [:] }
        var ended: [Int64: [Ended]] = [:]
        try context.reader.forEachRegistration(session: context.session.id) { _, row in
            guard ownersRemovingAll.contains(row.ownerID), let removedSeq = row.removedSeq else { return }
            ended[row.ownerID, default: []].append(Ended(removedSeq: removedSeq, id: row.id))
        }
        for owner in Array(ended.keys) { ended[owner]?.sort() }
        return ended
    }

    /// For an owner-wide removal: the owner's registration whose removal (or replacement)
    /// came last before it.
    private static func lastRemoved(before seq: Int64, in list: [Ended]) -> Int64? {
        var low = 0, high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle].removedSeq < seq { low = middle + 1 } else { high = middle }
        }
        return low > 0 ? list[low - 1].id : nil
    }

    /// What the journal knows about the registration the removal aimed at. Reads only what
    /// does not change as the session streams past (the tables, the catalog), and
    /// `lastRemoved`, the owner's registration removed last when it came (for an owner-wide
    /// removal: what it would have removed): the same whenever it is asked.
    private func explain(
        _ event: Removal, lastRemoved: Int64?, _ context: DiagnosisContext
    ) throws(AnalysisError) -> (String, [String], [Int64]) {
        let session = context.session.id
        var previous: RegistrationRow?
        if let id = event.registrationID {
            previous = try context.reader.registration(session: session, id: id)
        } else if let channel = event.channelID, channel != 0, let owner = event.ownerID {
            previous = try context.reader.registrations(session: session, channel: channel, before: event.seq)
                .filter { $0.ownerID == owner && ($0.removedSeq ?? .max) < event.seq }
                .max { ($0.removedSeq ?? 0) < ($1.removedSeq ?? 0) }
        } else if Self.isOwnerWide(event), let owner = event.ownerID {
            // Removing all of an owner's registrations when it had none left. (A removal
            // naming a channel that never existed has no channel id either, but names the
            // channel in `detail`.)
            if event.ownedLive != 0, let live = try context.storedRegistration(event.ownedLive) {
                let site = context.site(live.callSiteID)
                return (
                    "\(context.owner(owner)) owned a live registration (on \(context.channel(live.channelID)), added at \(site)) that a removal of the owner does not reach: a block observer is removed only through its token",
                    ["seq \(live.registeredSeq): registration \(live.id) added at \(site), live when the removal came"],
                    [live.registeredSeq]
                )
            }
            previous = try lastRemoved.flatMap { id throws(AnalysisError) in try context.registration(id) }
            if previous == nil {
                return ("\(context.owner(owner)) had never registered anything", [], [])
            }
        }
        let owner = context.catalog.objectName(event.ownerID ?? previous?.ownerID)
        let channelID = event.channelID ?? previous?.channelID
        if let previous, previous.registeredSeq < event.seq, (previous.removedSeq ?? .max) > event.seq,
           let deliveries = missed[previous.id] {
            let channel = context.channel(previous.channelID)
            let site = context.site(previous.callSiteID)
            var because = ["seq \(previous.registeredSeq): registered at \(site)"]
            var seqs = [previous.registeredSeq]
            let after: String
            if let removedSeq = previous.removedSeq {
                after = "until it was removed at seq \(removedSeq)"
                because.append("seq \(removedSeq): removed at last")
                seqs.append(removedSeq)
            } else {
                after = "to the end of the session"
            }
            because.append("\(plural(deliveries, "delivery", "deliveries")) to it after this removal")
            return (
                "\(context.owner(previous.ownerID))'s registration on \(channel) (\(site)) was live and stayed live (removed from another center than the one that added it?): its block ran \(times(deliveries)) more, \(after)",
                because, seqs
            )
        }
        if let previous, let removedSeq = previous.removedSeq, removedSeq < event.seq {
            let channel = context.channel(previous.channelID)
            var how = previous.removalReason ?? EventKind.removed.name
            if let removal = try context.reader.event(session: session, seq: removedSeq), let site = removal.callSiteID {
                how += ", at \(context.siteInFunction(site))"
            }
            let whose = event.channelID == nil
                ? "\(context.owner(previous.ownerID))'s last registration (on \(channel))"
                : "\(context.owner(previous.ownerID))'s registration on \(channel)"
            return (
                "\(whose) was already removed at seq \(removedSeq) (\(how))",
                [
                    "seq \(previous.registeredSeq): registered at \(context.site(previous.callSiteID))",
                    "seq \(removedSeq): removed (\(how))",
                ],
                [previous.registeredSeq, removedSeq]
            )
        }
        if let channelID, channelID != 0, context.catalog.channels[channelID] != nil {
            let channel = context.channel(channelID)
            if let owner {
                return ("\(owner) never registered on \(channel)", [], [])
            }
            return ("\(channel) had no live registrations", [], [])
        }
        var what = "no channel"
        if event.hasDetail, let detail = try context.reader.event(session: session, seq: event.seq)?.detail, !detail.isEmpty {
            what += " (\(detail))"
        }
        let subject = owner.map { " for \($0)" } ?? ""
        return ("\(what) was ever observed\(subject): check the key's spelling", [], [])
    }

    mutating func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError) {
        let ended = try endedRegistrations(context)
        try groups.drain { _, group throws(AnalysisError) in
            let lastRemoved = Self.isOwnerWide(group.first)
                ? group.first.ownerID.flatMap { ended[$0] }.flatMap { Self.lastRemoved(before: group.first.seq, in: $0) }
                : nil
            let (explanation, because, explained) = try explain(group.first, lastRemoved: lastRemoved, context)
            let seqs = [group.first.seq] + explained + group.repeatSeqs
            let site = context.site(group.first.callSiteID)
            let siteInFunction = context.siteInFunction(group.first.callSiteID)
            let owner = context.catalog.objectName(group.first.ownerID)
            let repeated = group.count > 1 ? " (\(group.count) times, first at seq \(group.first.seq))" : " (seq \(group.first.seq))"
            var evidence = ["seq \(group.first.seq): removal requested at \(siteInFunction)" + (owner.map { " for \($0)" } ?? "")]
            evidence += because
            if group.count > 1 {
                evidence.append("requested \(times(group.count)) in all: seqs " + seqs.prefix(Self.listedSeqs).map(String.init).joined(separator: ", ") + (group.count > Self.listedSeqs ? ", …" : ""))
            }
            emit(Finding(
                rule: Self.rule, sessionID: context.session.id,
                message: "Removal at \(siteInFunction)\(repeated) matched no live registration: \(explanation).",
                evidence: evidence, seqs: Array(seqs.prefix(Self.listedSeqs)), callSites: [site], owners: owner.map { [$0] } ?? [],
                channel: context.catalog.channelName(group.first.channelID), count: group.count,
                fix: group.first.ownedLive != 0
                    ? "Keep the token addObserver(forName:object:queue:using:) returned and pass it to removeObserver(_:) (removeObserver(self) does not remove block observers), or let the observer's owner going away remove it."
                    : group.first.registrationID.flatMap { missed[$0] } == nil ? nil
                    : "Call removeObserver(token) on the center whose addObserver returned the token (keep that center with the token); removing it elsewhere leaves the block registered."
            ))
        }
    }
}
