/// Attributes `delivered` and `skipped` events to the change they belong to.
///
/// The registry emits a change, then for each registration a delivery or a skip at the
/// change's depth (a callback's own nested changes come first, one level deeper). So a
/// delivery on channel C at depth d belongs to the latest change on C at depth d —
/// preferably one posted on the delivering thread, else the latest on any thread (a
/// delivery made on a queue). A change is complete when the next change on the same
/// channel, depth and thread arrives, or the stream ends.
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
        package var skippedCount: Int { receipts.count(where: { !$0.delivered }) }
    }

    struct Key: Hashable {
        var channel: Int64
        var depth: Int
    }

    private var open: [Key: [CompletedChange]] = [:]

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
        case .delivered, .skipped:
            guard !event.isInitialDelivery, let channel = event.channelID, let registration = event.registrationID
            else { return nil }
            let key = Key(channel: channel, depth: event.depth)
            guard let index = Self.index(in: open[key] ?? [], thread: event.thread) else { return nil }
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

    /// The open change on `thread`, else the latest open one.
    static func index(in list: [CompletedChange], thread: Int64) -> Int? {
        if let index = list.lastIndex(where: { $0.event.thread == thread }) { return index }
        return list.indices.max { list[$0].event.seq < list[$1].event.seq }
    }

    /// The change a delivery or skip would be attributed to (before feeding it).
    package func change(for event: EventRow) -> EventRow? {
        guard let channel = event.channelID, let list = open[Key(channel: channel, depth: event.depth)],
              let index = Self.index(in: list, thread: event.thread)
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
