extension Rule {
    /// OJ001 last-callback-wins: see `LastCallbackWinsChecker.rule`.
    package static var lastCallbackWins: Rule { LastCallbackWinsChecker.rule }
}

/// OJ001: on a single-slot channel, a live owner's callback replaced by another owner's,
/// or by the same owner's from another call site (its first callback is lost just the
/// same: the music-player demo app's bug).
///
/// Not a victim (a hand-over, see `Rule.explanation`): a registration whose declared
/// scope had ended when it was replaced; a same-owner re-assignment from the same call
/// site; a replaced owner that assigned again, or was deallocated, before the channel
/// changed (it missed nothing).
struct LastCallbackWinsChecker: RuleChecker {
    /// OJ001: the rule this checker decides, described next to its logic.
    static let rule = Rule(
        code: "OJ001", name: "last-callback-wins", severities: [.error],
        summary: "On a single-slot channel a live owner's callback was replaced by another owner's, or by its own from another call site; the replaced callback silently missed every later change.",
        details: """
            A single-slot channel holds one callback, like a plain callback property or a
            delegate. When a second owner assigns it while the first owner is still alive, the
            first owner's callback is replaced without any error, and from then on only the last
            assigner is told anything. The finding names the replaced owner, where it
            registered, when it was replaced and by whom, and how many changes it missed while it
            was alive.

            The same owner assigning the slot again from another call site loses its first
            callback just the same (the music-player demo app's bug: a screen assigning the
            player's callback in two places); the finding then names the owner and both call
            sites. `replay --what-if multicast` lists the replaced registration (with its call
            site) as having missed those changes.

            Not reported:
            - a replacement after the first owner was deallocated (the slot was already dead);
            - the same owner re-assigning from the same call site (re-running its setup);
            - a hand-over: the replaced registration was declared for a scope (assign(scope:))
              that had ended when it was replaced, such as a screen's "visible" scope ended
              in viewWillDisappear before the next screen takes the delegate;
            - a replaced owner that takes the slot back later (assigns it again), whatever
              changed in between: each screen takes the delegate when it appears, and the
              changes while another screen was in front were that screen's (the previous
              screen re-taking the delegate when it comes back);
            - a replaced owner deallocated before the channel changed: it missed nothing
              (a pushed screen popped and released right after the previous one re-took
              the delegate; a token kept by the screen records its deallocation);
            - an owner that replaced its own callback and assigned again from the first call
              site before the channel changed.
            A replaced owner still alive at the end of the session is reported even if no change
            came yet: the next one would be lost.
            """,
        fix: "Make the channel multicast (ObservableValue or a notification) so every owner registers its own callback, or have one owner forward to the others."
    )

    /// How a victim stopped missing changes, if it did.
    enum Ending {
        /// Its owner was deallocated (at `seq`): it misses nothing more.
        case deallocated(seq: Int64)
        /// Its owner assigned the slot again (at `seq`): it holds the slot again.
        case assignedAgain(seq: Int64)
    }

    /// What a finding says of a registration: a reported victim is held until the
    /// session ends (a long session has thousands), so not its whole row.
    struct Callback {
        var ownerID: Int64
        var callSiteID: Int64
        var registeredSeq: Int64

        init(_ row: RegistrationRow) {
            ownerID = row.ownerID
            callSiteID = row.callSiteID
            registeredSeq = row.registeredSeq
        }
    }

    struct Victim {
        var channelID: Int64
        var registration: Callback
        var replacedSeq: Int64
        var replacer: Callback?
        var missed = 0
        /// The first changes it missed, for the evidence (`replay --what-if` shows them
        /// all): inline, so a victim is plain bytes (`ScratchTable`).
        var firstMissed = FirstValues(limit: LastCallbackWinsChecker.listedSeqs)
        /// `nil` while it still misses changes (alive, not holding the slot again).
        var ending: Ending?
        /// The first changes it missed, first first.
        var missedSeqs: [Int64] { firstMissed.values }

        /// One more change missed, at `seq` (the first `listedSeqs` are listed).
        mutating func miss(_ seq: Int64) {
            missed += 1
            firstMissed.append(seq)
        }

        /// Replaced by its own owner, from another call site.
        var bySameOwner: Bool { replacer?.ownerID == registration.ownerID }

        /// Whether it is reported (see `finish`), decided once it has ended.
        var isReported: Bool {
            switch ending {
            case nil: return true
            case .assignedAgain where !bySameOwner: return false
            case .assignedAgain, .deallocated: return missed > 0
            }
        }
    }

    /// Victims still missing changes, per channel, oldest first: bounded by the live
    /// registrations replaced, not by history.
    private var active = IDMap<[Victim]>()
    /// Victims that ended and will be reported, by the order they ended in; those that will
    /// not are dropped as they end. Mostly written out: a long session reports thousands.
    private var ended = ScratchTable<Victim>(capacity: 256, orderedBy: \.replacedSeq)
    private var endedCount: Int64 = 0

    /// How many victims the checker holds (still missing changes, or ended and reported).
    var heldVictims: Int { active.allValues.reduce(0) { $0 + $1.count } + ended.count }

