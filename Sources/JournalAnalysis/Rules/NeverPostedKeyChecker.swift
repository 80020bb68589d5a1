extension Rule {
    /// OJ005 never-posted-key: see `NeverPostedKeyChecker.rule`.
    package static var neverPostedKey: Rule { NeverPostedKeyChecker.rule }
}

/// OJ005: a channel observed but never posted; a typo when a key one or two edits away
/// was posted on the same type of subject, unless the same owner observes that key too on that
/// subject and it is more than one slip away (`minPrice` and `maxPrice`: sibling keys).
struct NeverPostedKeyChecker: RuleChecker {
    /// OJ005: the rule this checker decides, described next to its logic.
    static let rule = Rule(
        code: "OJ005", name: "never-posted-key", severities: [.warning, .info],
        summary: "A channel was observed but never posted, often because its key is a typo of one that was.",
        details: """
            Owners registered on a channel that was never posted in the session. When a key one
            or two edits away was posted on the same kind of subject, the observed key is very
            likely a typo (warning, with the hint). Without such a key the channel may just not
            have changed in this recording (info).

            Sibling keys are not typos: when the same owner observes the posted key too, on
            the same subject (minPrice and maxPrice, only the maximum moved), it knows both
            spellings, and the finding is info, unless the two are one slip apart (a letter
            missing, extra, wrong, or two swapped: contenOffset beside contentOffset). A
            posted key hints only for the never-posted keys closest to it: with minPrice and
            maxPirce observed and maxPrice posted, maxPirce (one swap) gets the hint.

            A for await loop over observations { … } is not reported, nor given as a typo hint
            (its channel is named after its line, not a key): a loop takes a change only when it
            asks for its next value, so a closure that reads nothing (a value captured before it)
            and a loop ended before it took a write look alike in the journal.
            """,
        fix: "Check the key's spelling against the keys the subject posts; prefer a shared constant to a string literal."
    )

    /// A key on a type of subject (`*` for notifications): `Player.isPlaying`.
    struct TypedKey: Hashable, Comparable {
        var type: String
        var key: String
        static func < (lhs: TypedKey, rhs: TypedKey) -> Bool { (lhs.type, lhs.key) < (rhs.type, rhs.key) }
    }

    /// An owner observing a key on a subject (0 for notifications).
    struct Observer: Hashable {
        var subject: Int64
        var owner: Int64
    }

    /// A key's registrations: how many, and the first. The channels they were on are
    /// counted from the registrations table when a finding needs them: kept per key while
    /// streaming, they were every channel the session ever had (one per round of the soak).
    struct Observed {
        var first: RegistrationRow
        var registrations = 0
    }

    struct Posted {
        var firstSeq: Int64
        var channelID: Int64
        var count = 0
    }

    /// Each typed key seen, numbered on first sight, and the numbers of the channels in use:
    /// an event finds its key through its channel's id, so no key is hashed per event (keys
    /// are read shortened to `JournalName.maxBytes`, but hashing one per change still cost).
    /// The channels' numbers are a cache of `keptChannels`, emptied when full: a session
    /// that makes a channel per round has them in proportion to its history.
    private var keys: [TypedKey] = []
    private var keyNumbers: [TypedKey: Int] = [:]
    private var keyOfChannel = IDMap<Int>()
    static let keptChannels = 4096

    /// How many channels' key numbers are kept: at most `keptChannels`.
    var keptChannelNumbers: Int { keyOfChannel.count }
    private var observedByNumber: [Int: Observed] = [:]
    private var postedByNumber: [Int: Posted] = [:]

    /// The number of the typed key of `channelID`, if the catalog names the channel.
    private mutating func keyNumber(_ channelID: Int64, _ context: DiagnosisContext) -> Int? {
        if let known = keyOfChannel[channelID] { return known }
        guard let key = typedKey(channelID, context) else { return nil }
        let number: Int
        if let known = keyNumbers[key] {
            number = known
        } else {
            number = keys.count
            keys.append(key)
            keyNumbers[key] = number
        }
        if keyOfChannel.count >= Self.keptChannels { keyOfChannel.removeAll(keepingCapacity: true) }
        keyOfChannel[channelID] = number
        return number
    }

