import Synchronization

/// One (subject, key) channel and its registrations, in registration order.
///
/// `entries` is only touched under the registry's lock. Removal marks an entry removed
/// and leaves a tombstone; the array is compacted once tombstones outnumber live entries,
/// so removing n registrations costs O(n) in all, not O(n²).
final class Channel: @unchecked Sendable {
    let info: ChannelInfo
    /// The subject, held weakly; `nil` from the start for notification channels.
    weak var subject: AnyObject?
    let hasSubject: Bool
    /// The payload type callbacks expect; a post of another type reaches nobody.
    let payloadType: ObjectIdentifier

    var entries: ContiguousArray<RegistrationEntry> = []
    var liveCount = 0
    var tombstones = 0
    /// Live registrations that asked for prior notifications; read without the lock to
    /// skip the prior dispatch entirely when nobody wants it.
    let priorCount = Atomic<Int>(0)

    init(info: ChannelInfo, subject: AnyObject?, payloadType: ObjectIdentifier) {
        self.info = info
        self.subject = subject
        self.hasSubject = subject != nil
        self.payloadType = payloadType
    }

    /// The live entry of a single-slot channel, if any.
    var occupant: RegistrationEntry? {
        entries.last(where: { !$0.isRemoved })
    }

    /// Drops tombstones when they outnumber live entries; returns the dropped entries so
    /// the caller releases them outside the lock (their callbacks may hold tokens whose
    /// release calls back into the registry).
    func compactIfNeeded() -> [RegistrationEntry] {
        guard tombstones > 16, tombstones > liveCount else { return [] }
        var dropped: [RegistrationEntry] = []
        dropped.reserveCapacity(tombstones)
        var kept = ContiguousArray<RegistrationEntry>()
        kept.reserveCapacity(liveCount)
        for entry in entries {
            if entry.isRemoved { dropped.append(entry) } else { kept.append(entry) }
        }
        entries = kept
        tombstones = 0
        return dropped
    }
}

/// Channels are found by subject id and key.
struct ChannelKey: Hashable {
    let subject: UInt64
    let key: String
}
