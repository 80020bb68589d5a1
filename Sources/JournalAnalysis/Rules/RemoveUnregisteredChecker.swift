extension Rule {
    /// OJ003 remove-unregistered: see `RemoveUnregisteredChecker.rule`.
    package static var removeUnregistered: Rule { RemoveUnregisteredChecker.rule }
}

/// OJ003: a removal that matched no live registration.
final class RemoveUnregisteredChecker: RuleChecker {
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

            Not reported: a callback removing itself during a delivery (that removal matches
            its live registration); cancelling a token whose registration the registry had
            removed by itself (owner or subject deallocated, replaced in a single slot): the
            app could not know, and the journal records it as the no-op event
            cancelAfterAutoRemoval.
            """,
        fix: "Remove each registration exactly once, in one place (keep the token and cancel it, or let the owner's deallocation remove it), and check the key's spelling."
    )

    /// The first removal of a group: what `explain` needs of it, resolved when the finding
    /// is made. A long session has one group per registration cancelled twice, so a group
    /// keeps ids, not the event's row and the finding's text.
    struct Removal {
        var seq: Int64
        var callSiteID: Int64?
        var channelID: Int64?
        var ownerID: Int64?
        var registrationID: Int64?
        var detail: String?
        /// The owner's registration removed last when this removal came (for an owner-wide
        /// removal: what it would have removed), found when the session is over.
        var lastRemoved: Int64?
    }

    struct Group {
        var first: Removal
        /// The seqs of the later removals (as many as a finding can list).
        var repeats: [Int64] = []
        var count = 1

        /// One more removal like the first, at `seq` (the first few seqs are kept).
        mutating func add(seq: Int64) {
            count += 1
            if repeats.count < RemoveUnregisteredChecker.listedSeqs - 1 { repeats.append(seq) }
        }
    }

    /// How many sequence numbers a finding lists.
    static let listedSeqs = 10

    struct Key: Hashable {
        var callSite: Int64?
        var channel: Int64?
        var owner: Int64?
        var registration: Int64?
    }

    private var groups: [Key: Group] = [:]

    func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        switch event.kind {
        case .removeUnregistered:
            // A schema-1 journal records a token cancelled after the registry removed its
            // registration by itself as removeUnregistered; schema 2 as the no-op
            // cancelAfterAutoRemoval. Either way not the app's mistake.
            if let id = event.registrationID, let reason = try context.storedRegistration(id)?.removal,
               reason.isAutomatic {
                return
            }
        default:
            return
        }
        let key = Key(
            callSite: event.callSiteID, channel: event.channelID, owner: event.ownerID, registration: event.registrationID
        )
        guard groups[key] == nil else {
            groups[key]?.add(seq: event.seq)
            return
        }
        groups[key] = Group(first: Removal(
            seq: event.seq, callSiteID: event.callSiteID, channelID: event.channelID, ownerID: event.ownerID,
            registrationID: event.registrationID, detail: event.detail
        ))
    }

    /// Whether `removal` removes all of an owner's registrations (no channel, no key named).
    private static func isOwnerWide(_ removal: Removal) -> Bool {
        removal.channelID == nil && removal.detail == nil && removal.ownerID != nil
    }

    /// Sets `lastRemoved` of the owner-wide removals: the owner's registration whose
    /// removal (or replacement) came last before it, from the table in one pass. Kept per
    /// owner while streaming, it held an entry for every owner that ever removed anything,
    /// deallocated ones included (the table has no index by owner, hence the one pass).
    private func resolveLastRemoved(_ context: DiagnosisContext) throws(AnalysisError) {
        var wanted: [Int64: [Key]] = [:]
        for (key, group) in groups where Self.isOwnerWide(group.first) {
            wanted[group.first.ownerID!, default: []].append(key)
        }
        guard !wanted.isEmpty else { return }
        struct Ended: Comparable {
            var removedSeq: Int64
            var id: Int64
            static func < (lhs: Ended, rhs: Ended) -> Bool { (lhs.removedSeq, lhs.id) < (rhs.removedSeq, rhs.id) }
        }
        var ended: [Int64: [Ended]] = [:]
        try context.reader.forEachRegistration(session: context.session.id) { _, row in
            guard wanted[row.ownerID] != nil, let removedSeq = row.removedSeq else { return }
            ended[row.ownerID, default: []].append(Ended(removedSeq: removedSeq, id: row.id))
        }
        // Sorted once per owner and searched per removal: an owner with many removals and
        // many registrations must not cost their product.
        for (owner, keys) in wanted {
            guard let list = ended[owner]?.sorted() else { continue }
            for key in keys {
                let seq = groups[key]!.first.seq
                var low = 0, high = list.count
                while low < high {
                    let middle = (low + high) / 2
                    if list[middle].removedSeq < seq { low = middle + 1 } else { high = middle }
                }
                if low > 0 { groups[key]?.first.lastRemoved = list[low - 1].id }
            }
        }
    }

    /// What the journal knows about the registration the removal aimed at. Reads only what
    /// does not change as the session streams past (the tables, the catalog), and what
    /// `event` kept of the moment (`lastRemoved`): the same whenever it is asked.
    private func explain(_ event: Removal, _ context: DiagnosisContext) throws(AnalysisError) -> (String, [String], [Int64]) {
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
            previous = try event.lastRemoved.flatMap { id throws(AnalysisError) in try context.registration(id) }
            if previous == nil {
                return ("\(context.owner(owner)) had never registered anything", [], [])
            }
        }
        let owner = context.catalog.objectName(event.ownerID ?? previous?.ownerID)
        let channelID = event.channelID ?? previous?.channelID
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
        if let detail = event.detail, !detail.isEmpty { what += " (\(detail))" }
        let subject = owner.map { " for \($0)" } ?? ""
        return ("\(what) was ever observed\(subject): check the key's spelling", [], [])
    }

    func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError) {
        try resolveLastRemoved(context)
        for group in groups.values.sorted(by: { $0.first.seq < $1.first.seq }) {
            let (explanation, because, explained) = try explain(group.first, context)
            let seqs = [group.first.seq] + explained + group.repeats
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
                channel: context.catalog.channelName(group.first.channelID), count: group.count
            ))
        }
    }
}
