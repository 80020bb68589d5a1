/// OJ001: on a single-slot channel, a live owner's callback replaced by another owner's.
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
            // An owner assigning again holds the slot again: it misses nothing from here on.
            deactivate(channel: channel, where: { $0.registration.ownerID == new.ownerID }, seq: event.seq, reason: "assigned again")
            guard event.kind == .replaced, let old = try context.registration(event.otherRegistrationID),
                  old.ownerID != new.ownerID, !context.catalog.isDeallocated(old.ownerID, at: event.seq)
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
        victims.map { victim in
            let channel = context.channel(victim.channelID)
            let owner = context.owner(victim.registration.ownerID)
            let site = context.site(victim.registration.callSiteID)
            let replacer = context.owner(victim.replacer?.ownerID)
            let replacerSite = context.site(victim.replacer?.callSiteID)
            let assignerCount = assigners[victim.channelID]?.count ?? 2
            var evidence = [
                "seq \(victim.registration.registeredSeq): \(owner) assigned \(channel) at \(site)",
                "seq \(victim.replacedSeq): \(replacer) assigned it at \(replacerSite), replacing \(owner)'s callback while \(owner) was alive",
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
                evidence.append("seq \(victim.endSeq!): \(owner) assigned the callback again, after missing \(plural(victim.missed, "change"))")
                seqs.append(victim.endSeq!)
            default:
                evidence.append("\(owner) was not seen deallocated before the session ended")
            }
            return Finding(
                rule: .lastCallbackWins, sessionID: context.session.id,
                message: "\(assignerCount) owners assigned \(channel); \(owner) (\(site)) was replaced at seq \(victim.replacedSeq) while alive and missed \(plural(victim.missed, "change")).",
                evidence: evidence, seqs: seqs, callSites: [site, replacerSite], owners: [owner, replacer],
                channel: channel, count: victim.missed
            )
        }
    }
}
