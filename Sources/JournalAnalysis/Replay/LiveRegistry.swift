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
    /// Live registration ids per channel, owner, call site and sender filter, oldest first:
    /// `DuplicateRegistrationChecker` asks for the first one at every registration, and
    /// scanning the channel's live list for it cost a pass over every live registration
    /// each time (50,000 registrations on one channel: over two minutes).
    private var byIdentity: [Identity: [Int64]] = [:]

    /// What makes two registrations of one channel the same observation.
    package struct Identity: Hashable {
        package var channel: Int64
        package var owner: Int64
        package var callSite: Int64
        package var sender: Int64?

        package init(channel: Int64, owner: Int64, callSite: Int64, sender: Int64?) {
            self.channel = channel
            self.owner = owner
            self.callSite = callSite
            self.sender = sender
        }

        init(_ row: RegistrationRow) {
            self.init(channel: row.channelID, owner: row.ownerID, callSite: row.callSiteID, sender: row.senderID)
        }
    }

    package init() {}

    /// The live registrations of a channel, oldest first.
    package func live(on channel: Int64) -> [RegistrationRow] {
        (byChannel[channel] ?? []).compactMap { registrations[$0] }
    }

    /// The oldest live registration with `identity` other than `id`: the first of
    /// `live(on: identity.channel)` with its owner, call site and sender, without the pass.
    package func first(_ identity: Identity, other id: Int64) -> RegistrationRow? {
        guard let found = byIdentity[identity]?.first(where: { $0 != id }) else { return nil }
        return registrations[found]
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
        byIdentity[Identity(row), default: []].append(row.id)
    }

    mutating func remove(_ id: Int64) {
        guard let row = registrations.removeValue(forKey: id) else { return }
        byChannel[row.channelID]?.removeAll { $0 == id }
        if byChannel[row.channelID]?.isEmpty == true { byChannel[row.channelID] = nil }
        let identity = Identity(row)
        byIdentity[identity]?.removeAll { $0 == id }
        if byIdentity[identity]?.isEmpty == true { byIdentity[identity] = nil }
    }
}
