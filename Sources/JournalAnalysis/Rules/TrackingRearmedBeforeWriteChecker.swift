extension Rule {
    /// OJ017 tracking-rearmed-before-write: see `TrackingRearmedBeforeWriteChecker.rule`.
    package static var trackingRearmedBeforeWrite: Rule { TrackingRearmedBeforeWriteChecker.rule }
}

/// OJ017: a withObservationTracking armed again synchronously inside its own onChange. Its
/// onChange runs in the write's willSet, before the new value is stored, so the new arming's
/// apply reads the value being replaced: what it renders is always one change behind.
struct TrackingRearmedBeforeWriteChecker: RuleChecker {
    /// OJ017: the rule this checker decides, described next to its logic.
    static let rule = Rule(
        code: "OJ017", name: "tracking-rearmed-before-write", severities: [.warning],
        summary: "A withObservationTracking was armed again inside its own onChange, before the write it heard was made: apply read the old value, so what it shows is one change behind.",
        details: """
            onChange runs on the writing thread before the property changes (willSet). Calling
            the tracking function from onChange directly runs apply right there: it reads the
            value that is about to be replaced (a label set to 18° while the model becomes
            21°), and the next write fires the new arming, so the screen always shows the
            previous reading. The journal shows it as a new arming of the site made on the
            firing write's thread while that firing's onChange was still running (before its
            delivery was recorded). Not reported: a tracking armed again after the write (onChange
            enqueues the call on the main actor or a queue, which runs once the write is done),
            or one armed again on another thread (OJ016 judges that).
            """,
        fix: "Arm the tracking again after the write: in onChange, enqueue the call that tracks again (Task { @MainActor in self.observe() } or DispatchQueue.main.async { self.observe() }) instead of calling it directly; or follow every change with Observations { … } in a for await loop."
    )

    /// A tracking site armed again before its writes.
    struct Site {
        var owner: Int64?
        var callSite: Int64?
        var firstSeq: Int64
        var firingSeq: Int64
        var value: String?
        var count = 1
    }

    /// A firing whose onChange is running: the change's thread, seq and value.
    struct Firing {
        var thread: Int64
        var isMain: Bool
        var seq: Int64
        var value: String?
    }

    /// Per tracking channel, the firing whose delivery is not recorded yet.
    private var firing: [Int64: Firing] = [:]
    private var sites: [Int64: Site] = [:]

    mutating func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        guard let channel = event.channelID, TrackingSite.isTracking(channel, context) else { return }
        switch event.kind {
        case .changed:
            // A firing only while an arming is live; later changes reach nobody.
            if !context.live.live(on: channel).isEmpty {
                firing[channel] = Firing(thread: event.thread, isMain: event.isMain, seq: event.seq, value: event.newValue)
            } else {
                firing[channel] = nil
            }
        case .delivered, .removed:
            // The firing's onChange returned (its delivery is recorded once it has), or its
            // arming was removed before onChange ran (the owner was gone).
            firing[channel] = nil
        case .registered:
            guard let fired = firing[channel], fired.thread == event.thread, fired.isMain == event.isMain,
                  let row = try context.registration(event.registrationID), !row.options.isEmpty
            else { return }
            if sites[channel] != nil { sites[channel]?.count += 1 } else {
                sites[channel] = Site(
                    owner: row.ownerID, callSite: row.callSiteID, firstSeq: event.seq, firingSeq: fired.seq,
                    value: fired.value
                )
            }
        default:
            break
        }
    }

    mutating func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError) {
        for (channel, site) in sites.sorted(by: { $0.value.firstSeq < $1.value.firstSeq }) {
            let name = TrackingSite.name(owner: site.owner, site: site.callSite, context)
            let what = site.value.map { " (\($0))" } ?? ""
            emit(Finding(
                rule: Self.rule, sessionID: context.session.id,
                message: "\(name) was armed again inside its own onChange, before the write that fired it was made, \(times(site.count)) (first at seq \(site.firstSeq)): each time apply read the value being replaced, so what it shows is one change behind.",
                evidence: [
                    "seq \(site.firingSeq): a write fired the tracking\(what); onChange ran before the new value was stored",
                    "seq \(site.firstSeq): armed again at \(context.site(site.callSite)) on the same thread, inside that onChange",
                ],
                seqs: [site.firingSeq, site.firstSeq], callSites: [context.site(site.callSite)],
                owners: site.owner.map { [context.owner($0)] } ?? [], channel: context.channel(channel), count: site.count
            ))
        }
    }
}
