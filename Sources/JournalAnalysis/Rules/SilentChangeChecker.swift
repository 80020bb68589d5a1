/// OJ012: a change that reached nobody on a channel owners had registered on before.
final class SilentChangeChecker: RuleChecker {
    struct LastRemoval {
        var seq: Int64
        var registrationID: Int64
        var reason: String
    }

    /// What was true of the channel when a change was posted.
    struct AtChange {
        /// Owners that had registered on the channel by then.
        var owners: Int
        /// The removal that last took a registration off the channel before it.
        var lastRemoval: LastRemoval?
    }

    struct Group {
        var firstSeq: Int64
        var atFirst: AtChange
        var count = 1
    }

    /// Distinct owners that ever registered, per channel.
    private var owners: [Int64: Set<Int64>] = [:]
    private var lastRemoval: [Int64: LastRemoval] = [:]
    /// Changes not yet complete, on channels that had owners when they were posted.
    private var pending: [Int64: AtChange] = [:]
    private var groups: [Int64: Group] = [:]

    func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        switch event.kind {
        case .registered, .replaced:
            guard let channel = event.channelID, let id = event.registrationID else { return }
            if let owner = try context.registration(id)?.ownerID ?? event.ownerID {
                owners[channel, default: []].insert(owner)
            }
            if event.kind == .replaced, let old = event.otherRegistrationID {
                lastRemoval[channel] = LastRemoval(seq: event.seq, registrationID: old, reason: "replaced")
            }
        case .removed:
            guard let channel = event.channelID, let id = event.registrationID else { return }
            lastRemoval[channel] = LastRemoval(seq: event.seq, registrationID: id, reason: event.reason ?? "removed")
        case .changed:
            guard !event.isPrior, let channel = event.channelID, let registered = owners[channel], !registered.isEmpty
            else { return }
            pending[event.seq] = AtChange(owners: registered.count, lastRemoval: lastRemoval[channel])
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
                evidence.append("seq \(removal.seq): the last registration before it, \(owner)'s (\(site)), went (\(removal.reason))")
                seqs.append(removal.seq)
                ownerNames.append(owner)
                sites.append(site)
            }
            findings.append(Finding(
                rule: .silentChange, sessionID: context.session.id,
                message: "\(channel) changed \(times(group.count)) with nobody to tell, although \(plural(group.atFirst.owners, "owner")) had registered on it (first at seq \(group.firstSeq)).",
                evidence: evidence, seqs: seqs, callSites: sites, owners: ownerNames, channel: channel, count: group.count
            ))
        }
        return findings
    }
}
