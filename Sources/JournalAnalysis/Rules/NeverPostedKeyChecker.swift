/// OJ005: a channel observed but never posted; a typo when a key one or two edits away
/// was posted on the same type of subject.
final class NeverPostedKeyChecker: RuleChecker {
    /// A key on a type of subject (`*` for notifications): `Player.isPlaying`.
    struct TypedKey: Hashable, Comparable {
        var type: String
        var key: String
        static func < (lhs: TypedKey, rhs: TypedKey) -> Bool { (lhs.type, lhs.key) < (rhs.type, rhs.key) }
    }

    struct Observed {
        var first: RegistrationRow
        var registrations = 0
        var channels: Set<Int64> = []
    }

    struct Posted {
        var firstSeq: Int64
        var channelID: Int64
        var count = 0
    }

    private var observed: [TypedKey: Observed] = [:]
    private var posted: [TypedKey: Posted] = [:]

    private func typedKey(_ channelID: Int64, _ context: DiagnosisContext) -> TypedKey? {
        guard let channel = context.catalog.channels[channelID] else { return nil }
        let type = channel.subjectID == 0 ? "*" : (context.catalog.objectType(channel.subjectID) ?? "?")
        return TypedKey(type: type, key: channel.key)
    }

    func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        switch event.kind {
        case .registered, .replaced:
            guard let channel = event.channelID, let key = typedKey(channel, context) else { return }
            if observed[key] == nil {
                guard let row = try context.registration(event.registrationID) else { return }
                observed[key] = Observed(first: row)
            }
            observed[key]!.registrations += 1
            observed[key]!.channels.insert(channel)
        case .changed:
            guard let channel = event.channelID, let key = typedKey(channel, context) else { return }
            if posted[key] == nil { posted[key] = Posted(firstSeq: event.seq, channelID: channel) }
            posted[key]!.count += 1
        default:
            break
        }
    }

    func finish(_ context: DiagnosisContext) -> [Finding] {
        var findings: [Finding] = []
        for (key, entry) in observed.sorted(by: { $0.key < $1.key }) where posted[key] == nil {
            let first = entry.first
            let owner = context.owner(first.ownerID)
            let channel = context.channel(first.channelID)
            let site = context.site(first.callSiteID)
            let near = posted.keys.filter { $0.type == key.type && $0.key != key.key }
                .compactMap { other in editDistance(key.key, other.key, limit: 2).map { (other, $0) } }
                .min { ($0.1, $0.0.key) < ($1.1, $1.0.key) }
            var evidence = ["seq \(first.registeredSeq): \(owner) registered \(channel) at \(site)"]
            if entry.registrations > 1 {
                evidence.append("\(entry.registrations) registrations on \(plural(entry.channels.count, "channel")) with key \(quoted(key.key)), none ever posted")
            }
            var seqs = [first.registeredSeq]
            let subject = key.type == "*" ? "notification" : key.type
            if let (match, distance) = near, let post = posted[match] {
                evidence.append("seq \(post.firstSeq): \(context.channel(post.channelID)) was posted (\(times(post.count)) in all)")
                seqs.append(post.firstSeq)
                findings.append(Finding(
                    rule: .neverPostedKey, severity: .warning, sessionID: context.session.id,
                    message: "\(owner) observed \(channel) (\(site)), which was never posted; \(subject) posted \(quoted(match.key)), \(plural(distance, "edit")) away: a typo?",
                    evidence: evidence, seqs: seqs, callSites: [site], owners: [owner], channel: channel,
                    count: entry.registrations
                ))
            } else {
                findings.append(Finding(
                    rule: .neverPostedKey, severity: .info, sessionID: context.session.id,
                    message: "\(owner) observed \(channel) (\(site)), which was never posted in this session.",
                    evidence: evidence, seqs: seqs, callSites: [site], owners: [owner], channel: channel,
                    count: entry.registrations
                ))
            }
        }
        return findings
    }
}
