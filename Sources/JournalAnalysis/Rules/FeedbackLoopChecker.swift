extension Rule {
    /// OJ009 feedback-loop: see `FeedbackLoopChecker.rule`.
    package static var feedbackLoop: Rule { FeedbackLoopChecker.rule }
}

/// OJ009: a change posted, through callbacks, while a change of the same channel was
/// being delivered on the same thread.
struct FeedbackLoopChecker: RuleChecker {
    /// OJ009: the rule this checker decides, described next to its logic.
    static let rule = Rule(
        code: "OJ009", name: "feedback-loop", severities: [.warning],
        summary: "A change caused, through callbacks, another change of the same channel.",
        details: """
            A change was posted from inside a callback that was itself delivering a change of
            the same channel (directly, or through a chain of other channels: A -> B -> A). The
            finding shows the chain, the deepest nesting and the call site of the re-entrant
            post, and the callbacks that made the chain: each one's owner and registration site
            and where it posted the next change (a view <-> model binding that echoes names
            both the view and the model).
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
        /// The callbacks of the chain, one per level from the first change: the one that
        /// delivered that level's change and posted the next. Filled in as their deliveries
        /// are recorded (a delivery is recorded when its callback returns, after what it
        /// posted).
        var links: [Link] = []

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
        var siteID: Int64?
    }

    /// A callback in a chain: whose, registered where, and where it posted the next change.
    struct Link {
        var ownerID: Int64?
        var registrationID: Int64?
        var postSiteID: Int64?
    }

    /// A delivery still to be seen: the callback on `thread` delivering a change of
    /// `channel` at `depth` that contained the chain's next change.
    struct Awaited: Hashable {
        var thread: Int64
        var depth: Int
        var channel: Int64
    }

    /// Per thread: the latest change at each depth seen (the dispatch stack), by depth.
    /// Only depths that occur are kept, so a journal claiming a depth of two billion costs
    /// one entry, not two billion.
    private var stacks = IDMap<[Level]>()
    private var groups: [Int64: Group] = [:]
    /// The callbacks not yet seen returning, per place: the group (by channel) and link.
    /// Only for a group's first re-entry, so bounded by the groups.
    private var awaited: [Awaited: [(group: Int64, link: Int)]] = [:]

    mutating func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        if event.kind == .delivered {
            attribute(event)
            return
        }
        guard event.kind == .changed, let channel = event.channelID else { return }
        // Taken out while it changes, so that the change copies nothing.
        var stack = stacks.removeValue(forKey: event.thread) ?? []
        let depth = max(event.depth, 0)
        while let top = stack.last, top.depth >= depth { stack.removeLast() }
        if depth > 0, let start = stack.firstIndex(where: { $0.channel == channel }) {
            if groups[channel] != nil {
                groups[channel]?.add(depth: depth)
            } else {
                var group = Group(
                    firstSeq: event.seq, chain: Self.chain(stack[start...], to: depth) + [channel],
                    levels: depth - stack[start].depth, siteID: event.callSiteID, maxDepth: depth
                )
                let levels = Array(stack[start...])
                for (index, level) in levels.enumerated() {
                    let next = index + 1 < levels.count ? levels[index + 1] : Level(depth: depth, channel: channel, siteID: event.callSiteID)
                    // A level the journal skipped: the callback that posted `next` is unknown.
                    guard next.depth == level.depth + 1 else { continue }
                    group.links.append(Link(postSiteID: next.siteID))
                    let place = Awaited(thread: event.thread, depth: level.depth, channel: level.channel)
                    awaited[place, default: []].append((channel, group.links.count - 1))
                }
                groups[channel] = group
            }
        }
        stack.append(Level(depth: depth, channel: channel, siteID: event.callSiteID))
        stacks[event.thread] = stack
    }

    /// Names the callback a chain was waiting for: the first delivery at its place after
    /// the re-entrant change is the callback it happened in.
    private mutating func attribute(_ event: EventRow) {
        guard !awaited.isEmpty, let channel = event.channelID,
              let waiting = awaited.removeValue(forKey: Awaited(thread: event.thread, depth: max(event.depth, 0), channel: channel))
        else { return }
        for (group, link) in waiting {
            groups[group]?.links[link].ownerID = event.ownerID
            groups[group]?.links[link].registrationID = event.registrationID
        }
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

    mutating func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError) {
        for (channelID, group) in groups.sorted(by: { $0.value.firstSeq < $1.value.firstSeq }) {
            let channel = context.channel(channelID)
            let chain = group.chain.map { $0 < 0 ? "?" : context.channel($0) }.joined(separator: " → ")
            let site = group.siteID.map { context.site($0) }
            let posted = site.map { ", posted at \($0)" } ?? ""
            var evidence = [
                "seq \(group.firstSeq): re-entrant change at depth \(group.levels)\(posted)",
                "chain: \(chain)",
            ]
            var owners: [String] = []
            var sites: [String] = []
            var callbacks: [String] = []
            for link in group.links {
                guard let ownerID = link.ownerID else { continue }
                let owner = context.owner(ownerID)
                let registered = try link.registrationID.map { id throws(AnalysisError) in
                    try context.callback(id, owner: ownerID).site
                }
                let postSite = link.postSiteID.map { context.site($0) }
                owners.append(owner)
                sites += [registered, postSite].compactMap { $0 }
                callbacks.append(owner + "'s callback" + (registered.map { " (\($0))" } ?? ""))
                evidence.append(
                    "\(owner)'s callback" + (registered.map { " registered at \($0)" } ?? "")
                        + (postSite.map { " posted the next change at \($0)" } ?? " posted the next change")
                )
            }
            let through = callbacks.isEmpty ? "" : ", through " + callbacks.joined(separator: " → ")
            emit(Finding(
                rule: Self.rule, sessionID: context.session.id,
                message: "\(channel) was changed again from inside its own delivery \(times(group.count)), up to depth \(group.maxDepth) (chain \(chain); first at seq \(group.firstSeq)\(posted)\(through)).",
                evidence: evidence,
                seqs: [group.firstSeq], callSites: (site.map { [$0] } ?? []) + sites, owners: owners, channel: channel,
                count: group.count
            ))
        }
    }
}