    mutating func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        switch event.kind {
        case .registered, .replaced:
            guard let channel = event.channelID, context.catalog.channels[channel]?.isSingleSlot == true,
                  let new = try context.registration(event.registrationID)
            else { return }
            // An owner assigning again holds the slot again: it misses nothing from here
            // on. A callback its own owner replaced comes back only from its call site.
            end(on: channel, ending: { victim in
                guard victim.registration.ownerID == new.ownerID,
                      !victim.bySameOwner || victim.registration.callSiteID == new.callSiteID
                else { return nil }
                return .assignedAgain(seq: event.seq)
            })
            guard event.kind == .replaced, let old = try context.registration(event.otherRegistrationID),
                  old.ownerID != new.ownerID || old.callSiteID != new.callSiteID,
                  !context.catalog.isDeallocated(old.ownerID, at: event.seq),
                  !scopeEnded(old.scopeID, by: event.seq, context)
            else { return }
            active.update(channel, default: []) {
                $0.append(Victim(channelID: channel, registration: Callback(old), replacedSeq: event.seq, replacer: Callback(new)))
            }
        case .changed:
            guard !event.isPrior, let channel = event.channelID, active.contains(channel) else { return }
            end(on: channel, ending: { victim in
                guard let seq = context.catalog.objects[victim.registration.ownerID]?.deallocSeq, seq <= event.seq
                else { return nil }
                return .deallocated(seq: seq)
            })
            // In place: a copy of the list per change was an allocation per change.
            active.update(channel) { victims in
                for index in victims.indices { victims[index].miss(event.seq) }
            }
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

    /// Ends the channel's active victims for which `ending` says how; keeps the ended
    /// ones that will be reported.
    private mutating func end(on channel: Int64, ending: (Victim) -> Ending?) {
        // Filtered in place, in order (a new list per change was an allocation per change).
        guard var victims = active.removeValue(forKey: channel) else { return }
        victims.removeAll { victim in
            guard let how = ending(victim) else { return false }
            var victim = victim
            victim.ending = how
            if victim.isReported {
                ended[endedCount] = victim
                endedCount += 1
            }
            return true
        }
        if !victims.isEmpty { active[channel] = victims }
    }

    mutating func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError) {
        // How many owners ever assigned each reported channel, from the table (indexed by
        // channel), once per channel: kept while streaming, it was a set of every owner
        // that ever assigned a single-slot channel, in proportion to history.
        var assignerCounts: [Int64: Int] = [:]
        func assigners(of channel: Int64) throws(AnalysisError) -> Int {
            if let known = assignerCounts[channel] { return known }
            let owners = Set(try context.reader.registrations(session: context.session.id, channel: channel).map(\.ownerID))
            let count = owners.isEmpty ? 2 : owners.count
            assignerCounts[channel] = count
            return count
        }
        // Hand-overs of a delegate between screens: a victim that went away before the
        // channel changed missed nothing; one that took the slot back later (a screen
        // re-taking the delegate when it is shown again) left the changes in between to
        // the screen in front. A callback replaced by its own owner's stays reported.
        // In the order they were replaced; the still active ones join the ended ones after
        // them, and the drain orders by replaced seq, then that place: a stable sort of the
        // ended ones followed by the active ones, without holding them all in memory.
        for list in active.allValues {
            for victim in list {
                ended[endedCount] = victim
                endedCount += 1
            }
        }
        active = IDMap()
        try ended.drain { _, victim throws(AnalysisError) in
            let channel = context.channel(victim.channelID)
            let owner = context.owner(victim.registration.ownerID)
            let site = context.site(victim.registration.callSiteID)
            let replacer = context.owner(victim.replacer?.ownerID)
            let replacerSite = context.site(victim.replacer?.callSiteID)
            let assignerCount = try assigners(of: victim.channelID)
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
            switch victim.ending {
            case .deallocated(let seq):
                evidence.append("seq \(seq): \(owner) was deallocated, after missing \(plural(victim.missed, "change"))")
                seqs.append(seq)
            case .assignedAgain(let seq):
                let again = victim.bySameOwner ? "again from \(site)" : "again"
                evidence.append("seq \(seq): \(owner) assigned the callback \(again), after missing \(plural(victim.missed, "change"))")
                seqs.append(seq)
            case nil:
                evidence.append("\(owner) was not seen deallocated before the session ended")
            }
            let message = victim.bySameOwner
                ? "\(owner) assigned \(channel) from two call sites; its callback from \(site) was replaced by its own from \(replacerSite) at seq \(victim.replacedSeq) and missed \(plural(victim.missed, "change"))."
                : "\(assignerCount) owners assigned \(channel); \(owner) (\(site)) was replaced at seq \(victim.replacedSeq) while alive and missed \(plural(victim.missed, "change"))."
            emit(Finding(
                rule: Self.rule, sessionID: context.session.id,
                message: message,
                evidence: evidence, seqs: seqs, callSites: [site, replacerSite], owners: [owner, replacer],
                channel: channel, count: victim.missed
            ))
        }
    }
}
