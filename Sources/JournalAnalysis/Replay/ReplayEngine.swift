/// Rebuilds the registry's state from a session's events (see `ReplayState`).
package enum ReplayEngine {
    /// The state at `seq`: live registrations per channel, and who did and did not
    /// receive the last change at or before `seq`. With `whatIfMulticast`, every change
    /// of a single-slot channel up to `seq` is replayed as if the channel were multicast.
    /// Seq 1 is the start of every session: in a session with no events, its state is
    /// empty.
    /// With `onWhatIf`, each what-if entry is handed to it once final (at its channel's next
    /// change, or at the end; so in sequence order per channel, not overall) instead of
    /// being kept: the state's `whatIf` is then empty, and memory follows the channels,
    /// not the changes (the HTML report replays whole sessions).
    /// - Throws: `AnalysisError.sequenceBeyondEnd` when `seq` is past the last event.
    package static func replay(
        _ reader: JournalReader, session: SessionSummary, at seq: Int64, whatIfMulticast: Bool = false,
        onWhatIf: ((ReplayState.WhatIfChange) -> Void)? = nil
    ) throws(AnalysisError) -> ReplayState {
        guard seq <= session.lastSeqOrStart else {
            throw .sequenceBeyondEnd(path: reader.path, session: session.id, seq: seq, last: session.lastSeq)
        }
        let catalog = try reader.catalog(session: session.id)
        let change = try reader.lastChange(session: session.id, atOrBefore: seq)
        var live = LiveRegistry()
        var liveAtChange: [RegistrationRow] = []
        var timeNs: Int64 = 0
        // What-if: single-slot channels where a replacement does not remove the previous one.
        var multicast: [Int64: [RegistrationRow]] = [:]
        var whatIf: [ReplayState.WhatIfChange] = []
        // The what-if entry of each channel's latest change: its deliveries, and owners the
        // registry found deallocated while dispatching it, come after it in the stream; it
        // is final at the channel's next change.
        var latestWhatIf: [Int64: ReplayState.WhatIfChange] = [:]
        func settle(_ entry: ReplayState.WhatIfChange) {
            if let onWhatIf { onWhatIf(entry) } else { whatIf.append(entry) }
        }
        // Per channel, the label of each registration in its latest what-if entry: the
        // owner's name, with the call site when the owner holds several registrations
        // (an owner that assigned the slot from two places misses with one of them).
        var whatIfLabels: [Int64: [Int64: (owner: Int64, label: String)]] = [:]
        var failure: AnalysisError?
        let lookup = { (id: Int64) throws(AnalysisError) -> RegistrationRow? in
            try reader.registration(session: session.id, id: id)
        }
        // The what-if follows the last change's dispatch past `seq` (its deliveries and the
        // owners found dead come after it) up to the next change; the state stops at `seq`.
        let filter = whatIfMulticast ? EventFilter() : EventFilter(to: seq)
        try reader.forEachEvent(session: session.id, filter: filter) { event in
            let beyond = event.seq > seq
            if beyond && event.kind == .changed { return false }
            if !beyond { timeNs = event.timeNs }
            do throws(AnalysisError) {
                if whatIfMulticast, let channel = event.channelID, catalog.channels[channel]?.isSingleSlot == true {
                    switch event.kind {
                    case .registered, .replaced:
                        if let id = event.registrationID, let row = try lookup(id) {
                            // Re-running the same setup (same owner, same call site) would
                            // re-register, not add a second callback, on a multicast channel too.
                            multicast[channel]?.removeAll { $0.ownerID == row.ownerID && $0.callSiteID == row.callSiteID }
                            multicast[channel, default: []].append(row)
                        }
                    case .removed:
                        multicast[channel]?.removeAll { $0.id == event.registrationID }
                        // Found dead while this change was dispatched: it was dead for the
                        // change too, so a multicast channel would not have called it either.
                        if event.removalReason == .ownerDeallocated, latestWhatIf[channel] != nil, let owner = event.ownerID {
                            let gone = Set((whatIfLabels[channel] ?? [:]).values.filter { $0.owner == owner }.map(\.label))
                            latestWhatIf[channel]?.wouldReceive.removeAll { gone.contains($0) }
                        }
                    case .delivered where !event.isInitialDelivery:
                        // Who was actually called comes from the deliveries, not from who was
                        // registered: a registered owner may already have been gone.
                        if latestWhatIf[channel] != nil, let id = event.registrationID {
                            let label = whatIfLabels[channel]?[id]?.label ?? event.ownerID.flatMap { catalog.objectName($0) }
                            if let label { latestWhatIf[channel]?.received.append(label) }
                        }
                    case .changed where !event.isPrior:
                        let alive = (multicast[channel] ?? []).filter { !catalog.isDeallocated($0.ownerID, at: event.seq) }
                        var perOwner: [Int64: Int] = [:]
                        for row in alive { perOwner[row.ownerID, default: 0] += 1 }
                        var labels: [Int64: (owner: Int64, label: String)] = [:]
                        for row in alive {
                            let owner = catalog.objectName(row.ownerID) ?? "?"
                            let label = perOwner[row.ownerID]! > 1 ? "\(owner) (\(catalog.callSiteName(row.callSiteID) ?? "?"))" : owner
                            labels[row.id] = (row.ownerID, label)
                        }
                        whatIfLabels[channel] = labels
                        if let previous = latestWhatIf[channel] { settle(previous) }
                        latestWhatIf[channel] = ReplayState.WhatIfChange(
                            seq: event.seq, channel: catalog.channelName(channel) ?? "?", received: [],
                            wouldReceive: alive.map { labels[$0.id]!.label }
                        )
                    default:
                        break
                    }
                }
                if beyond { return true }
                try live.apply(event, lookup: lookup)
            } catch {
                failure = error
                return false
            }
            if event.seq == change?.seq, let channel = event.channelID { liveAtChange = live.live(on: channel) }
            return true
        }
        if let failure { throw failure }
        for entry in latestWhatIf.values.sorted(by: { $0.seq < $1.seq }) { settle(entry) }
        // Settled at each channel's next change: back into sequence order.
        whatIf.sort { $0.seq < $1.seq }

        let channels = live.byChannel.keys.sorted().map { channelID in
            ReplayState.ChannelState(
                channelID: channelID, channel: catalog.channelName(channelID) ?? "?",
                policy: catalog.channels[channelID]?.policy ?? "?",
                registrations: live.live(on: channelID).map { row in
                    ReplayState.LiveEntry(
                        registrationID: row.id, owner: catalog.objectName(row.ownerID) ?? "?",
                        ownerAlive: !catalog.isDeallocated(row.ownerID, at: seq),
                        callSite: catalog.callSiteName(row.callSiteID) ?? "?", registeredSeq: row.registeredSeq,
                        options: row.options, scope: row.scopeID.flatMap { catalog.scopes[$0]?.name }
                    )
                }
            )
        }
        var state = ReplayState(
            sessionID: session.id, at: seq, timeNs: timeNs, channels: channels, change: nil,
            whatIf: whatIfMulticast ? whatIf : nil
        )
        if let change {
            let outcome = try outcome(of: change, liveAtChange: liveAtChange, reader: reader, catalog: catalog)
            state.change = outcome
            // An owner the change's own dispatch found deallocated was gone at the change, so
            // at `seq` too: the live list must not call it alive while its registration
            // waits to be swept.
            let gone = Set(outcome.notReceived.filter { !$0.ownerAlive }.map(\.registrationID))
            for channel in state.channels.indices {
                for entry in state.channels[channel].registrations.indices
                where gone.contains(state.channels[channel].registrations[entry].registrationID) {
                    state.channels[channel].registrations[entry].ownerAlive = false
                }
            }
        }
        return state
    }

    /// Who received `change` and who did not, and why.
    static func outcome(
        of change: EventRow, liveAtChange: [RegistrationRow], reader: JournalReader, catalog: JournalCatalog
    ) throws(AnalysisError) -> ReplayState.Change {
        let channelID = change.channelID ?? 0
        // The deliveries and skips of this change follow it, up to the next change of
        // the same channel at the same depth on the same thread.
        var tracker = DispatchTracker()
        // The change completes when its last receipt comes, or at the end.
        var completed = tracker.feed(change)
        try reader.forEachEvent(session: change.sessionID, filter: EventFilter(from: change.seq < .max ? change.seq + 1 : .max)) { event in
            if event.kind == .changed, event.channelID == channelID, event.depth == change.depth,
               event.thread == change.thread {
                return false
            }
            if event.kind == .delivered || event.kind == .skipped, tracker.change(for: event)?.seq == change.seq {
                completed += tracker.feed(event)
            }
            return completed.isEmpty
        }
        completed += tracker.finish()
        let receipts = completed.first { $0.event.seq == change.seq }?.receipts ?? []
        func owner(_ id: Int64) -> String { catalog.objectName(id) ?? "?" }
        func site(_ id: Int64) -> String { catalog.callSiteName(id) ?? "?" }

        var received: [ReplayState.Receiver] = []
        var notReceived: [ReplayState.NonReceiver] = []
        var rows: [Int64: RegistrationRow] = [:]
        for row in liveAtChange { rows[row.id] = row }
        for receipt in receipts where receipt.delivered {
            var row = rows[receipt.registrationID]
            if row == nil { row = try reader.registration(session: change.sessionID, id: receipt.registrationID) }
            received.append(ReplayState.Receiver(
                registrationID: receipt.registrationID, owner: owner(receipt.ownerID ?? row?.ownerID ?? 0),
                callSite: row.map { site($0.callSiteID) } ?? "?", seq: receipt.seq, durationNs: receipt.durationNs
            ))
        }
        let delivered = Set(receipts.filter(\.delivered).map(\.registrationID))
        for row in liveAtChange where !delivered.contains(row.id) {
            let alive = !catalog.isDeallocated(row.ownerID, at: change.seq)
            var reason: String
            var seq: Int64?
            // Set where the owner is known gone: it was not told because it no longer existed.
            var ownerGone = false
            if let skip = receipts.first(where: { !$0.delivered && $0.registrationID == row.id }) {
                reason = "skipped (\(skip.reason ?? "no reason recorded"))"
                seq = skip.seq
            } else if change.isPrior && !row.options.split(separator: ",").contains("prior") {
                reason = "did not ask for prior notifications"
            } else if let deallocSeq = catalog.objects[row.ownerID]?.deallocSeq, row.removedSeq == deallocSeq || !alive {
                reason = "owner deallocated (seen at seq \(deallocSeq))"
                seq = deallocSeq
                ownerGone = true
            } else {
                reason = "live but no delivery recorded"
            }
            notReceived.append(ReplayState.NonReceiver(
                registrationID: row.id, owner: owner(row.ownerID), ownerAlive: alive && !ownerGone,
                callSite: site(row.callSiteID), reason: reason, seq: seq
            ))
        }
        // Earlier registrations on the channel that were gone by the change.
        let history = try reader.registrations(session: change.sessionID, channel: channelID, before: change.seq)
        for row in history.reversed() {
            guard let removedSeq = row.removedSeq, removedSeq < change.seq else { continue }
            let alive = !catalog.isDeallocated(row.ownerID, at: change.seq)
            var reason: String
            switch row.removal {
            case .replaced:
                if let by = history.first(where: { $0.registeredSeq == removedSeq }) {
                    reason = "replaced at seq \(removedSeq) by \(owner(by.ownerID)) (\(site(by.callSiteID)))"
                } else {
                    reason = "replaced at seq \(removedSeq)"
                }
            default:
                reason = "removed at seq \(removedSeq) (\(row.removalReason ?? EventKind.removed.name))"
            }
            reason += alive ? ", owner still alive" : ", owner deallocated"
            notReceived.append(ReplayState.NonReceiver(
                registrationID: row.id, owner: owner(row.ownerID), ownerAlive: alive, callSite: site(row.callSiteID),
                reason: reason, seq: removedSeq
            ))
        }
        return ReplayState.Change(
            seq: change.seq, channel: catalog.channelName(channelID) ?? "?", policy: catalog.channels[channelID]?.policy ?? "?",
            old: change.oldValue, new: change.newValue, isPrior: change.isPrior, depth: change.depth,
            callSite: change.callSiteID.map(site), received: received, notReceived: notReceived
        )
    }
}
