import ObserverCore

/// Turns the buffer's records back into `ObserverEvent`s, on the writer thread: the
/// app's thread only wrote ids and numbers (`EventRecord`); the channels and
/// registrations they name were defined once each, in the same or an earlier batch.
///
/// Owned by the writer thread.
struct RecordDecoder {
    private var channels: [UInt64: ChannelInfo] = [:]
    private var registrations: [UInt64: RegistrationInfo] = [:]

    /// Appends the events of `pending`, in order, to `events`.
    mutating func decode(_ pending: PendingEvents, into events: inout [ObserverEvent]) {
        for info in pending.channels { channels[info.id] = info }
        for info in pending.registrations { registrations[info.id] = info }
        events.reserveCapacity(events.count + pending.records.count)
        var nextChange = 0
        var nextEvent = 0
        for record in pending.records {
            switch record.kind {
            case .event:
                events.append(pending.events[nextEvent])
                nextEvent += 1
            case .changed:
                let detail = pending.changes[nextChange]
                nextChange += 1
                events.append(ObserverEvent(
                    kind: .changed, time: record.time, thread: record.thread, isMainThread: record.isMainThread,
                    channel: channels[record.channel], callSite: detail.callSite, old: detail.old, new: detail.new,
                    isPrior: record.flags.contains(.prior), depth: Int(record.depth), liveCount: Int(record.liveCount),
                    isMainQueue: record.flags.contains(.mainQueue), changeNumber: record.changeNumber
                ))
            case .delivered:
                var event = ObserverEvent(
                    kind: .delivered, time: record.time, thread: record.thread, isMainThread: record.isMainThread,
                    channel: channels[record.channel], registration: registrations[record.registration],
                    depth: Int(record.depth), duration: record.duration, cpuDuration: record.cpu,
                    isMainQueue: record.flags.contains(.mainQueue), changeNumber: Self.number(record.changeNumber)
                )
                if record.flags.contains(.countedWaits) { event.waits = record.waits }
                events.append(event)
            case .skipped:
                events.append(ObserverEvent(
                    kind: .skipped, time: record.time, thread: record.thread, isMainThread: record.isMainThread,
                    channel: channels[record.channel], registration: registrations[record.registration],
                    skipReason: record.skipReason, depth: Int(record.depth), isMainQueue: record.flags.contains(.mainQueue),
                    changeNumber: Self.number(record.changeNumber)
                ))
            }
        }
    }

    /// A record's change number as the event has it: 0 means none (an initial value, a
    /// forwarded delivery).
    private static func number(_ value: UInt64) -> UInt64? { value == 0 ? nil : value }
}
