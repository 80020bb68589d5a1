extension Rule {
    /// OJ015 tracking-reads-nothing: see `TrackingReadsNothingChecker.rule`.
    package static var trackingReadsNothing: Rule { TrackingReadsNothingChecker.rule }
}

/// OJ015: a withObservationTracking whose apply read no observable property.
struct TrackingReadsNothingChecker: RuleChecker {
    /// OJ015: the rule this checker decides, described next to its logic.
    static let rule = Rule(
        code: "OJ015", name: "tracking-reads-nothing", severities: [.warning],
        summary: "A withObservationTracking's apply read no observable property, so its onChange can never run.",
        details: """
            Swift Observation tracks what apply reads from @Observable objects while it runs.
            An apply that reads none (a value read before the call and captured, a property
            marked @ObservationIgnored, a model that is not @Observable, a read made on another
            thread or in a Task started inside apply) installs nothing: onChange never runs and
            the code never hears of a change. The journal records such an arming as a
            registration asking for nothing (empty options), released at once.
            """,
        fix: "Read the @Observable properties inside apply itself (not before the call, not in a Task or on another thread started from it), and check that the model is @Observable and the properties are not @ObservationIgnored."
    )

    struct Site {
        var owner: Int64
        var callSite: Int64
        var firstSeq: Int64
        var count = 1
    }

    private var sites: [Int64: Site] = [:]

    mutating func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        guard event.kind == .registered, let channel = event.channelID, TrackingSite.isTracking(channel, context),
              let row = try context.registration(event.registrationID), row.options.isEmpty
        else { return }
        let key = row.callSiteID
        if sites[key] != nil { sites[key]?.count += 1 } else {
            sites[key] = Site(owner: row.ownerID, callSite: row.callSiteID, firstSeq: event.seq)
        }
    }

    mutating func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError) {
        for site in sites.values.sorted(by: { $0.firstSeq < $1.firstSeq }) {
            let name = TrackingSite.name(owner: site.owner, site: site.callSite, context)
            emit(Finding(
                rule: Self.rule, sessionID: context.session.id,
                message: "\(name) read no observable property (\(times(site.count)), first at seq \(site.firstSeq)): its onChange can never run.",
                evidence: ["seq \(site.firstSeq): armed at \(context.site(site.callSite)), tracking nothing"],
                seqs: [site.firstSeq], callSites: [context.site(site.callSite)], owners: [context.owner(site.owner)],
                count: site.count
            ))
        }
    }
}
