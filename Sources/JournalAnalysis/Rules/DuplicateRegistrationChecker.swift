extension Rule {
    /// OJ002 duplicate-registration: see `DuplicateRegistrationChecker.rule`.
    package static var duplicateRegistration: Rule { DuplicateRegistrationChecker.rule }
}

/// OJ002: the same owner and call site registered twice on one channel with the same sender
/// filter, both live. Registrations with different sender filters (one per sender, as
/// `addObserver(forName:object:)` per object) are different observations, not duplicates.
final class DuplicateRegistrationChecker: RuleChecker {
    /// OJ002: the rule this checker decides, described next to its logic.
    static let rule = Rule(
        code: "OJ002", name: "duplicate-registration", severities: [.warning],
        summary: "The same owner registered the same call site twice on one channel, with the same sender filter, while the first was live: its callback runs twice per change.",
        details: """
            The same owner registered twice from the same call site on the same channel, and
            both registrations were live at once. Every change then runs the callback twice:
            usually a registration made in a method that runs more than once (viewWillAppear)
            without removing the previous one. The finding gives both registrations and how
            many changes were delivered twice.

            Not reported: registrations with different sender filters (one per object, as
            addObserver(forName:object:) in a loop over tasks): each hears its own sender,
            so they are different observations. Changes from another sender, which neither
            of a duplicate pair heard, are not counted as delivered twice.
            """,
        fix: "Register once (for example in init or viewDidLoad, not in a method that runs repeatedly), or keep the token and cancel it before registering again."
    )

    struct Duplicate {
        var first: RegistrationRow
        var second: RegistrationRow
        /// The channel the pair was found on (the registration event's).
        var channel: Int64
        /// The channel's count of changes when the pair began, and when it ended (one of
        /// the two removed): changes are counted per channel, not per pair, so a change
        /// costs the same whatever the number of pairs on its channel (50,000 duplicates
        /// of one registration and 50,000 changes were 2.5 billion steps).
        var changesAtStart: Int
        var changesAtEnd: Int?
        /// Changes from another sender that reached neither (skipped `senderMismatch`).
        var notDoubled = 0
    }

    private var duplicates: [Duplicate] = []
    /// Changes (not priors) seen so far per channel.
    private var changes: [Int64: Int] = [:]
    /// Pairs not yet ended, by the id of each of their two registrations.
    private var activeByRegistration: [Int64: [Int]] = [:]

    /// How many changes reached both registrations of `pair`.
    private func doubled(_ pair: Duplicate) -> Int {
        (pair.changesAtEnd ?? changes[pair.channel, default: 0]) - pair.changesAtStart - pair.notDoubled
    }

    func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        switch event.kind {
        case .registered:
            guard let channel = event.channelID, let new = try context.registration(event.registrationID),
                  let first = context.live.first(
                      .init(channel: channel, owner: new.ownerID, callSite: new.callSiteID, sender: new.senderID), other: new.id
                  )
            else { return }
            duplicates.append(Duplicate(first: first, second: new, channel: channel, changesAtStart: changes[channel, default: 0]))
            for id in Set([first.id, new.id]) { activeByRegistration[id, default: []].append(duplicates.count - 1) }
        case .removed, .replaced:
            // The registry removes this registration next (`LiveRegistry.apply`): its pairs
            // end here, having doubled every change of their channel up to now.
            guard let id = event.kind == .removed ? event.registrationID : event.otherRegistrationID,
                  context.live.registrations.contains(id), let indexes = activeByRegistration.removeValue(forKey: id)
            else { return }
            for index in indexes where duplicates[index].changesAtEnd == nil {
                duplicates[index].changesAtEnd = changes[duplicates[index].channel, default: 0]
            }
        case .changed:
            guard !event.isPrior, let channel = event.channelID else { return }
            changes[channel, default: 0] += 1
        case .skipped:
            // A change from another sender reached neither of a sender-filtered pair (both
            // are skipped `senderMismatch`): it was not delivered twice. Counted once, on the
            // pair's second registration.
            guard event.skipReason == .senderMismatch, let registration = event.registrationID,
                  let channel = event.channelID, let indexes = activeByRegistration[registration] else { return }
            for index in indexes {
                let pair = duplicates[index]
                if pair.changesAtEnd == nil, pair.channel == channel, pair.second.id == registration, doubled(pair) > 0 {
                    duplicates[index].notDoubled += 1
                }
            }
        default:
            break
        }
    }

    func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError) {
        duplicates.forEach { pair in
            let owner = context.owner(pair.first.ownerID)
            let channel = context.channel(pair.first.channelID)
            let site = context.site(pair.first.callSiteID)
            emit(Finding(
                rule: Self.rule, sessionID: context.session.id,
                message: "\(owner) registered \(channel) twice from \(site) (seq \(pair.first.registeredSeq) and seq \(pair.second.registeredSeq)); its callback ran twice for \(plural(self.doubled(pair), "change")).",
                evidence: [
                    "seq \(pair.first.registeredSeq): registration \(pair.first.id) by \(owner) at \(site)",
                    "seq \(pair.second.registeredSeq): registration \(pair.second.id) by \(owner) at \(site) while \(pair.first.id) was live",
                    "\(plural(self.doubled(pair), "change")) reached both registrations",
                ],
                seqs: [pair.first.registeredSeq, pair.second.registeredSeq], callSites: [site], owners: [owner],
                channel: channel, count: self.doubled(pair)
            ))
        }
    }
}
