/// OJ001: on a single-slot channel, a live owner's callback replaced by another owner's,
/// or by the same owner's from another call site (its first callback is lost just the
/// same: the seed bug of shared/seeds/004).
///
/// Not a victim (a hand-over, see `Rule.explanation`): a registration whose declared
/// scope had ended when it was replaced; a same-owner re-assignment from the same call
/// site; a replaced owner that assigned again, or was deallocated, before the channel
/// changed (it missed nothing).
final class LastCallbackWinsChecker: RuleChecker {
    struct Victim {
        var channelID: Int64
        var registration: RegistrationRow
        var replacedSeq: Int64
        var replacer: RegistrationRow?
        var missed = 0
        /// The first changes it missed, for the evidence (`replay --what-if` shows them all).
        var missedSeqs: [Int64] = []
        /// Still missing changes: alive, and not holding the slot again.
        var active = true
        var endSeq: Int64?
        var endReason: String?
        /// Replaced by its own owner, from another call site.
        var bySameOwner: Bool { replacer?.ownerID == registration.ownerID }
    }

    private var victims: [Victim] = []
    private var activeByChannel: [Int64: [Int]] = [:]
    /// Every owner that ever assigned each single-slot channel.
    private var assigners: [Int64: Set<Int64>] = [:]

    func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        switch event.kind {
        case .registered, .replaced:
            guard let channel = event.channelID, context.catalog.channels[channel]?.isSingleSlot == true,
                  let new = try context.registration(event.registrationID)
            else { return }
            assigners[channel, default: []].insert(new.ownerID)
            // An owner assigning again holds the slot again: it misses nothing from here
            // on. A callback its own owner replaced comes back only from its call site.
            deactivate(channel: channel, where: { victim in
                victim.registration.ownerID == new.ownerID
                    && (!victim.bySameOwner || victim.registration.callSiteID == new.callSiteID)
            }, seq: event.seq, reason: "assigned again")
            guard event.kind == .replaced, let old = try context.registration(event.otherRegistrationID),
                  old.ownerID != new.ownerID || old.callSiteID != new.callSiteID,
                  !context.catalog.isDeallocated(old.ownerID, at: event.seq),
                  !scopeEnded(old.scopeID, by: event.seq, context)
            else { return }
            victims.append(Victim(channelID: channel, registration: old, replacedSeq: event.seq, replacer: new))
            activeByChannel[channel, default: []].append(victims.count - 1)
        case .changed:
            guard !event.isPrior, let channel = event.channelID, let indexes = activeByChannel[channel] else { return }
            for index in indexes {
                let owner = victims[index].registration.ownerID
                if context.catalog.isDeallocated(owner, at: event.seq) {
                    victims[index].active = false
                    victims[index].endSeq = context.catalog.objects[owner]?.deallocSeq
                    victims[index].endReason = "deallocated"
                } else {
                    victims[index].missed += 1
                    if victims[index].missedSeqs.count < Self.listedSeqs { victims[index].missedSeqs.append(event.seq) }
                }
            }
            activeByChannel[channel] = indexes.filter { victims[$0].active }
        default:
            break
        }
    }

    /// How many missed changes the evidence lists.
    static let listedSeqs = 10

    /// Whether the scope a registration was declared for had ended by `seq`: the
    /// assignment belonged to a stretch of life (a screen visible) that was over.
    private func scopeEnded(_ scope: Int64?, by seq: Int64, _ context: DiagnosisContext) -> Bool {
        guard let scope, let ended = context.catalog.scopes[scope]?.endedSeq else { return false }
        return ended <= seq
    }

    private func deactivate(channel: Int64, where matches: (Victim) -> Bool, seq: Int64, reason: String) {
        guard let indexes = activeByChannel[channel] else { return }
        for index in indexes where matches(victims[index]) {
            victims[index].active = false
            victims[index].endSeq = seq
            victims[index].endReason = reason
        }
        activeByChannel[channel] = indexes.filter { victims[$0].active }
    }

    func finish(_ context: DiagnosisContext) -> [Finding] {
        // Hand-overs of a delegate between screens: a victim that went away before the
        // channel changed missed nothing; one that took the slot back later (a screen
        // re-taking the delegate when it is shown again) left the changes in between to
        // the screen in front. A callback replaced by its own owner's stays reported.
        victims.filter { victim in
            if victim.active { return true }
            if victim.endReason == "assigned again" && !victim.bySameOwner { return false }
            return victim.missed > 0
        }.map { victim in
            let channel = context.channel(victim.channelID)
            let owner = context.owner(victim.registration.ownerID)
            let site = context.site(victim.registration.callSiteID)
            let replacer = context.owner(victim.replacer?.ownerID)
            let replacerSite = context.site(victim.replacer?.callSiteID)
            let assignerCount = assigners[victim.channelID]?.count ?? 2
            var evidence = [
                "seq \(victim.registration.registeredSeq): \(owner) assigned \(channel) at \(site)",
                victim.bySameOwner
                    ? "seq \(victim.replacedSeq): \(owner) assigned it again at \(replacerSite), another call site, replacing its own callback from \(site)"
                    : "seq \(victim.replacedSeq): \(replacer) assigned it at \(replacerSite), replacing \(owner)'s callback while \(owner) was alive",
            ]
            if victim.missed > 0 {
                let more = victim.missed > victim.missedSeqs.count ? ", …" : ""
                evidence.append("\(owner) missed the changes at seqs \(victim.missedSeqs.map(String.init).joined(separator: ", "))\(more)")
            }
            var seqs = [victim.registration.registeredSeq, victim.replacedSeq]
            switch victim.endReason {
            case "deallocated":
                evidence.append("seq \(victim.endSeq!): \(owner) was deallocated, after missing \(plural(victim.missed, "change"))")
                seqs.append(victim.endSeq!)
            case "assigned again":
                let again = victim.bySameOwner ? "again from \(site)" : "again"
                evidence.append("seq \(victim.endSeq!): \(owner) assigned the callback \(again), after missing \(plural(victim.missed, "change"))")
                seqs.append(victim.endSeq!)
            default:
                evidence.append("\(owner) was not seen deallocated before the session ended")
            }
            let message = victim.bySameOwner
                ? "\(owner) assigned \(channel) from two call sites; its callback from \(site) was replaced by its own from \(replacerSite) at seq \(victim.replacedSeq) and missed \(plural(victim.missed, "change"))."
                : "\(assignerCount) owners assigned \(channel); \(owner) (\(site)) was replaced at seq \(victim.replacedSeq) while alive and missed \(plural(victim.missed, "change"))."
            return Finding(
                rule: .lastCallbackWins, sessionID: context.session.id,
                message: message,
                evidence: evidence, seqs: seqs, callSites: [site, replacerSite], owners: [owner, replacer],
                channel: channel, count: victim.missed
            )
        }
    }
}