    private func typedKey(_ channelID: Int64, _ context: DiagnosisContext) -> TypedKey? {
        guard let channel = context.catalog.channels[channelID] else { return nil }
        let type = channel.subjectID == 0 ? "*" : (context.catalog.objectType(channel.subjectID) ?? "?")
        return TypedKey(type: type, key: channel.key)
    }

    mutating func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        switch event.kind {
        case .registered, .replaced:
            // A withObservationTracking site is no key the app names: one that reads nothing
            // is OJ015's. Nor is an Observations loop's line: a loop that took no change may
            // just have ended before asking for the next value.
            guard let channel = event.channelID, !TrackingSite.isTracking(channel, context),
                  context.catalog.channels[channel]?.key.hasPrefix(TrackingSite.observationsKeyPrefix) != true,
                  let key = keyNumber(channel, context) else { return }
            if observedByNumber[key] == nil {
                guard let row = try context.registration(event.registrationID) else { return }
                observedByNumber[key] = Observed(first: row)
            }
            observedByNumber[key]?.registrations += 1
        case .changed:
            guard let channel = event.channelID, let key = keyNumber(channel, context) else { return }
            postedByNumber[key, default: Posted(firstSeq: event.seq, channelID: channel)].count += 1
        default:
            break
        }
    }

    /// For each observed, never-posted key: the posted key it is likely a typo of, and how
    /// many edits away. When the owner that observed the never-posted key observes the posted
    /// one too, on the same subject, it knows both spellings: they are sibling keys
    /// (`minPrice` and `maxPrice`, two edits apart) and no typo hint, unless they are one
    /// slip apart (a letter missing, extra, wrong or swapped: `contenOffset` next to
    /// `contentOffset` is the same key typed twice). A posted key is a hint
    /// only for the never-posted key(s) closest to it (a typo stands for one intended key: with
    /// `minPrice` and `maxPirce` observed and `maxPrice` posted, the hint goes to `maxPirce`,
    /// an adjacent swap, and `minPrice` is just not posted in this session).
    private mutating func typoHints(
        observed: [TypedKey: Observed], posted: [TypedKey: Posted], _ context: DiagnosisContext
    ) throws(AnalysisError) -> [TypedKey: (TypedKey, Int)] {
        struct Candidate { var observed: TypedKey; var posted: TypedKey; var distance: Int; var rank: (Int, Int) }
        var candidates: [Candidate] = []
        // Pairs whose sibling test decides: more than one slip apart.
        var siblingTests: [(observed: TypedKey, posted: TypedKey)] = []
        for key in observed.keys where posted[key] == nil {
            for other in posted.keys where other.type == key.type && !Self.isObservationsLoop(other.key) {
                guard let distance = editDistance(key.key, other.key, limit: 2) else { continue }
                let slips = editDistance(key.key, other.key, limit: 2, transpositions: true) ?? distance
                if slips > 1, observed[other] != nil { siblingTests.append((key, other)) }
                candidates.append(Candidate(observed: key, posted: other, distance: distance, rank: (distance, slips)))
            }
        }
        let siblings = try Self.siblings(siblingTests, context) { self.keyNumber($0, context).map { self.keys[$0] } }
        candidates.removeAll { siblings.contains([$0.observed, $0.posted]) }
        var best: [TypedKey: (Int, Int)] = [:]
        for candidate in candidates where best[candidate.posted].map({ candidate.rank < $0 }) ?? true {
            best[candidate.posted] = candidate.rank
        }
        var hints: [TypedKey: (TypedKey, Int)] = [:]
        for candidate in candidates where best[candidate.posted].map({ candidate.rank == $0 }) ?? false {
            if let current = hints[candidate.observed],
               (current.1, current.0.key) <= (candidate.distance, candidate.posted.key) { continue }
            hints[candidate.observed] = (candidate.posted, candidate.distance)
        }
        return hints
    }

    /// The prefix of a recorded `observations { … }` loop's channel key: named after its
    /// line, not a key the app spells.
    static let observationsPrefix = "Observations@"

    static func isObservationsLoop(_ key: String) -> Bool { key.hasPrefix(observationsPrefix) }

    /// The pairs of `tests` that some owner observed both of, on the same subject (an
    /// owner that knows both spellings: sibling keys), from the registrations table in two
    /// passes: the observers of the never-posted keys, then whether any of them observed
    /// the posted one. Kept per key while streaming, the observers were one entry per
    /// owner that ever registered on a key with a neighbour, in proportion to history.
    static func siblings(
        _ tests: [(observed: TypedKey, posted: TypedKey)], _ context: DiagnosisContext, typedKey: (Int64) -> TypedKey?
    ) throws(AnalysisError) -> Set<[TypedKey]> {
        guard !tests.isEmpty else { return [] }
        let wanted = Set(tests.map(\.observed))
        var postedTests: [TypedKey: [TypedKey]] = [:]
        for test in tests { postedTests[test.posted, default: []].append(test.observed) }
        let session = context.session.id
        var observers: [TypedKey: Set<Observer>] = [:]
        try context.reader.forEachRegistration(session: session) { _, row in
            guard let key = typedKey(row.channelID), wanted.contains(key) else { return }
            let subject = context.catalog.channels[row.channelID]?.subjectID ?? 0
            observers[key, default: []].insert(Observer(subject: subject, owner: row.ownerID))
        }
        var found: Set<[TypedKey]> = []
        try context.reader.forEachRegistration(session: session) { _, row in
            guard let key = typedKey(row.channelID), let pairs = postedTests[key] else { return }
            let observer = Observer(subject: context.catalog.channels[row.channelID]?.subjectID ?? 0, owner: row.ownerID)
            for observed in pairs where observers[observed]?.contains(observer) == true { found.insert([observed, key]) }
        }
        return found
    }

    /// How many channels with a registration each key numbered in `wanted` has: one pass
    /// over the distinct channels of the registrations table (its channel index), none
    /// held.
    private mutating func channels(of wanted: Set<Int>, _ context: DiagnosisContext) throws(AnalysisError) -> [Int: Int] {
        guard !wanted.isEmpty else { return [:] }
        var counts: [Int: Int] = [:]
        try context.reader.forEachRegisteredChannel(session: context.session.id) { channel in
            if let number = keyNumber(channel, context), wanted.contains(number) { counts[number, default: 0] += 1 }
        }
        return counts
    }

    mutating func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError) {
        // By typed key, for the typo hints' comparisons and the findings' order.
        let observed = Dictionary(uniqueKeysWithValues: observedByNumber.map { (keys[$0.key], $0.value) })
        let posted = Dictionary(uniqueKeysWithValues: postedByNumber.map { (keys[$0.key], $0.value) })
        let hints = try typoHints(observed: observed, posted: posted, context)
        let channelCounts = try channels(
            of: Set(observedByNumber.compactMap { $0.value.registrations > 1 && postedByNumber[$0.key] == nil ? $0.key : nil }), context
        )
        for (key, entry) in observed.sorted(by: { $0.key < $1.key }) where posted[key] == nil {
            let first = entry.first
            let owner = context.owner(first.ownerID)
            let channel = context.channel(first.channelID)
            let site = context.site(first.callSiteID)
            let near = hints[key]
            var evidence = ["seq \(first.registeredSeq): \(owner) registered \(channel) at \(site)"]
            if entry.registrations > 1 {
                let channels = keyNumbers[key].flatMap { channelCounts[$0] } ?? 0
                evidence.append("\(entry.registrations) registrations on \(plural(channels, "channel")) with key \(quoted(key.key)), none ever posted")
            }
            var seqs = [first.registeredSeq]
            let subject = key.type == "*" ? "notification" : key.type
            if let (match, distance) = near, let post = posted[match] {
                evidence.append("seq \(post.firstSeq): \(context.channel(post.channelID)) was posted (\(times(post.count)) in all)")
                seqs.append(post.firstSeq)
                emit(Finding(
                    rule: Self.rule, severity: .warning, sessionID: context.session.id,
                    message: "\(owner) observed \(channel) (\(site)), which was never posted; \(subject) posted \(quoted(match.key)), \(plural(distance, "edit")) away: a typo?",
                    evidence: evidence, seqs: seqs, callSites: [site], owners: [owner], channel: channel,
                    count: entry.registrations
                ))
            } else {
                emit(Finding(
                    rule: Self.rule, severity: .info, sessionID: context.session.id,
                    message: "\(owner) observed \(channel) (\(site)), which was never posted in this session.",
                    evidence: evidence, seqs: seqs, callSites: [site], owners: [owner], channel: channel,
                    count: entry.registrations
                ))
            }
        }
    }
}
