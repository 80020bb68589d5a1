/// OJ007: changes with old == new that were delivered anyway.
final class RedundantChangeChecker: RuleChecker {
    struct Group {
        var first: EventRow
        var changes = 0
        var deliveries = 0
        var sites: [Int64] = []
    }

    private var groups: [Int64: Group] = [:]

    func completed(_ change: DispatchTracker.CompletedChange, _ context: DiagnosisContext) {
        let event = change.event
        guard !event.isPrior, let channel = event.channelID, let old = event.oldValue, old == event.newValue else { return }
        let delivered = change.deliveredCount
        guard delivered > 0 else { return }
        if groups[channel] == nil { groups[channel] = Group(first: event) }
        groups[channel]!.changes += 1
        groups[channel]!.deliveries += delivered
        if let site = event.callSiteID, groups[channel]!.sites.count < 5, !groups[channel]!.sites.contains(site) {
            groups[channel]!.sites.append(site)
        }
    }

    func finish(_ context: DiagnosisContext) -> [Finding] {
        groups.values.sorted { $0.first.seq < $1.first.seq }.map { group in
            let channel = context.channel(group.first.channelID)
            let sites = group.sites.map { context.site($0) }
            let posted = sites.first.map { ", posted at \($0)" } ?? ""
            return Finding(
                rule: .redundantChange, sessionID: context.session.id,
                message: "\(channel) was set to the value it already had \(times(group.changes)) (\(quoted(group.first.oldValue)) → \(quoted(group.first.newValue))) and these changes were delivered \(times(group.deliveries)) (first at seq \(group.first.seq)\(posted)).",
                evidence: ["seq \(group.first.seq): \(quoted(group.first.oldValue)) → \(quoted(group.first.newValue))\(posted)"]
                    + ["\(plural(group.changes, "unchanged change")) delivered \(times(group.deliveries)) in all"],
                seqs: [group.first.seq], callSites: sites, channel: channel, count: group.changes
            )
        }
    }
}
