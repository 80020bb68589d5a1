import SystemShim
import Synchronization

/// One (subject, key) channel and its registrations, in registration order.
///
/// Everything but `info`, `subject`, `payloadType` and `priorCount` is guarded by two
/// locks: it is changed only under both the registry's lock and the channel's own
/// (`exclusive`, always taken second), and read under either. A post takes only the
/// channel's lock, so threads posting on different channels never wait for each other. Removing a registration empties its slot at once (O(1): each
/// entry knows its index), so the channel stops holding the registration and its
/// callback — whatever the callback captured is freed as soon as no dispatch in flight
/// still holds it. Empty slots are compacted away once they outnumber live entries, so
/// removing n registrations costs O(n) in all, not O(n²).
@usableFromInline
final class Channel: @unchecked Sendable {
    let info: ChannelInfo
    /// The subject, held weakly; `nil` from the start for notification channels.
    weak var subject: AnyObject?
    let hasSubject: Bool
    /// The one payload type its posts and callbacks carry, fixed when the channel is made:
    /// the registry refuses a second type on the same (subject, key) (see
    /// `ObserverRegistry.channel(subject:key:policy:payload:)`).
    let payload: Any.Type
    var payloadType: ObjectIdentifier { ObjectIdentifier(payload) }

    /// Live entries in registration order; `nil` where one was removed.
    ///
    /// `@exclusivity(unchecked)` as in `Protected`: the locks already make every access
    /// exclusive, and the run-time check would add calls into the runtime to every recorded post.
    @exclusivity(unchecked) private(set) var entries: ContiguousArray<RegistrationEntry?> = []
    @exclusivity(unchecked) private(set) var liveCount = 0
    private var emptySlots = 0
    /// Live registrations that asked for prior notifications; read without the lock to
    /// skip the prior dispatch entirely when nobody wants it.
    let priorCount = Atomic<Int>(0)
    /// The channel's own lock (see the type's comment).
    private let lock = Lock()
    /// Told when the channel is deallocated, so it can forget the channel's definition:
    /// entries hold their channel, so no record can name it after that.
    private let recordSink: (any RecordSink)?

    /// Whether any live registration asked for prior notifications.
    @usableFromInline
    var hasPriorObservers: Bool { priorCount.load(ordering: .relaxed) > 0 }

    init(info: ChannelInfo, subject: AnyObject?, payload: Any.Type, recordSink: (any RecordSink)? = nil) {
        self.info = info
        self.subject = subject
        self.hasSubject = subject != nil
        self.payload = payload
        self.recordSink = recordSink
    }

    deinit {
        recordSink?.channelEnded(info.id)
    }

    /// Traps unless `type` is the channel's payload type: a value of another type posted
    /// on it would reach nobody, silently, and a callback of another type would read the
    /// payload as the wrong type. One message for creation and registration.
    func requirePayload(_ type: Any.Type, _ what: String) {
        precondition(
            ObjectIdentifier(type) == payloadType,
            "\(what) with payload type \(type) on \(info) (key \"\(info.key)\"), which already carries payload type "
                + "\(payload): a (subject, key) channel carries one type, and posts of the other would reach no one. "
                + "Use another key for the second value."
        )
    }

    /// Runs `body` under the channel's lock: taken after the registry's lock when both
    /// are needed, never the other way round; `body` must not call the registry.
    func exclusive<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// The entries to deliver a change to.
    func snapshot() -> ContiguousArray<RegistrationEntry?> {
        exclusive { entries }
    }

    /// Adds a new registration at the end. Under both locks.
    func append(_ entry: RegistrationEntry) {
        entry.index = entries.count
        entries.append(entry)
        liveCount += 1
        if entry.options.contains(.prior) { priorCount.add(1, ordering: .relaxed) }
    }

    /// Empties `entry`'s slot. Under both locks. The caller keeps its own reference to the
    /// entry and releases it after unlocking: the entry's callback may hold tokens whose
    /// release calls back into the registry.
    func remove(_ entry: RegistrationEntry) {
        precondition(entries[entry.index] === entry, "registration \(entry.info.id) is not at its index")
        entries[entry.index] = nil
        liveCount -= 1
        emptySlots += 1
        if entry.options.contains(.prior) { priorCount.subtract(1, ordering: .relaxed) }
        compactIfNeeded()
    }

    /// The live entry of a single-slot channel, if any.
    var occupant: RegistrationEntry? {
        entries.last(where: { $0 != nil }) ?? nil
    }

    /// The live entries, in registration order.
    var liveEntries: [RegistrationEntry] {
        entries.compactMap { $0 }
    }

    /// Forgets every entry (for a channel being dropped) and returns the live ones, so
    /// the caller releases them outside the locks. Takes the channel's lock itself; under
    /// the registry's. Breaks the entry → channel → entry
    /// cycle that would otherwise keep both alive.
    func drain() -> [RegistrationEntry] {
        let live = liveEntries
        // The registry removes a channel's registrations before draining it. Should one
        // still be listed, marking it removed makes a later cancel a no-op instead of an
        // index into the emptied array.
        for entry in live { entry.removed.store(true, ordering: .releasing) }
        exclusive {
            entries = []
            liveCount = 0
            emptySlots = 0
        }
        return live
    }

    /// Drops empty slots once they outnumber live entries; amortised O(1) per removal.
    private func compactIfNeeded() {
        guard emptySlots > 16, emptySlots > liveCount else { return }
        var kept = ContiguousArray<RegistrationEntry?>()
        kept.reserveCapacity(liveCount)
        for case let entry? in entries {
            entry.index = kept.count
            kept.append(entry)
        }
        entries = kept
        emptySlots = 0
    }
}

/// Channels are found by subject id and key.
struct ChannelKey: Hashable {
    let subject: UInt64
    let key: String
}
