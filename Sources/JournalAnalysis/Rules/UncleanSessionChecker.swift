/// OJ011: a session without a clean end, with its last events.
final class UncleanSessionChecker: RuleChecker {
    func finish(_ context: DiagnosisContext) throws(AnalysisError) -> [Finding] {
        let session = context.session
        guard !session.cleanEnd else { return [] }
        let last = try context.reader.lastEvents(session: session.id, count: 5)
        guard let final = last.last else {
            return [Finding(
                rule: .uncleanSession, sessionID: session.id,
                message: "Session \(session.id) (\(quoted(session.label, limit: 60))) did not end cleanly and recorded no events.",
                count: 0
            )]
        }
        let evidence = last.map { event in
            var line = "seq \(event.seq): \(event.kindText)"
            if let channel = context.catalog.channelName(event.channelID) { line += " \(channel)" }
            if let owner = context.catalog.objectName(event.ownerID) { line += " \(owner)" }
            return line
        }
        var what = final.kindText
        if let channel = context.catalog.channelName(final.channelID) { what += " \(channel)" }
        return [Finding(
            rule: .uncleanSession, sessionID: session.id,
            message: "Session \(session.id) (\(quoted(session.label, limit: 60))) did not end cleanly; its last recorded event is seq \(final.seq) (\(what)).",
            evidence: evidence, seqs: last.map(\.seq), count: 1
        )]
    }
}
