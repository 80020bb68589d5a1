/// The registrations live at the current point of a replay, per channel in registration
/// order: the registry's state rebuilt from `registered`, `replaced` and `removed` events.
///
/// Holds only what is live, so its size follows the live registrations, not the events.
package struct LiveRegistry {
    /// Live registrations by id, as compact records (a session that leaks registrations
    /// has thousands live).
    package private(set) var registrations = LiveRegistrationTable()
    /// Live registration ids per channel, oldest first.
    package private(set) var byChannel: [Int64: [Int64]] = [:]

    package init() {}

    /// The live registrations of a channel, oldest first.
    package func live(on channel: Int64) -> [RegistrationRow] {
        (byChannel[channel] ?? []).compactMap { registrations[$0] }
    }

    /// Applies one event. `lookup` fetches a registration's row for `registered` and
    /// `replaced` (the events name only its id).
    package mutating func apply(_ event: EventRow, lookup: (Int64) throws(AnalysisError) -> RegistrationRow?) throws(AnalysisError) {
        switch event.kind {
        case .registered:
            guard let id = event.registrationID else { return }
            add(try lookup(id) ?? Self.synthesized(from: event, id: id))
        case .replaced:
            if let old = event.otherRegistrationID { remove(old) }
            guard let id = event.registrationID else { return }
            add(try lookup(id) ?? Self.synthesized(from: event, id: id))
        case .removed:
            if let id = event.registrationID { remove(id) }
        default:
            break
        }
    }

    /// A row for a registration the `registrations` table lacks (a writer that died
    /// between the event and the row): what the event itself says.
    static func synthesized(from event: EventRow, id: Int64) -> RegistrationRow {
        RegistrationRow(
            id: id, channelID: event.channelID ?? 0, ownerID: event.ownerID ?? 0, callSiteID: event.callSiteID ?? 0,
            options: "", queue: nil, expectsMain: false, senderID: nil, scopeID: event.scopeID,
            registeredSeq: event.seq, removedSeq: nil, removalReason: nil
        )
    }

    mutating func add(_ row: RegistrationRow) {
        guard !registrations.contains(row.id) else { return }
        registrations.insert(row)
        byChannel[row.channelID, default: []].append(row.id)
    }

    mutating func remove(_ id: Int64) {
        guard let row = registrations.removeValue(forKey: id) else { return }
        byChannel[row.channelID]?.removeAll { $0 == id }
        if byChannel[row.channelID]?.isEmpty == true { byChannel[row.channelID] = nil }
    }
}
