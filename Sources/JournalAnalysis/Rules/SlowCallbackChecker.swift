/// OJ010: deliveries longer than the frame budget.
final class SlowCallbackChecker: RuleChecker {
    struct Group {
        var firstSeq: Int64
        var channelID: Int64?
        var ownerID: Int64?
        var maxNs: Int64
        var maxSeq: Int64
        var count = 1
    }

    private var groups: [Int64: Group] = [:]

    func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        guard event.kind == .delivered, let duration = event.durationNs, duration > context.options.slowCallbackBudgetNs,
              let id = event.registrationID
        else { return }
        guard groups[id] != nil else {
            groups[id] = Group(
                firstSeq: event.seq, channelID: event.channelID, ownerID: event.ownerID, maxNs: duration, maxSeq: event.seq
            )
            return
        }
        groups[id]!.count += 1
        if duration > groups[id]!.maxNs {
            groups[id]!.maxNs = duration
            groups[id]!.maxSeq = event.seq
        }
    }

    func finish(_ context: DiagnosisContext) throws(AnalysisError) -> [Finding] {
        var findings: [Finding] = []
        let budget = milliseconds(context.options.slowCallbackBudgetNs)
        for (id, group) in groups.sorted(by: { $0.value.firstSeq < $1.value.firstSeq }) {
            let (owner, channel, site) = try context.callback(id, owner: group.ownerID, channel: group.channelID)
            findings.append(Finding(
                rule: .slowCallback, sessionID: context.session.id,
                message: "\(owner)'s callback on \(channel) (\(site)) ran longer than \(budget) \(times(group.count)), up to \(milliseconds(group.maxNs)) (first at seq \(group.firstSeq)).",
                evidence: [
                    "seq \(group.firstSeq): first delivery over \(budget)",
                    "seq \(group.maxSeq): the slowest, \(milliseconds(group.maxNs))",
                ],
                seqs: [group.firstSeq, group.maxSeq], callSites: [site], owners: [owner], channel: channel,
                count: group.count
            ))
        }
        return findings
    }
}
