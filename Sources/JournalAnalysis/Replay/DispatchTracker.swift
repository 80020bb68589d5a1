/// Attributes `delivered` and `skipped` events to the change they belong to.
///
/// A schema-4 journal records it (`events.change_seq`); older journals do not, and for
/// them (and for a change the tracker has already completed) it is inferred:
///
/// The registry emits a change, then for each registration a delivery or a skip at the
/// change's depth (a callback's own nested changes come first, one level deeper). So a
/// delivery on channel C at depth d belongs to an open change on C at depth d that was
/// posted after the registration was made and has no receipt from it yet (a
/// registration is called at most once per change): the latest such change posted on
/// the delivering thread (a synchronous delivery), else the oldest posted on another
/// thread that still expects receipts (a delivery through a queue, which runs blocks in
/// order). A change is complete when every registration live at its dispatch has its
/// delivery or skip (`changed.live_count` receipts), when the next change on the same
/// channel, depth and thread arrives, or when the stream ends; a change nobody was live
/// for (`live_count` 0) is complete at the next event. Completing on the receipts keeps
/// the tracker's state to the dispatches still under way: a change was otherwise held
/// until its thread posted on its channel again, and a channel that is never posted
/// again (its subject gone: a screen's model per visit) held its last change, with every
/// receipt, until the end of the session — one per channel the session ever had.
package struct DispatchTracker {
    /// One delivery or skip of a change.
    package struct Receipt: Sendable, Equatable {
        package var seq: Int64
        package var registrationID: Int64
        package var ownerID: Int64?
        package var delivered: Bool
        package var reason: String?
        package var durationNs: Int64?
    }

    /// A change with everything attributed to it.
    package struct CompletedChange: Sendable, Equatable {
        package var event: EventRow
        package var receipts: [Receipt]
        package var deliveredCount: Int { receipts.count(where: \.delivered) }
    }

    struct Key: Hashable {
        var channel: Int64
        var depth: Int
    }

    /// Open changes per channel and depth. A key whose changes all completed keeps its
    /// (empty) entry, so a channel posted again reuses it, until empty entries outnumber
    /// the open changes (`prune`): a channel never posted again does not keep one.
    private var open: [Key: [CompletedChange]] = [:]
    /// How many changes `open` holds.
    private var openCount = 0
    /// A change no registration was live for (at most one): complete at the next event,
    /// not at its own (rules see the change itself before its completion). An array, so
    /// checking it per event copies nothing.
    private var unheard: [CompletedChange] = []
    /// The seq each live registration was made at: a change posted before it cannot be
    /// its change. Entries go with the registration's removal or replacement, so they
    /// follow the live registrations.
    private var registeredSeq = IDMap<Int64>()
    /// Per open change (by seq), how many of the registrations live at its dispatch were
    /// removed there instead of answering, their owner found deallocated: the registry
    /// counts them in `live_count` but calls and skips only the living. Without these
    /// the change waited for receipts that never come, open until its thread posted on
    /// its channel again: for a channel never posted again, until the end.
    private var removedInDispatch: [Int64: Int] = [:]

    /// How many registrations the tracker remembers (the live ones).
    var trackedRegistrations: Int { registeredSeq.count }

    /// How many changes the tracker holds open (dispatches still under way).
    package var openChanges: Int { openCount + unheard.count }

    /// How many channel-and-depth entries the tracker keeps, empty ones included.
    var heldKeys: Int { open.count }

    package init() {}

    /// Feeds one event. Returns the changes this event completed, oldest completion first
    /// (at most two: a change nobody was live for, and one this event completes; usually
    /// none, and an empty array allocates nothing).
    package mutating func feed(_ event: EventRow) -> [CompletedChange] {
        var completed: [CompletedChange] = []
        if !unheard.isEmpty { swap(&completed, &unheard) }
        switch event.kind {
        case .changed:
            guard let channel = event.channelID else { return completed }
            let key = Key(channel: channel, depth: event.depth)
            if let slot = open.index(forKey: key),
               let index = open.values[slot].firstIndex(where: { $0.event.thread == event.thread }) {
                completed.append(close(slot, at: index))
            }
            let change = CompletedChange(event: event, receipts: [])
            if event.liveCount == 0 {
                unheard.append(change)
            } else {
                open[key, default: []].append(change)
                openCount += 1
            }
        case .registered, .replaced:
            if event.kind == .replaced, let old = event.otherRegistrationID { registeredSeq[old] = nil }
            if let registration = event.registrationID { registeredSeq[registration] = event.seq }
        case .removed:
            guard let registration = event.registrationID else { return completed }
            if event.removalReason == .ownerDeallocated, let channel = event.channelID,
               let done = answerByRemoval(event, channel: channel, registration: registration) {
                completed.append(done)
            }
            registeredSeq[registration] = nil
        case .delivered, .skipped:
            guard !event.isInitialDelivery, let channel = event.channelID, let registration = event.registrationID
            else { return completed }
            // One lookup of the key; the list is then read and mutated in place through its
            // slot (copying the list would copy every receipt per delivery).
            guard let slot = open.index(forKey: Key(channel: channel, depth: event.depth)),
                  let index = index(in: open.values[slot], for: event, registration: registration)
            else { return completed }
            let receipt = Receipt(
                seq: event.seq, registrationID: registration, ownerID: event.ownerID,
                delivered: event.kind == .delivered, reason: event.reason, durationNs: event.durationNs
            )
            let removed = removedInDispatch.isEmpty ? 0 : removedInDispatch[open.values[slot][index].event.seq] ?? 0
            if Self.receive(receipt, at: index, in: &open.values[slot], removed: removed) {
                completed.append(close(slot, at: index))
            }
        default:
            break
        }
        return completed
    }

    /// Counts the removal of a deallocated owner's registration as its answer to the
    /// change being dispatched on the removal's thread, channel and depth (the registry
    /// removes the dead it found after calling the living); returns the change when that
    /// was the last answer it waited for.
    private mutating func answerByRemoval(_ event: EventRow, channel: Int64, registration: Int64) -> CompletedChange? {
        guard let slot = open.index(forKey: Key(channel: channel, depth: event.depth)) else { return nil }
        let list = open.values[slot]
        let after = registeredSeq[registration] ?? 0
        guard let index = list.lastIndex(where: { change in
            change.event.thread == event.thread && change.event.seq > after
                && !change.receipts.contains { $0.registrationID == registration }
        }), let live = list[index].event.liveCount, live > 0
        else { return nil }
        let seq = list[index].event.seq
        let removed = removedInDispatch[seq, default: 0] + 1
        guard list[index].receipts.count + removed >= live else {
            removedInDispatch[seq] = removed
            return nil
        }
        return close(slot, at: index)
    }

    /// Adds `receipt` to the change at `index`; whether every registration live at its
    /// dispatch has now answered (the registry calls or skips each once per change, or
    /// removes it when its owner is found deallocated), so that nothing more can belong
    /// to it.
    private static func receive(_ receipt: Receipt, at index: Int, in list: inout [CompletedChange], removed: Int) -> Bool {
        list[index].receipts.append(receipt)
        guard let live = list[index].event.liveCount, live > 0 else { return false }
        return list[index].receipts.count + removed >= live
    }

    /// Removes an open change, in place (`slot`: its key's position in `open`).
    private mutating func close(_ slot: [Key: [CompletedChange]].Index, at index: Int) -> CompletedChange {
        let change = open.values[slot].remove(at: index)
        if !removedInDispatch.isEmpty { removedInDispatch[change.event.seq] = nil }
        openCount -= 1
        if open.count > 2 * openCount + Self.spareKeys { prune() }
        return change
    }

    /// Empty entries kept for reuse beyond twice the open changes.
    static let spareKeys = 256

    /// Drops the entries with no open change (amortised: it runs when empty entries have
    /// come to outnumber the open changes and the spare allowance).
    private mutating func prune() {
        open = open.filter { !$0.value.isEmpty }
    }

    /// The open change a receipt of `registration` on `event.thread` belongs to: the one
    /// the journal names (`change_seq`, schema 4) while it is open, else as the type's
    /// discussion infers it (schema 1–3, or a change no longer open); the latest eligible
    /// one when none expects more receipts.
    func index(in list: [CompletedChange], for event: EventRow, registration: Int64) -> Int? {
        if let changeSeq = event.changeSeq, let index = list.firstIndex(where: { $0.event.seq == changeSeq }) {
            return index
        }
        let after = registeredSeq[registration] ?? 0
        // One pass over the eligible changes, keeping each candidate (it runs for every
        // delivery of a journal without `change_seq`): the last on the delivering thread,
        // the oldest still expecting receipts, the latest; the first of equal seqs.
        var onThread: Int?, oldestExpecting: Int?, latest: Int?
        for index in list.indices {
            let seq = list[index].event.seq
            guard seq > after, !list[index].receipts.contains(where: { $0.registrationID == registration })
            else { continue }
            if list[index].event.thread == event.thread { onThread = index }
            if list[index].event.liveCount.map({ Int64(list[index].receipts.count) < $0 }) ?? true,
               oldestExpecting.map({ seq < list[$0].event.seq }) ?? true {
                oldestExpecting = index
            }
            if latest.map({ list[$0].event.seq < seq }) ?? true { latest = index }
        }
        return onThread ?? oldestExpecting ?? latest
    }

    /// The change a delivery or skip would be attributed to (before feeding it).
    package func change(for event: EventRow) -> EventRow? {
        guard let channel = event.channelID, let registration = event.registrationID,
              let list = open[Key(channel: channel, depth: event.depth)],
              let index = index(in: list, for: event, registration: registration)
        else { return nil }
        return list[index].event
    }

    /// Completes every open change, oldest first (at the end of the stream).
    package mutating func finish() -> [CompletedChange] {
        // Moved out list by list and sorted in place: this runs at the diagnosis's peak,
        // and a flattened copy next to `open`, then a sorted copy of that, held the open
        // changes (each with its receipts) three times over.
        var all: [CompletedChange] = []
        all.reserveCapacity(openCount + unheard.count)
        for key in Array(open.keys) {
            all += open.removeValue(forKey: key) ?? []
        }
        all += unheard
        open = [:]
        openCount = 0
        unheard = []
        removedInDispatch = [:]
        all.sort { $0.event.seq < $1.event.seq }
        return all
    }
}
