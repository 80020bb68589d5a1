/// OJ009: a change posted, through callbacks, while a change of the same channel was
/// being delivered on the same thread.
final class FeedbackLoopChecker: RuleChecker {
    struct Group {
        var firstSeq: Int64
        var chain: [Int64]
        var siteID: Int64?
        var maxDepth: Int
        var count = 1
    }

    /// Per thread: the channel of the latest change at each depth (the dispatch stack).
    private var stacks: [Int64: [Int64]] = [:]
    private var groups: [Int64: Group] = [:]

    func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        guard event.kind == .changed, let channel = event.channelID else { return }
        var stack = stacks[event.thread] ?? []
        let depth = max(event.depth, 0)
        if stack.count > depth { stack.removeSubrange(depth...) }
        while stack.count < depth { stack.append(-1) }  // a parent this journal did not see
        if depth > 0, let start = stack.firstIndex(of: channel) {
            if groups[channel] != nil {
                groups[channel]!.count += 1
                groups[channel]!.maxDepth = max(groups[channel]!.maxDepth, depth)
            } else {
                groups[channel] = Group(
                    firstSeq: event.seq, chain: Array(stack[start...]) + [channel], siteID: event.callSiteID,
                    maxDepth: depth
                )
            }
        }
        stack.append(channel)
        stacks[event.thread] = stack
    }

    func finish(_ context: DiagnosisContext) -> [Finding] {
        groups.sorted { $0.value.firstSeq < $1.value.firstSeq }.map { channelID, group in
            let channel = context.channel(channelID)
            let chain = group.chain.map { $0 < 0 ? "?" : context.channel($0) }.joined(separator: " → ")
            let site = group.siteID.map { context.site($0) }
            let posted = site.map { ", posted at \($0)" } ?? ""
            return Finding(
                rule: .feedbackLoop, sessionID: context.session.id,
                message: "\(channel) was changed again from inside its own delivery \(times(group.count)), up to depth \(group.maxDepth) (chain \(chain); first at seq \(group.firstSeq)\(posted)).",
                evidence: [
                    "seq \(group.firstSeq): re-entrant change at depth \(group.chain.count - 1)\(posted)",
                    "chain: \(chain)",
                ],
                seqs: [group.firstSeq], callSites: site.map { [$0] } ?? [], channel: channel, count: group.count
            )
        }
    }
}
