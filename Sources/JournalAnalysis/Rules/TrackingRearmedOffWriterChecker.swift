extension Rule {
    /// OJ016 tracking-rearmed-off-writer: see `TrackingRearmedOffWriterChecker.rule`.
    package static var trackingRearmedOffWriter: Rule { TrackingRearmedOffWriterChecker.rule }
}

/// OJ016: a withObservationTracking re-armed on another thread than the one whose write
/// fired it: its apply reads the state while that thread writes it.
struct TrackingRearmedOffWriterChecker: RuleChecker {
    /// OJ016: the rule this checker decides, described next to its logic.
    static let rule = Rule(
        code: "OJ016", name: "tracking-rearmed-off-writer", severities: [.warning],
        summary: "A withObservationTracking fired by a write on one thread was armed again on another: its apply reads the state while the writer's thread may be writing it.",
        details: """
            onChange runs on the thread that writes, before the write (willSet). Arming the
            tracking again on another thread (onChange dispatching to the main queue while the
            model is written from a background thread) runs apply there, reading properties
            that the writer's thread is changing at the same time: @Observable classes are not
            thread-safe, and changes made between the firing and the re-arm reach nobody. The
            finding names both threads and the re-arms. Reported when one of the two is main
            (the main thread or the main queue) and the other is not: two background threads
            may be one serial queue, whose blocks run on any worker thread, so they are not told
            apart. Not reported: a tracking written and re-armed on main.
            """,
        fix: "Write the observed state on the thread or actor that tracks it (make the model @MainActor and set it there), and arm the tracking again after the write, from a task or block enqueued on that actor (Task { @MainActor in self.observe() }): not synchronously inside onChange, which runs before the write, so apply would read the old value."
    )

    struct Site {
        var owner: Int64?
        var callSite: Int64?
        var firstSeq: Int64
        var writer: Int64
        var rearmThread: Int64
        var count = 1
    }

    /// Per tracking channel: the thread of the write that fired its latest arming (`nil`
    /// while armed, or before any firing); main counts as thread 0.
    private var firedBy: [Int64: Int64] = [:]
    /// Per tracking channel, whether the latest change was a firing (delivered next).
    private var pendingFire: [Int64: Int64] = [:]
    private var sites: [Int64: Site] = [:]

    private static func thread(_ event: EventRow) -> Int64 { event.isOnMain ? 0 : event.thread }

    /// Whether a write on `writer` and a re-arm on `rearm` are certainly on different
    /// threads: one on main and the other not. Two background threads may be one serial
    /// queue, which runs its blocks on whichever worker thread is free, so they are never
    /// told apart.
    private static func differ(_ writer: Int64, _ rearm: Int64) -> Bool { (writer == 0) != (rearm == 0) }

    mutating func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        guard let channel = event.channelID, TrackingSite.isTracking(channel, context) else { return }
        switch event.kind {
        case .changed:
            // A firing only while an arming is live; later changes reach nobody.
            if !context.live.live(on: channel).isEmpty { pendingFire[channel] = Self.thread(event) }
        case .delivered:
            if let writer = pendingFire.removeValue(forKey: channel) { firedBy[channel] = writer }
        case .registered:
            // Armed again inside onChange (before its delivery is recorded), or after it.
            let writer = pendingFire.removeValue(forKey: channel) ?? firedBy[channel]
            firedBy[channel] = nil
            guard let writer, Self.differ(writer, Self.thread(event)),
                  let row = try context.registration(event.registrationID), !row.options.isEmpty
            else { return }
            if sites[channel] != nil { sites[channel]?.count += 1 } else {
                sites[channel] = Site(
                    owner: row.ownerID, callSite: row.callSiteID, firstSeq: event.seq, writer: writer,
                    rearmThread: Self.thread(event)
                )
            }
        default:
            break
        }
    }

    mutating func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError) {
        func threadName(_ thread: Int64) -> String { thread == 0 ? "main" : "thread \(thread)" }
        for (channel, site) in sites.sorted(by: { $0.value.firstSeq < $1.value.firstSeq }) {
            let name = TrackingSite.name(owner: site.owner, site: site.callSite, context)
            emit(Finding(
                rule: Self.rule, sessionID: context.session.id,
                message: "\(name) was fired by a write on \(threadName(site.writer)) and armed again on \(threadName(site.rearmThread)) \(times(site.count)) (first at seq \(site.firstSeq)): its apply reads the state while \(threadName(site.writer)) writes it.",
                evidence: [
                    "seq \(site.firstSeq): armed again on \(threadName(site.rearmThread)) at \(context.site(site.callSite))",
                    "the firing write ran on \(threadName(site.writer))",
                ],
                seqs: [site.firstSeq], callSites: [context.site(site.callSite)],
                owners: site.owner.map { [context.owner($0)] } ?? [], channel: context.channel(channel), count: site.count
            ))
        }
    }
}
