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
        var doubled = 0
        var active = true
    }

    private var duplicates: [Duplicate] = []
    private var activeByChannel: [Int64: [Int]] = [:]

    func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        switch event.kind {
        case .registered:
            guard let channel = event.channelID, let new = try context.registration(event.registrationID),
                  let first = context.live.live(on: channel).first(where: {
                      $0.ownerID == new.ownerID && $0.callSiteID == new.callSiteID && $0.senderID == new.senderID
                          && $0.id != new.id
                  })
            else { return }
            duplicates.append(Duplicate(first: first, second: new))
            activeByChannel[channel, default: []].append(duplicates.count - 1)
        case .changed:
            guard !event.isPrior, let channel = event.channelID, let indexes = activeByChannel[channel] else { return }
            for index in indexes {
                let pair = duplicates[index]
                if context.live.registrations.contains(pair.first.id) && context.live.registrations.contains(pair.second.id) {
                    duplicates[index].doubled += 1
                } else {
                    duplicates[index].active = false
                }
            }
            activeByChannel[channel] = indexes.filter { duplicates[$0].active }
        case .skipped:
            // A change from another sender reached neither of a sender-filtered pair (both
            // are skipped `senderMismatch`): it was not delivered twice. Counted once, on the
            // pair's second registration.
            guard event.skipReason == .senderMismatch, let registration = event.registrationID,
                  let channel = event.channelID, let indexes = activeByChannel[channel] else { return }
            for index in indexes where duplicates[index].second.id == registration && duplicates[index].doubled > 0 {
                duplicates[index].doubled -= 1
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
                message: "\(owner) registered \(channel) twice from \(site) (seq \(pair.first.registeredSeq) and seq \(pair.second.registeredSeq)); its callback ran twice for \(plural(pair.doubled, "change")).",
                evidence: [
                    "seq \(pair.first.registeredSeq): registration \(pair.first.id) by \(owner) at \(site)",
                    "seq \(pair.second.registeredSeq): registration \(pair.second.id) by \(owner) at \(site) while \(pair.first.id) was live",
                    "\(plural(pair.doubled, "change")) reached both registrations",
                ],
                seqs: [pair.first.registeredSeq, pair.second.registeredSeq], callSites: [site], owners: [owner],
                channel: channel, count: pair.doubled
            ))
        }
    }
}
