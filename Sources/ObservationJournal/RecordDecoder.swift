import ObserverCore

/// Keeps the definitions of the channels and registrations the buffer's records name, on
/// the writer thread: the app's thread only wrote ids and numbers (`EventRecord`); the
/// channels and registrations they name were defined once each, in the same or an earlier
/// batch. The writer writes records as rows with it (`SessionWriter.write(_:decoder:)`).
///
/// A registration's definition is kept only while it lives: its removal (or replacement)
/// event has the writer note its row, so a later record naming it (a queued delivery's
/// skip) needs only its id and its owner's, which the record carries. Memory follows the
/// live registrations, not the session's history. A channel's definition is kept until the
/// channel is deallocated (`RecordSink.channelEnded`, after every record naming it).
///
/// Owned by the writer thread.
struct RecordDecoder {
    private var channels: [UInt64: ChannelInfo] = [:]
    private var registrations: [UInt64: RegistrationInfo] = [:]

    /// How many registration definitions are held (tests: bounded by live registrations).
    var heldRegistrations: Int { registrations.count }
    /// How many channel definitions are held (tests: bounded by live channels).
    var heldChannels: Int { channels.count }
    /// The channels that ended in the batch last ended (`endBatch`): the writer forgets
    /// them once it has written the batch.
    private(set) var endedChannels: [UInt64] = []

    /// The registration a delivery or skip of an ended registration names: its id, channel
    /// and owner, and none of its definition (`isEnded`).
    static let endedCallSite = CallSite(file: "", line: 0, function: "")

    /// Whether `info` stands for a registration that had ended before the record naming it
    /// was decoded: its row was written (with its removal) when it ended, and nothing else
    /// about it is known now, so it must not be noted again (its empty call site and type
    /// name would become rows of their own).
    static func isEnded(_ info: RegistrationInfo) -> Bool {
        info.owner.typeName.isEmpty && info.callSite == endedCallSite
    }

    /// Takes the channels and registrations `pending` defines; the writer calls it before
    /// it writes the batch's records.
    mutating func define(_ pending: PendingEvents) {
        for info in pending.channels { channels[info.id] = info }
        for info in pending.registrations { registrations[info.id] = info }
    }

    /// Notes a rare event read from the buffer: a removal or replacement ends the
    /// registration's definition (the event carries it in full, so the writer has its row
    /// once this event is written).
    mutating func read(_ event: ObserverEvent) {
        switch event.kind {
        case .removed: if let id = event.registration?.id { registrations[id] = nil }
        case .replaced: if let id = event.replaced?.id { registrations[id] = nil }
        default: break
        }
    }

    /// The channel a record names.
    func channel(_ id: UInt64) -> ChannelInfo? { channels[id] }

    /// Forgets the channels that ended in `pending` (`endedChannels` then lists them), after
    /// every record of the batch is read: a record may name a channel that ended later in
    /// the same batch, never one that ended in an earlier one. The writer calls it once the
    /// batch is committed.
    mutating func endBatch(_ pending: PendingEvents) {
        endedChannels.removeAll(keepingCapacity: true)
        for id in pending.endedChannels where channels.removeValue(forKey: id) != nil {
            endedChannels.append(id)
        }
    }

    /// The registration a delivery or skip names: its definition while it lives; after it
    /// ended, its id, channel and owner (all its row needs; the writer wrote the rest when
    /// the registration ended).
    func registration(_ record: EventRecord) -> RegistrationInfo? {
        if let info = registrations[record.registration] { return info }
        guard record.registration != 0 else { return nil }
        return RegistrationInfo(
            id: record.registration, channelID: record.channel, owner: ObjectRef(id: record.owner, typeName: ""),
            callSite: Self.endedCallSite, options: []
        )
    }

    /// A record's change number as the event has it: 0 means none (an initial value, a
    /// forwarded delivery).
    private static func number(_ value: UInt64) -> UInt64? { value == 0 ? nil : value }
}
