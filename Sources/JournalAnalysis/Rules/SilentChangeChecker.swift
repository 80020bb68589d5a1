import JournalStore

/// OJ012: a change that reached nobody on a channel whose owners had stopped being told
/// without anyone asking: their registrations were replaced, or their tokens released
/// while they lived on. Owners that removed their registrations themselves (explicitly,
/// all at once, or by cancelling the token) asked not to hear more, and owners that were
/// deallocated went away (the documented happy path: the token goes with its owner):
/// neither is counted.
final class SilentChangeChecker: RuleChecker {
    struct LastRemoval {
        var seq: Int64
        var registrationID: Int64
        var reason: String
    }

    /// What was true of the channel when a change was posted.
    struct AtChange {
        /// Owners whose registrations on the channel had ended without their asking.
        var owners: Int
        /// The latest of those endings before it.
        var lastRemoval: LastRemoval?
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

    /// Per channel, the owners whose last registration there ended without their asking,
    /// with that ending. An owner leaves it when it registers again or removes deliberately.
    private var unasked: [Int64: [Int64: LastRemoval]] = [:]
    /// Changes not yet complete, on channels that had such owners when they were posted.
    private var pending: [Int64: AtChange] = [:]
    private var groups: [Int64: Group] = [:]

    func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        switch event.kind {
        case .registered, .replaced:
            guard let channel = event.channelID, let id = event.registrationID else { return }
            if event.kind == .replaced, let old = event.otherRegistrationID,
               let oldOwner = try context.registration(old)?.ownerID {
                unasked[channel, default: [:]][oldOwner] = LastRemoval(seq: event.seq, registrationID: old, reason: JournalRemovalReason.replaced.name)
            }
            if let owner = try context.registration(id)?.ownerID ?? event.ownerID {
                unasked[channel]?[owner] = nil
            }
        case .removed:
            guard let channel = event.channelID, let id = event.registrationID else { return }
            var owner = event.ownerID
            if owner == nil { owner = try context.registration(id)?.ownerID }
            guard let owner else { return }
            if let removal = event.removalReason, Self.deliberate.contains(removal) {
                unasked[channel]?[owner] = nil
            } else {
                unasked[channel, default: [:]][owner] = LastRemoval(seq: event.seq, registrationID: id, reason: event.reason ?? EventKind.removed.name)
            }
        case .changed:
            guard !event.isPrior, let channel = event.channelID, var owners = unasked[channel], !owners.isEmpty
            else { return }
            // An owner deallocated since (a token released in its deinit, a replaced owner
            // that went away) is not waiting to be told anything.
            for owner in owners.keys where context.catalog.isDeallocated(owner, at: event.seq) {
                owners[owner] = nil
            }
            unasked[channel] = owners
            guard !owners.isEmpty else { return }
            pending[event.seq] = AtChange(owners: owners.count, lastRemoval: owners.values.max { $0.seq < $1.seq })
        default:
            break
        }
    }

    func completed(_ change: DispatchTracker.CompletedChange, _ context: DiagnosisContext) {
        let event = change.event
        guard let atChange = pending.removeValue(forKey: event.seq), change.receipts.isEmpty,
              let channel = event.channelID
        else { return }
        if groups[channel] != nil {
            groups[channel]!.count += 1
        } else {
            groups[channel] = Group(firstSeq: event.seq, atFirst: atChange)
        }
    }

    func finish(_ context: DiagnosisContext) throws(AnalysisError) -> [Finding] {
        var findings: [Finding] = []
        for (channelID, group) in groups.sorted(by: { $0.value.firstSeq < $1.value.firstSeq }) {
            let channel = context.channel(channelID)
            var evidence = ["seq \(group.firstSeq): first change that reached nobody"]
            var seqs = [group.firstSeq]
            var ownerNames: [String] = []
            var sites: [String] = []
            if let removal = group.atFirst.lastRemoval, let row = try context.registration(removal.registrationID) {
                let owner = context.owner(row.ownerID)
                let site = context.site(row.callSiteID)
                evidence.append("seq \(removal.seq): the last registration before it, \(owner)'s (\(site)), ended without its owner asking (\(removal.reason))")
                seqs.append(removal.seq)
                ownerNames.append(owner)
                sites.append(site)
            }
            findings.append(Finding(
                rule: .silentChange, sessionID: context.session.id,
                message: "\(channel) changed \(times(group.count)) with nobody to tell, although \(plural(group.atFirst.owners, "owner")) had registered on it and never asked to stop (first at seq \(group.firstSeq)).",
                evidence: evidence, seqs: seqs, callSites: sites, owners: ownerNames, channel: channel, count: group.count
            ))
        }
        return findings
    }
}
