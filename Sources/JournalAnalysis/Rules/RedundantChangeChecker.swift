extension Rule {
    /// OJ007 redundant-change: see `RedundantChangeChecker.rule`.
    package static var redundantChange: Rule { RedundantChangeChecker.rule }
}

/// OJ007: changes with old == new that were delivered anyway.
struct RedundantChangeChecker: RuleChecker {
    /// OJ007: the rule this checker decides, described next to its logic.
    static let rule = Rule(
        code: "OJ007", name: "redundant-change", severities: [.info],
        summary: "Changes whose old and new values were equal were delivered to callbacks.",
        details: """
            Changes whose old and new values were equal (compared as recorded text) were
            delivered to callbacks that then did work for nothing. Prior notifications are not
            counted.
            """,
        fix: "Register with .onlyWhenChanged, or do not post when the value did not change."
    )

    struct Group {
        var first: EventRow
        var changes = 0
        var deliveries = 0
        /// The first five sites posted at, each with the earliest change posted there.
        var firstSites: [(seq: Int64, site: Int64)] = []
        var sites: [Int64] { firstSites.map(\.site) }

        /// One more unchanged change, `event`, delivered `delivered` times (the first five
        /// sites are listed). Changes complete out of order (each when its own dispatch is
        /// done), so the first change and the first sites are the earliest by seq, not the
        /// first completed.
        mutating func add(_ event: EventRow, delivered: Int) {
            changes += 1
            deliveries += delivered
            if event.seq < first.seq { first = event }
            guard let site = event.callSiteID else { return }
            if let index = firstSites.firstIndex(where: { $0.site == site }) {
                guard event.seq < firstSites[index].seq else { return }
                firstSites.remove(at: index)
            }
            firstSites.insert((event.seq, site), at: firstSites.firstIndex { $0.seq > event.seq } ?? firstSites.endIndex)
            if firstSites.count > 5 { firstSites.removeLast() }
        }
    }

    private var groups: [Int64: Group] = [:]

    mutating func completed(_ change: DispatchTracker.CompletedChange, _ context: DiagnosisContext) {
        let event = change.event
        guard !event.isPrior, let channel = event.channelID, let old = event.oldValue, old == event.newValue else { return }
        let delivered = change.deliveredCount
        guard delivered > 0 else { return }
        groups[channel, default: Group(first: event)].add(event, delivered: delivered)
    }

    mutating func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError) {
        groups.values.sorted { $0.first.seq < $1.first.seq }.forEach { group in
            let channel = context.channel(group.first.channelID)
            let sites = group.sites.map { context.site($0) }
            let posted = sites.first.map { ", posted at \($0)" } ?? ""
            emit(Finding(
                rule: Self.rule, sessionID: context.session.id,
                message: "\(channel) was set to the value it already had \(times(group.changes)) (\(quoted(group.first.oldValue)) → \(quoted(group.first.newValue))) and these changes were delivered \(times(group.deliveries)) (first at seq \(group.first.seq)\(posted)).",
                evidence: ["seq \(group.first.seq): \(quoted(group.first.oldValue)) → \(quoted(group.first.newValue))\(posted)"]
                    + ["\(plural(group.changes, "unchanged change")) delivered \(times(group.deliveries)) in all"],
                seqs: [group.first.seq], callSites: sites, channel: channel, count: group.changes
            ))
        }
    }
}
