/// Runs the whole rule catalog over sessions of a journal in one streaming pass each.
package enum Diagnoser {
    /// Every finding of `session`, ordered by first sequence number, then rule code.
    package static func diagnose(
        _ reader: JournalReader, session: SessionSummary, options: DiagnosisOptions = DiagnosisOptions()
    ) throws(AnalysisError) -> [Finding] {
        let spool = FindingSpool()
        try diagnose(reader, session: session, options: options, into: spool)
        var findings: [Finding] = []
        try spool.drain { findings.append($0) }
        return findings
    }

    /// Adds the findings of `session` to `spool` as the next group: `spool.drain` hands
    /// them out ordered by first sequence number, then rule code, without holding them in
    /// memory (a long session has tens of thousands). The events read are added to
    /// `progress` as the pass goes.
    package static func diagnose(
        _ reader: JournalReader, session: SessionSummary, options: DiagnosisOptions = DiagnosisOptions(),
        into spool: FindingSpool, progress: ReadProgress? = nil
    ) throws(AnalysisError) {
        spool.nextGroup()
        // A session with no rows has no names and no events to read: a journal may hold
        // hundreds of thousands of them, and `diagnose --all` must not query each.
        let isEmpty = session.eventCount == 0 && session.registrationCount == 0
        let context = DiagnosisContext(
            reader: reader, session: session,
            catalog: isEmpty ? JournalCatalog(sessionID: session.id) : try reader.catalog(session: session.id),
            options: options
        )
        var tracker = DispatchTracker()
        var failure: AnalysisError?
        var events = 0
        // Each checker is released once its findings are made: its groups (one per
        // registration for some rules) need not stay alive beside every finding. Only
        // `unfinished` holds them past this block.
        var unfinished: [any RuleChecker]
        do {
            var checkers = RuleCheckers()
            if !isEmpty {
                try reader.forEachEvent(session: session.id) { event in
                    events += 1
                    if events % FreedMemory.eventsBetweenReleases == 0 { FreedMemory.release() }
                    if events % ReadProgress.batch == 0 { progress?.add(ReadProgress.batch) }
                    do throws(AnalysisError) {
                        for done in tracker.feed(event) { checkers.completed(done, context) }
                        try checkers.observe(event, context)
                        try context.live.apply(event) { id throws(AnalysisError) in try context.storedRegistration(id) }
                        return true
                    } catch {
                        failure = error
                        return false
                    }
                }
            }
            if let failure { throw failure }
            progress?.add(events % ReadProgress.batch)
            // The findings are made from here on, from what the pass kept, not from what it
            // freed (a short session, of which `--all` may read thousands, has freed little).
            if events >= FreedMemory.eventsBetweenReleases { FreedMemory.release() }
            for done in tracker.finish() { checkers.completed(done, context) }
            unfinished = checkers.all.reversed()
        }
        // Messages say `File.swift:42`; the structured call sites say `Module/File.swift:42`,
        // the spelling of the SQL views and exports; fingerprints are made of their files
        // and functions.
        let qualified = context.catalog.qualifiedCallSites()
        let functions = context.catalog.callSiteFunctions()
        while var checker = unfinished.popLast() {
            try checker.finish(context) { spool.append($0.qualifyingCallSites(qualified, functions: functions)) }
        }
        // A name that could not be read answered `nil`: the verdicts may be wrong.
        if let failure = context.catalog.failure { throw failure }
    }
}
