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
/// order). A change is complete when the next change on the same channel, depth and
/// thread arrives, or the stream ends.
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

    private var open: [Key: [CompletedChange]] = [:]
    /// The seq each live registration was made at: a change posted before it cannot be
    /// its change. Entries go with the registration's removal or replacement, so they
    /// follow the live registrations.
    private var registeredSeq: [Int64: Int64] = [:]

    /// How many registrations the tracker remembers (the live ones).
    var trackedRegistrations: Int { registeredSeq.count }

    package init() {}

    /// Feeds one event. Returns the changes this event completed (at most one).
    package mutating func feed(_ event: EventRow) -> CompletedChange? {
        switch event.kind {
        case .changed:
            guard let channel = event.channelID else { return nil }
            let key = Key(channel: channel, depth: event.depth)
            var completed: CompletedChange?
            if let index = open[key]?.firstIndex(where: { $0.event.thread == event.thread }) {
                completed = open[key]!.remove(at: index)
            }
            open[key, default: []].append(CompletedChange(event: event, receipts: []))
            return completed
        case .registered, .replaced:
            if event.kind == .replaced, let old = event.otherRegistrationID { registeredSeq[old] = nil }
            if let registration = event.registrationID { registeredSeq[registration] = event.seq }
            return nil
        case .removed:
            if let registration = event.registrationID { registeredSeq[registration] = nil }
            return nil
        case .delivered, .skipped:
            guard !event.isInitialDelivery, let channel = event.channelID, let registration = event.registrationID
            else { return nil }
            let key = Key(channel: channel, depth: event.depth)
            guard let index = index(in: open[key] ?? [], for: event, registration: registration) else { return nil }
            // Mutated in place: copying the list would copy every receipt per delivery.
            open[key]![index].receipts.append(Receipt(
                seq: event.seq, registrationID: registration, ownerID: event.ownerID,
                delivered: event.kind == .delivered, reason: event.reason, durationNs: event.durationNs
            ))
            return nil
        default:
            return nil
        }
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
        let eligible = list.indices.filter { index in
            list[index].event.seq > after && !list[index].receipts.contains { $0.registrationID == registration }
        }
        if let index = eligible.last(where: { list[$0].event.thread == event.thread }) { return index }
        let expecting = eligible.filter { index in
            list[index].event.liveCount.map { Int64(list[index].receipts.count) < $0 } ?? true
        }
        if let oldest = expecting.min(by: { list[$0].event.seq < list[$1].event.seq }) { return oldest }
        return eligible.max { list[$0].event.seq < list[$1].event.seq }
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
        let all = open.values.flatMap { $0 }.sorted { $0.event.seq < $1.event.seq }
        open = [:]
        return all
    }
}
