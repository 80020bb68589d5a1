extension Rule {
    /// OJ009 feedback-loop: see `FeedbackLoopChecker.rule`.
    package static var feedbackLoop: Rule { FeedbackLoopChecker.rule }
}

/// OJ009: a change posted, through callbacks, while a change of the same channel was
/// being delivered on the same thread.
final class FeedbackLoopChecker: RuleChecker {
    /// OJ009: the rule this checker decides, described next to its logic.
    static let rule = Rule(
        code: "OJ009", name: "feedback-loop", severities: [.warning],
        summary: "A change caused, through callbacks, another change of the same channel.",
        details: """
            A change was posted from inside a callback that was itself delivering a change of
            the same channel (directly, or through a chain of other channels: A -> B -> A). The
            finding shows the chain, the deepest nesting and the call site of the re-entrant
            post.
            """,
        fix: "Do not set the observed value from its own callback; compare before setting, or break the cycle with .onlyWhenChanged."
    )

    struct Group {
        var firstSeq: Int64
        /// The channels from the first change to its re-entry; -1 for levels not seen.
        var chain: [Int64]
        /// How many levels below the first change the re-entry happened.
        var levels: Int
        var siteID: Int64?
        var maxDepth: Int
        var count = 1

        /// One more re-entry, at `depth`.
        mutating func add(depth: Int) {
            count += 1
            maxDepth = max(maxDepth, depth)
        }
    }

    /// One change on a thread's dispatch stack.
    struct Level {
        var depth: Int
        var channel: Int64
    }

    /// Per thread: the latest change at each depth seen (the dispatch stack), by depth.
    /// Only depths that occur are kept, so a journal claiming a depth of two billion costs
    /// one entry, not two billion.
    private var stacks: [Int64: [Level]] = [:]
    private var groups: [Int64: Group] = [:]

    func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        guard event.kind == .changed, let channel = event.channelID else { return }
        var stack = stacks[event.thread] ?? []
        let depth = max(event.depth, 0)
        while let top = stack.last, top.depth >= depth { stack.removeLast() }
        if depth > 0, let start = stack.firstIndex(where: { $0.channel == channel }) {
            if groups[channel] != nil {
                groups[channel]?.add(depth: depth)
            } else {
                groups[channel] = Group(
                    firstSeq: event.seq, chain: Self.chain(stack[start...], to: depth) + [channel],
                    levels: depth - stack[start].depth, siteID: event.callSiteID, maxDepth: depth
                )
            }
        }
        stack.append(Level(depth: depth, channel: channel))
        stacks[event.thread] = stack
    }

    /// The channels of `levels` down to `depth`, with -1 for a parent this journal did not
    /// show; a run of missing levels shows as one.
    static func chain(_ levels: ArraySlice<Level>, to depth: Int) -> [Int64] {
        var chain: [Int64] = []
        for (offset, level) in zip(levels.indices, levels) {
            chain.append(level.channel)
            let next = offset + 1 < levels.endIndex ? levels[offset + 1].depth : depth
            // A journal may claim any depth: Int.max + 1 would trap.
            if level.depth < .max, next > level.depth + 1 { chain.append(-1) }
        }
        return chain
    }

    func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError) {
        groups.sorted { $0.value.firstSeq < $1.value.firstSeq }.forEach { channelID, group in
            let channel = context.channel(channelID)
            let chain = group.chain.map { $0 < 0 ? "?" : context.channel($0) }.joined(separator: " → ")
            let site = group.siteID.map { context.site($0) }
            let posted = site.map { ", posted at \($0)" } ?? ""
            emit(Finding(
                rule: Self.rule, sessionID: context.session.id,
                message: "\(channel) was changed again from inside its own delivery \(times(group.count)), up to depth \(group.maxDepth) (chain \(chain); first at seq \(group.firstSeq)\(posted)).",
                evidence: [
                    "seq \(group.firstSeq): re-entrant change at depth \(group.levels)\(posted)",
                    "chain: \(chain)",
                ],
                seqs: [group.firstSeq], callSites: site.map { [$0] } ?? [], channel: channel, count: group.count
            ))
        }
    }
}
