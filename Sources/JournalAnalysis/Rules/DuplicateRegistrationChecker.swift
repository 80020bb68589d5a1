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

            An observer added with no owner (NotificationCenter's addObserver(forName:) with the
            token as its only owner) is a duplicate when the same call site adds it again on the
            same channel while the earlier one is live, whatever its token: the observer added on
            every appearance with its token discarded. Different objects that each observe once
            from one line say so with owner:.

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

    /// The owner types that stand for "no owner given": the registration's own token.
    static let ownerlessTypes: Set<String> = ["NotificationToken", "ObservationArm"]

    /// What makes two owner-less registrations the same observation: no owner to compare.
    struct OwnerlessIdentity: Hashable {
        var channel: Int64
        var callSite: Int64
        var sender: Int64?
    }

    /// Live owner-less registrations per identity, oldest first (only those: an app's
    /// owned registrations are found through `context.live`).
    private var ownerless: [OwnerlessIdentity: [Int64]] = [:]
    /// The identity of each live owner-less registration, to drop it on removal.
    private var ownerlessIdentity: [Int64: OwnerlessIdentity] = [:]

    /// Per live withObservationTracking arming, its channel's count of changes when armed.
    private var trackingArmedAt: [Int64: Int] = [:]

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
            guard let channel = event.channelID, let new = try context.registration(event.registrationID) else { return }
            var first = context.live.first(
                .init(channel: channel, owner: new.ownerID, callSite: new.callSiteID, sender: new.senderID), other: new.id
            )
            if let type = context.catalog.objects[new.ownerID]?.type, Self.ownerlessTypes.contains(type) {
                let identity = OwnerlessIdentity(channel: channel, callSite: new.callSiteID, sender: new.senderID)
                if first == nil, let earlier = ownerless[identity]?.first(where: { $0 != new.id }) {
                    first = context.live.registrations[earlier]
                }
                if ownerlessIdentity[new.id] == nil {
                    ownerless[identity, default: []].append(new.id)
                    ownerlessIdentity[new.id] = identity
                }
            }
            // A withObservationTracking armed again from its own onChange: the earlier
            // arming fired (a change came since it was armed) and ends with this delivery.
            if TrackingSite.isTracking(channel, context) {
                trackingArmedAt[new.id] = changes[channel, default: 0]
                if let earlier = first, trackingArmedAt[earlier.id] != changes[channel, default: 0] { first = nil }
            }
            guard let first else { return }
            duplicates.append(Duplicate(first: first, second: new, channel: channel, changesAtStart: changes[channel, default: 0]))
            for id in Set([first.id, new.id]) { activeByRegistration[id, default: []].append(duplicates.count - 1) }
        case .removed, .replaced:
            // The registry removes this registration next (`LiveRegistry.apply`): its pairs
            // end here, having doubled every change of their channel up to now.
            guard let id = event.kind == .removed ? event.registrationID : event.otherRegistrationID else { return }
            trackingArmedAt[id] = nil
            if let identity = ownerlessIdentity.removeValue(forKey: id) {
                ownerless[identity]?.removeAll { $0 == id }
                if ownerless[identity]?.isEmpty == true { ownerless[identity] = nil }
            }
            guard context.live.registrations.contains(id), let indexes = activeByRegistration.removeValue(forKey: id)
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
            if pair.first.ownerID != pair.second.ownerID {
                // Owner-less: two tokens, one call site.
                let second = context.owner(pair.second.ownerID)
                emit(Finding(
                    rule: Self.rule, sessionID: context.session.id,
                    message: "\(site) added an observer of \(channel) again (seq \(pair.second.registeredSeq), \(second)) while the one it added at seq \(pair.first.registeredSeq) (\(owner)) was live, with no owner to tell them apart; the block ran twice for \(plural(self.doubled(pair), "change")).",
                    evidence: [
                        "seq \(pair.first.registeredSeq): registration \(pair.first.id) (\(owner)) at \(site), no owner given",
                        "seq \(pair.second.registeredSeq): registration \(pair.second.id) (\(second)) at \(site) while \(pair.first.id) was live",
                        "\(plural(self.doubled(pair), "change")) reached both registrations",
                    ],
                    seqs: [pair.first.registeredSeq, pair.second.registeredSeq], callSites: [site], owners: [owner, second],
                    channel: channel, count: self.doubled(pair),
                    fix: "Add the observer once (in init or viewDidLoad), or keep its token and call removeObserver(token) before adding it again (in viewWillDisappear); if these are different objects that each observe once, pass owner: so they are told apart."
                ))
                return
            }
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
