/// Runs the whole rule catalog over sessions of a journal in one streaming pass each.
package enum Diagnoser {
    /// Every finding of `session`, ordered by first sequence number, then rule code.
    package static func diagnose(
        _ reader: JournalReader, session: SessionSummary, options: DiagnosisOptions = DiagnosisOptions()
    ) throws(AnalysisError) -> [Finding] {
        // A session with no rows has no names and no events to read: a journal may hold
        // hundreds of thousands of them, and `diagnose --all` must not query each.
        let isEmpty = session.eventCount == 0 && session.registrationCount == 0
        let context = DiagnosisContext(
            reader: reader, session: session,
            catalog: isEmpty ? JournalCatalog(sessionID: session.id) : try reader.catalog(session: session.id),
            options: options
        )
        var checkers = RuleCatalog.makeCheckers()
        var tracker = DispatchTracker()
        var failure: AnalysisError?
        if !isEmpty {
            try reader.forEachEvent(session: session.id) { event in
                do throws(AnalysisError) {
                    if let done = tracker.feed(event) {
                        for checker in checkers { checker.completed(done, context) }
                    }
                    for checker in checkers { try checker.observe(event, context) }
                    try context.live.apply(event) { id throws(AnalysisError) in try context.storedRegistration(id) }
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
        }
        if let failure { throw failure }
        for done in tracker.finish() {
            for checker in checkers { checker.completed(done, context) }
        }
        var findings: [Finding] = []
        // Each checker is released once its findings are made: its groups (one per
        // registration for some rules) need not stay alive beside every finding.
        var unfinished = Array(checkers.reversed())
        checkers = []
        while let checker = unfinished.popLast() { findings += try checker.finish(context) }
        // Messages say `File.swift:42`; the structured call sites say `Module/File.swift:42`,
        // the spelling of the SQL views and exports, which fingerprints are made of.
        let qualified = context.catalog.qualifiedCallSites()
        // In place: a long session has tens of thousands of findings, and a mapped or
        // sorted copy would hold them twice at the peak.
        for index in findings.indices { findings[index] = findings[index].qualifyingCallSites(qualified) }
        findings.sort { ($0.firstSeq, $0.rule.code) < ($1.firstSeq, $1.rule.code) }
        return findings
    }
}
