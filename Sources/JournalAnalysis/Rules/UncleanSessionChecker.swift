extension Rule {
    /// OJ011 unclean-session: see `UncleanSessionChecker.rule`.
    package static var uncleanSession: Rule { UncleanSessionChecker.rule }
}

/// OJ011: a session without a clean end, with its last events.
struct UncleanSessionChecker: RuleChecker {
    /// OJ011: the rule this checker decides, described next to its logic.
    static let rule = Rule(
        code: "OJ011", name: "unclean-session", severities: [.warning],
        summary: "The session did not end cleanly (the process crashed, was killed, or is still recording).",
        details: """
            The session has no clean end: the process crashed or was killed before the journal
            was closed, or it is still recording. The journal holds a consistent prefix of what
            happened; the finding shows the last events recorded.
            """,
        fix: "Close the journal (close() or the session's end) before the process exits; if it crashed, read the last events shown."
    )

    mutating func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError) {
        let session = context.session
        guard !session.cleanEnd else { return }
        let last = try context.reader.lastEvents(session: session.id, count: 5)
        guard let final = last.last else {
            emit(Finding(
                rule: Self.rule, sessionID: session.id,
                message: "Session \(session.id) (\(quoted(session.label, limit: 60))) did not end cleanly and recorded no events.",
                count: 0
            ))
            return
        }
        let evidence = last.map { event in
            var line = "seq \(event.seq): \(event.kindText)"
            if let channel = context.catalog.channelName(event.channelID) { line += " \(channel)" }
            if let owner = context.catalog.objectName(event.ownerID) { line += " \(owner)" }
            return line
        }
        var what = final.kindText
        if let channel = context.catalog.channelName(final.channelID) { what += " \(channel)" }
        emit(Finding(
            rule: Self.rule, sessionID: session.id,
            message: "Session \(session.id) (\(quoted(session.label, limit: 60))) did not end cleanly; its last recorded event is seq \(final.seq) (\(what)).",
            evidence: evidence, seqs: last.map(\.seq), count: 1
        ))
    }
}
