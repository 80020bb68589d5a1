import ObserverCore

/// Events as the buffer keeps them: one `EventRecord` per event, in sequence order; what
/// a record does not hold is in side lists, in the same order (the values and call site
/// of each `changed` record; the `ObserverEvent` of each `.event` record), and the
/// channels and registrations the records name, defined once each.
struct PendingEvents {
    var records: [EventRecord] = []
    var changes: [ChangeDetail] = []
    var events: [ObserverEvent] = []
    var channels: [ChannelInfo] = []
    var registrations: [RegistrationInfo] = []
    /// Channels deallocated: no later record names them (`RecordSink.channelEnded`).
    var endedChannels: [UInt64] = []

    /// What a `changed` record does not hold. The values stay as the registry handed
    /// them over (plain bits for plain types) until the writer reads them.
    struct ChangeDetail {
        var values: ChangeValues
        var callSite: CallSite?
        var old: EventValue? { values.old }
        var new: EventValue? { values.new }
    }

    init() {}

    init(capacity: Int) {
        records.reserveCapacity(capacity)
    }

    var count: Int { records.count }
    var isEmpty: Bool { records.isEmpty }

    /// Empties the lists, keeping their storage. Definitions too: the writer has taken them.
    mutating func removeAll() {
        records.removeAll(keepingCapacity: true)
        changes.removeAll(keepingCapacity: true)
        events.removeAll(keepingCapacity: true)
        channels.removeAll(keepingCapacity: true)
        registrations.removeAll(keepingCapacity: true)
        endedChannels.removeAll(keepingCapacity: true)
    }
}
