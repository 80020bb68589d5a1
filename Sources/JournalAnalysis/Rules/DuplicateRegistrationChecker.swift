extension Rule {
    /// OJ002 duplicate-registration: see `DuplicateRegistrationChecker.rule`.
    package static var duplicateRegistration: Rule { DuplicateRegistrationChecker.rule }
}

/// OJ002: the same owner registered twice on one channel with the same sender filter, both
/// live: from one call site, or from call sites in two different functions (init and
/// viewDidLoad). Registrations with different sender filters (one per sender, as
/// `addObserver(forName:object:)` per object) are different observations, not duplicates.
/// On a channel whose registrations each record their own change (a withObservationTracking
/// site, an observations loop's line), a pair counts only the writes that reached both.
struct DuplicateRegistrationChecker: RuleChecker {
    /// OJ002: the rule this checker decides, described next to its logic.
    static let rule = Rule(
        code: "OJ002", name: "duplicate-registration", severities: [.warning],
        summary: "The same owner registered the same observer twice on one channel, with the same sender filter, while the first was live: its callback runs twice per change.",
        details: """
            The same owner registered twice from the same call site on the same channel, and
            both registrations were live at once. Every change then runs the callback twice:
            usually a registration made in a method that runs more than once (viewWillAppear)
            without removing the previous one. The finding gives both registrations and how
            many changes were delivered twice.

            The same owner adding the same observer from two places (in init and again in
            viewDidLoad) is a duplicate too: two call sites in two different functions, the same
            channel, sender filter, options and queue, both live while changes reached both.
            Two call sites in one function are taken for two different callbacks set up together
            (one adjusts the insets, the other scrolls), and are not reported.

            An observer added with no owner (NotificationCenter's addObserver(forName:) with the
            token as its only owner) is a duplicate when the same call site adds it again on the
            same channel while the earlier one is live, whatever its token: the observer added on
            every appearance with its token discarded. Different objects that each observe once
            from one line say so with owner:.

            Not reported: registrations with different sender filters (one per object, as
            addObserver(forName:object:) in a loop over tasks): each hears its own sender,
            so they are different observations. Changes from another sender, which neither
            of a duplicate pair heard, are not counted as delivered twice.

            withObservationTracking armings and observations { … } loops from one line record
            a change per arming or loop that a write reaches: two of them are a duplicate only
            when one write reached both (a loop started again on every appearance). Armings or
            loops that read different things (row views each tracking their own item, a helper
            tracking two properties) are told apart by the writes that reach only one of them,
            and are not reported. Journals recorded through Observation's public API do not say
            which property a tracking's firing was for: there, two armings one owner (owner:)
            made in a row, with nothing recorded between them, are taken for a helper arming
            for several properties at once, and their firings not for one write.
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
        /// On a forwarded channel: the writes that reached both, and whether one reached
        /// only one of them while both were live (they read different things).
        var forwarded = false
        var writesReachingBoth = 0
    }

    /// A forwarded site: its channel and call site, and its owner (0 for owner-less ones).
    struct SiteKey: Hashable {
        var channel: Int64
        var callSite: Int64
        var owner: Int64
    }

    /// Forwarded sites whose registrations read different things: a write reached one of
    /// them and not another, live (a row's item, a helper's other property). Their pairs
    /// are not duplicates, even those a run of writes reached both of.
    private var distinctSites: Set<SiteKey> = []

    private func siteKey(_ pair: Duplicate) -> SiteKey {
        SiteKey(
            channel: pair.channel, callSite: pair.first.callSiteID,
            owner: pair.first.ownerID == pair.second.ownerID ? pair.first.ownerID : 0
        )
    }

    /// The owner types that stand for "no owner given": the registration's own token, a
    /// tracking's arming, a for await loop's sequence.
    static let ownerlessTypes: Set<String> = ["NotificationToken", "ObservationArm", "ChangeStream"]

    /// How a channel's registrations hear a write.
    enum Forwarding {
        /// Through the registry: one `changed` event, then a delivery per registration.
        case no
        /// A `withObservationTracking` site: each arming records its own change, in its
        /// `onChange`, on the writing thread, at the write's depth.
        case tracking
        /// An `observations { … }` loop's line: each loop records its own change when it
        /// computes the new value, on the actor it iterates on. Loops of one line may run on
        /// different threads (a main queue drained by a dispatch worker, which may change
        /// between two jobs; loops in tasks of the global executor), one after another.
        case loop
    }

    /// How many channels' answers `forwarded` keeps.
    static let keptChannels = 4096

    /// Per channel, how it hears a write (asked per change and delivery).
    private var forwarded = IDMap<Forwarding>()

    private mutating func forwarding(_ channel: Int64, _ context: DiagnosisContext) -> Forwarding {
        if let known = forwarded[channel] { return known }
        let key = context.catalog.channels[channel]?.key ?? ""
        let answer: Forwarding = key.hasPrefix(TrackingSite.keyPrefix) ? .tracking : key.hasPrefix("Observations@") ? .loop : .no
        // A cache: a session that makes a channel per round has them in proportion to history.
        if forwarded.count >= Self.keptChannels { forwarded.removeAll(keepingCapacity: true) }
        forwarded[channel] = answer
        return answer
    }

    private mutating func isForwarded(_ channel: Int64, _ context: DiagnosisContext) -> Bool {
        forwarding(channel, context) != .no
    }

    /// The firings of one write on a forwarded channel, and the registrations they reached:
    /// consecutive changes of that channel with one value, on a tracking site also on one
    /// thread and at one depth (a loop's change is recorded where the loop runs, which says
    /// nothing of the write). A registration hears a write once: reached again, it hears
    /// the next write, and the burst is over.
    struct Burst {
        var thread: Int64
        var depth: Int
        var value: String?
        var reached: Set<Int64> = []
        var pairs: Set<Int> = []
        /// The pairs both of whose registrations were live when the burst reached one.
        var bothLive: Set<Int> = []
    }

    /// The burst under way per forwarded channel.
    private var bursts: [Int64: Burst] = [:]

    /// An owner's registrations on a channel, for pairs from two call sites.
    struct ChannelOwner: Hashable {
        var channel: Int64
        var owner: Int64
        var sender: Int64?
    }

    /// One call site's live registrations of an owner on a channel, oldest first. Removed ones
    /// leave the list lazily (the oldest live one is found in amortized constant time, so
    /// 50,000 registrations from one site cost no pass over the others each).
    struct SiteRegistrations {
        var ids: [Int64] = []
        var start = 0
        var live = 0

        /// The oldest still in `isLive`, dropping the removed ones before it.
        mutating func oldest(_ isLive: (Int64) -> Bool) -> Int64? {
            while start < ids.count, !isLive(ids[start]) { start += 1 }
            if start > 64, start * 2 > ids.count {
                ids.removeFirst(start)
                start = 0
            }
            return start < ids.count ? ids[start] : nil
        }
    }

    /// Live owned registrations on notification channels per channel and owner, by call
    /// site: a new registration is compared with the oldest of each other call site.
    private var ownedSites: [ChannelOwner: [Int64: SiteRegistrations]] = [:]
    /// Where each live owned registration is in `ownedSites`.
    private var ownedKey: [Int64: (ChannelOwner, Int64)] = [:]

    /// What makes two owner-less registrations the same observation: no owner to compare.
    struct OwnerlessIdentity: Hashable {
        var channel: Int64
        var callSite: Int64
        var sender: Int64?
        /// Registrations declared for different scopes (two screens, each its own) are
        /// different observations.
        var scope: Int64?
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
        if pair.forwarded { return pair.writesReachingBoth }
        return (pair.changesAtEnd ?? changes[pair.channel, default: 0]) - pair.changesAtStart - pair.notDoubled
    }

    /// The burst of `channel` is over: each pair it reached doubled a write if both of its
    /// registrations were reached, and reads different things if only one was while the
    /// other was live.
    private mutating func close(_ channel: Int64) {
        guard let burst = bursts.removeValue(forKey: channel) else { return }
        for index in burst.pairs {
            let pair = duplicates[index]
            let first = burst.reached.contains(pair.first.id), second = burst.reached.contains(pair.second.id)
            if first && second {
                // Firings with no value (Observation's public API does not say what changed)
                // of two armings one owner made in a row, nothing recorded between them, are
                // no evidence that one write ran both: a helper arming for several properties
                // at once fires once per write, in the same run of firings. An owner arming
                // again later while armed, or owner-less armings from one line (different
                // objects say so with owner:), are one observation.
                if burst.value == nil, pair.first.ownerID == pair.second.ownerID,
                   pair.second.registeredSeq == pair.first.registeredSeq + 1 {
                    continue
                }
                duplicates[index].writesReachingBoth += 1
            } else if burst.bothLive.contains(index) {
                // One of them heard a write the other, live, did not: they read different things.
                distinctSites.insert(siteKey(pair))
            }
        }
    }

    /// Another registration of `new`'s owner on its channel, live, from a call site in
    /// another function, with the same options and queue: the same observer added twice.
    private mutating func otherPlace(_ new: RegistrationRow, _ context: DiagnosisContext) throws(AnalysisError) -> RegistrationRow? {
        let key = ChannelOwner(channel: new.channelID, owner: new.ownerID, sender: new.senderID)
        defer {
            if ownedKey[new.id] == nil {
                ownedSites[key, default: [:]][new.callSiteID, default: SiteRegistrations()].ids.append(new.id)
                ownedSites[key]?[new.callSiteID]?.live += 1
                ownedKey[new.id] = (key, new.callSiteID)
            }
        }
        guard let sites = ownedSites[key]?.keys.sorted(), let function = context.catalog.callSites[new.callSiteID]?.function,
              !function.isEmpty else { return nil }
        var found: RegistrationRow?
        for site in sites where site != new.callSiteID {
            guard let other = context.catalog.callSites[site]?.function, !other.isEmpty, other != function,
                  let id = ownedSites[key]?[site]?.oldest({ self.ownedKey[$0] != nil }),
                  let row = try context.registration(id),
                  row.options == new.options, row.queue == new.queue, row.expectsMain == new.expectsMain
            else { continue }
            if found.map({ row.id < $0.id }) ?? true { found = row }
        }
        return found
    }

    mutating func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        switch event.kind {
        case .registered:
            guard let channel = event.channelID, let new = try context.registration(event.registrationID) else { return }
            var first = context.live.first(
                .init(channel: channel, owner: new.ownerID, callSite: new.callSiteID, sender: new.senderID), other: new.id
            )
            let hasNoOwner = context.catalog.objects[new.ownerID].map { Self.ownerlessTypes.contains($0.type) } ?? false
            if hasNoOwner {
                let identity = OwnerlessIdentity(
                    channel: channel, callSite: new.callSiteID, sender: new.senderID, scope: new.scopeID
                )
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
            let isForwarded = isForwarded(channel, context)
            // The same observer from two places: notifications only (two callbacks of one owner
            // on one value, from two functions, are usually two bindings).
            let isNotification = context.catalog.channels[channel]?.subjectID == 0
            if !hasNoOwner, !isForwarded, isNotification, let other = try otherPlace(new, context), first == nil {
                first = other
            }
            guard let first else { return }
            var pair = Duplicate(first: first, second: new, channel: channel, changesAtStart: changes[channel, default: 0])
            pair.forwarded = isForwarded
            duplicates.append(pair)
            for id in Set([first.id, new.id]) { activeByRegistration[id, default: []].append(duplicates.count - 1) }
        case .removed, .replaced:
            // The registry removes this registration next (`LiveRegistry.apply`): its pairs
            // end here, having doubled every change of their channel up to now.
            guard let id = event.kind == .removed ? event.registrationID : event.otherRegistrationID else { return }
            trackingArmedAt[id] = nil
            if let (key, site) = ownedKey.removeValue(forKey: id) {
                ownedSites[key]?[site]?.live -= 1
                if ownedSites[key]?[site]?.live == 0 { ownedSites[key]?[site] = nil }
                if ownedSites[key]?.isEmpty == true { ownedSites[key] = nil }
            }
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
            let forwarding = forwarding(channel, context)
            guard forwarding != .no else { return }
            if let burst = bursts[channel], burst.value == event.newValue,
               forwarding == .loop || (burst.thread == event.thread && burst.depth == event.depth) {
                return
            }
            close(channel)
            bursts[channel] = Burst(thread: event.thread, depth: event.depth, value: event.newValue)
        case .delivered:
            guard let id = event.registrationID, let channel = event.channelID, let burst = bursts[channel],
                  !event.isInitialDelivery else { return }
            if burst.reached.contains(id) {
                // The next write, with the same value: its firings start a burst of their own.
                close(channel)
                bursts[channel] = Burst(thread: burst.thread, depth: burst.depth, value: burst.value)
            }
            bursts[channel]?.reached.insert(id)
            for index in activeByRegistration[id] ?? [] {
                bursts[channel]?.pairs.insert(index)
                let pair = duplicates[index]
                if context.live.registrations.contains(pair.first.id), context.live.registrations.contains(pair.second.id) {
                    bursts[channel]?.bothLive.insert(index)
                }
            }
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

    mutating func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError) {
        for channel in Array(bursts.keys) { close(channel) }
        duplicates.forEach { pair in
            // A forwarded pair is a duplicate only if a write reached both, and none reached
            // only one of them.
            if pair.forwarded && (distinctSites.contains(siteKey(pair)) || pair.writesReachingBoth == 0) { return }
            if pair.first.callSiteID != pair.second.callSiteID {
                // The same owner, two places.
                let doubled = self.doubled(pair)
                guard doubled > 0 else { return }
                let owner = context.owner(pair.first.ownerID)
                let channel = context.channel(pair.first.channelID)
                let first = context.siteInFunction(pair.first.callSiteID), second = context.siteInFunction(pair.second.callSiteID)
                emit(Finding(
                    rule: Self.rule, sessionID: context.session.id,
                    message: "\(owner) registered \(channel) from two places, \(first) (seq \(pair.first.registeredSeq)) and \(second) (seq \(pair.second.registeredSeq)), both live: its observer ran twice for \(plural(doubled, "change")), once per registration.",
                    evidence: [
                        "seq \(pair.first.registeredSeq): registration \(pair.first.id) by \(owner) at \(first)",
                        "seq \(pair.second.registeredSeq): registration \(pair.second.id) by \(owner) at \(second) while \(pair.first.id) was live",
                        "\(plural(doubled, "change")) reached both registrations",
                    ],
                    seqs: [pair.first.registeredSeq, pair.second.registeredSeq],
                    callSites: [context.site(pair.first.callSiteID), context.site(pair.second.callSiteID)], owners: [owner],
                    channel: channel, count: doubled,
                    fix: "Add the observer in one place (in init or in viewDidLoad, not both); if the two are different callbacks, do both things from one observer."
                ))
                return
            }
            let owner = context.owner(pair.first.ownerID)
            let channel = context.channel(pair.first.channelID)
            let site = context.site(pair.first.callSiteID)
            if pair.first.ownerID != pair.second.ownerID {
                // Owner-less: two tokens, one call site.
                let second = context.owner(pair.second.ownerID)
                let type = context.catalog.objectType(pair.first.ownerID)
                if type == "ChangeStream" || type == "ObservationArm" {
                    let loop = type == "ChangeStream"
                    let what = loop ? "a for await loop" : "a withObservationTracking"
                    let doubled = self.doubled(pair)
                    let ran = pair.forwarded
                        ? "\(plural(doubled, "write")) reached both, each updating twice"
                        : "both ran for \(plural(doubled, "change"))"
                    emit(Finding(
                        rule: Self.rule, sessionID: context.session.id,
                        message: "\(site) started \(what) on \(channel) again (seq \(pair.second.registeredSeq), \(second)) while the one it started at seq \(pair.first.registeredSeq) (\(owner)) was live: \(ran).",
                        evidence: [
                            "seq \(pair.first.registeredSeq): registration \(pair.first.id) (\(owner)) at \(site)",
                            "seq \(pair.second.registeredSeq): registration \(pair.second.id) (\(second)) at \(site) while \(pair.first.id) was live",
                            pair.forwarded ? "\(plural(doubled, "write")) reached both registrations" : "\(plural(doubled, "change")) reached both registrations",
                        ],
                        seqs: [pair.first.registeredSeq, pair.second.registeredSeq], callSites: [site], owners: [owner, second],
                        channel: channel, count: doubled,
                        fix: loop
                            ? "Start the loop once, or run it in a Task the screen keeps and cancel that task when the screen disappears, so the next appearance starts the only live loop."
                            : "Arm the tracking once, and again only from its own onChange; if these are different objects each tracking their own state, pass owner: so they are told apart."
                    ))
                    return
                }
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
