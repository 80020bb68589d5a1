extension Rule {
    /// OJ018 sender-filter-never-matched: see `SenderFilterNeverMatchedChecker.rule`.
    package static var senderFilterNeverMatched: Rule { SenderFilterNeverMatchedChecker.rule }
}

/// OJ018: an observer filtering on a sender that never posted while others did: it never ran.
struct SenderFilterNeverMatchedChecker: RuleChecker {
    /// OJ018: the rule this checker decides, described next to its logic.
    static let rule = Rule(
        code: "OJ018", name: "sender-filter-never-matched", severities: [.warning],
        summary: "An observer filtering on one sender never ran while the notification was posted by senders of another type: the filter names the wrong object.",
        details: """
            An observer added with a sender filter (addObserver(forName:object:) with object:
            player, observe(notification:sender:)) hears only posts whose sender is that object.
            When the notification is posted by another object (the player item posts
            AVPlayerItemDidPlayToEndTime, not the player), the observer never runs and nothing
            says so. Reported when, while the observer was live, the notification was posted
            and every post came from another sender, none of them of the filter's type, and the
            observer was never called. The senders come from the posts' recorded values
            (object: PlayerItem#3) or from the posts other observers' filters matched.

            Not reported: an observer that ran at least once; one whose filter's type did post
            the notification in the session (one observer per download task, a task that did
            not finish while others did); one live while nothing was posted.
            """,
        fix: "Pass the object that posts the notification as object: (for AVPlayerItemDidPlayToEndTime, the player's current item, not the player), or pass nil and check the notification's object in the block."
    )

    /// A live observer with a sender filter, and what happened while it was live.
    struct Watch {
        var row: RegistrationRow
        /// The channel's count of posts when it was registered, and when it was removed.
        var postsAtStart: Int
        var postsAtEnd: Int?
        var delivered = 0
        /// Posts from another sender the registry skipped it for.
        var skipped = 0
    }

    /// At most this many senders are named per channel.
    static let namedSenders = 3

    private var watches = IDMap<Watch>()
    /// Posts (changes, not priors) per channel so far.
    private var posts = IDMap<Int>()
    /// Per channel: the types of the senders known to have posted, and a few of their names.
    private var senderTypes: [Int64: Set<String>] = [:]
    private var senderNames: [Int64: [String]] = [:]

    /// `PlayerItem#3` from a recorded post's value `object: PlayerItem#3; userInfo: …`.
    static func sender(inPost value: String?) -> String? {
        guard let value, value.hasPrefix("object: ") else { return nil }
        let rest = value.dropFirst("object: ".count)
        let name = rest.prefix { $0 != ";" }
        return name.isEmpty ? nil : String(name)
    }

    /// `PlayerItem` from `PlayerItem#3`.
    static func type(ofName name: String) -> String {
        guard let hash = name.lastIndex(of: "#"), name[name.index(after: hash)...].allSatisfy(\.isNumber) else { return name }
        return String(name[..<hash])
    }

    private mutating func noteSender(_ name: String, type: String, channel: Int64) {
        senderTypes[channel, default: []].insert(type)
        if (senderNames[channel]?.count ?? 0) < Self.namedSenders, senderNames[channel]?.contains(name) != true {
            senderNames[channel, default: []].append(name)
        }
    }

    mutating func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        guard let channel = event.channelID else { return }
        switch event.kind {
        case .registered:
            guard let row = try context.registration(event.registrationID), row.senderID != nil, watches[row.id] == nil
            else { return }
            watches[row.id] = Watch(row: row, postsAtStart: posts[channel] ?? 0)
        case .changed:
            guard !event.isPrior else { return }
            posts.update(channel, default: 0) { $0 += 1 }
            if let name = Self.sender(inPost: event.newValue) { noteSender(name, type: Self.type(ofName: name), channel: channel) }
        case .delivered:
            guard let id = event.registrationID, !event.isInitialDelivery, let watch = watches[id] else { return }
            // Its filter matched: its sender posted.
            if let sender = watch.row.senderID, let type = context.catalog.objectType(sender) {
                noteSender(context.owner(sender), type: type, channel: channel)
            }
            // An observer that ran is not this rule's: forgotten.
            watches[id] = nil
        case .skipped:
            guard event.skipReason == .senderMismatch, let id = event.registrationID, watches[id] != nil else { return }
            watches.update(id) { $0.skipped += 1 }
        case .removed:
            guard let id = event.registrationID, let watch = watches[id] else { return }
            if (posts[channel] ?? 0) == watch.postsAtStart { watches[id] = nil } else { watches.update(id) { $0.postsAtEnd = posts[channel] } }
        default:
            break
        }
    }

    mutating func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError) {
        for watch in watches.allValues.sorted(by: { $0.row.registeredSeq < $1.row.registeredSeq }) {
            let row = watch.row
            let heard = (watch.postsAtEnd ?? posts[row.channelID] ?? 0) - watch.postsAtStart
            guard heard > 0, let sender = row.senderID else { continue }
            let filterType = context.catalog.objectType(sender) ?? "?"
            let types = senderTypes[row.channelID] ?? []
            // Only when the posts' senders are known to be others (named in the posts, or
            // skipped by the registry) and the filter's type never posted.
            guard !types.contains(filterType), !types.isEmpty || watch.skipped > 0 else { continue }
            let owner = context.owner(row.ownerID)
            let channel = context.channel(row.channelID)
            let site = context.site(row.callSiteID)
            let filter = context.owner(sender)
            let names = senderNames[row.channelID] ?? []
            let postedBy = names.isEmpty
                ? "other senders posted it" : "it was posted by \(names.joined(separator: ", "))"
            var evidence = [
                "seq \(row.registeredSeq): \(owner) observed \(channel) at \(site) with sender filter \(filter)",
                "\(plural(heard, "post")) while it was live, none delivered to it; in this session \(postedBy), never a \(filterType)",
            ]
            var seqs = [row.registeredSeq]
            if let removed = row.removedSeq {
                evidence.append("seq \(removed): removed, never having run")
                seqs.append(removed)
            }
            emit(Finding(
                rule: Self.rule, sessionID: context.session.id,
                message: "\(owner)'s observer of \(channel) (\(site)) filters on sender \(filter) and never ran, though \(channel) was posted \(times(heard)) while it was live: \(postedBy), never a \(filterType).",
                evidence: evidence, seqs: seqs, callSites: [site], owners: [owner], channel: channel, count: heard
            ))
        }
    }
}
