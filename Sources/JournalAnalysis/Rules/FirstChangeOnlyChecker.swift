extension Rule {
    /// OJ014 first-change-only: see `FirstChangeOnlyChecker.rule`.
    package static var firstChangeOnly: Rule { FirstChangeOnlyChecker.rule }
}

/// OJ014: a Swift Observation tracking fired once and was never armed again, while what it
/// read kept changing: the mirror of last-callback-wins.
struct FirstChangeOnlyChecker: RuleChecker {
    /// OJ014: the rule this checker decides, described next to its logic.
    static let rule = Rule(
        code: "OJ014", name: "first-change-only", severities: [.warning],
        summary: "A withObservationTracking fired once and was never armed again while the properties it read kept changing: only the first change reached it.",
        details: """
            withObservationTracking's onChange runs once: the tracking is over after the first
            change of a property apply read, and code that does not arm it again (calling the
            tracking function from onChange) hears nothing more. Journals recorded by
            ObservationJournal 0.2.0 (which read Observation's SPI) keep the changes of what
            the last arming read after it fired, while its owner lives; the finding lists them
            as the changes the owner missed. Journals recorded since are built on
            Observation's public API, which says nothing of the changes after a firing: they
            hold the firing only, and this rule stays silent on them (a tracking meant to fire
            once looks the same). Not reported: a tracking armed again after firing (the new
            arming reads the current state), or one whose properties never changed again, or
            whose owner was deallocated, or a change made while another arming of the same
            site is live (two armings fired by one write, as nested trackings re-run).
            """,
        fix: TrackingSite.rearmFix
    )

    /// A site that fired and has not been armed again.
    struct Site {
        var owner: Int64?
        var callSite: Int64?
        var armedSeq: Int64
        var firedSeq: Int64?
        var missed: [Int64] = []
        var missedCount = 0
        var lastValue: String?
    }

    /// Per tracking channel, its state since its latest arming.
    private var sites: [Int64: Site] = [:]
    /// The live armings of each tracking channel: a site armed twice before it fires (a
    /// nested tracking run again) has two, and one write fires both, each recording its own
    /// change.
    private var armed: [Int64: Set<Int64>] = [:]

    mutating func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        guard let channel = event.channelID, TrackingSite.isTracking(channel, context) else { return }
        switch event.kind {
        case .registered:
            guard let row = try context.registration(event.registrationID) else { return }
            armed[channel, default: []].insert(row.id)
            sites[channel] = Site(owner: row.ownerID, callSite: row.callSiteID, armedSeq: event.seq)
        case .removed:
            if let id = event.registrationID, armed[channel]?.remove(id) != nil, armed[channel]?.isEmpty == true {
                armed[channel] = nil
            }
        case .delivered:
            guard let id = event.registrationID, armed[channel]?.contains(id) == true, !event.isInitialDelivery else { return }
            if sites[channel]?.firedSeq == nil { sites[channel]?.firedSeq = event.seq }
        case .changed:
            guard armed[channel] == nil, sites[channel]?.firedSeq != nil else { return }
            sites[channel]?.missedCount += 1
            if (sites[channel]?.missed.count ?? 0) < 10 { sites[channel]?.missed.append(event.seq) }
            sites[channel]?.lastValue = event.newValue
        default:
            break
        }
    }

    mutating func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError) {
        for (channel, site) in sites.sorted(by: { $0.value.armedSeq < $1.value.armedSeq }) {
            guard let fired = site.firedSeq, site.missedCount > 0, let firstMissed = site.missed.first else { continue }
            let name = TrackingSite.name(owner: site.owner, site: site.callSite, context)
            let seqs = site.missed.map(String.init).joined(separator: ", ") + (site.missedCount > site.missed.count ? ", …" : "")
            let what = site.lastValue.map { " (\($0))" } ?? ""
            emit(Finding(
                rule: Self.rule, sessionID: context.session.id,
                message: "\(name) fired once (seq \(fired)) and was never armed again: it missed \(plural(site.missedCount, "later change")) of what it read\(what), first at seq \(firstMissed).",
                evidence: [
                    "seq \(site.armedSeq): armed at \(context.site(site.callSite))",
                    "seq \(fired): onChange ran; the tracking ended",
                    "missed: seqs \(seqs)",
                ],
                seqs: [site.armedSeq, fired] + site.missed, callSites: [context.site(site.callSite)],
                owners: site.owner.map { [context.owner($0)] } ?? [], channel: context.channel(channel),
                count: site.missedCount
            ))
        }
    }
}
