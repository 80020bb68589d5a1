import JournalStore
import ObserverCore

/// Event rows: one row of `events` per registry event (`StoredEvent`), and one of
/// `event_details` (`StoredEventDetails`) for the few that carry details; the registry's
/// enumerations in the journal's vocabulary.
extension SessionWriter {
    // MARK: - Events

    /// The row of event `seq` with the columns every event has, as stored: the time since
    /// the session's start, the kind's code, the facts in `flags`.
    func eventRow(
        seq: Int64, time: UInt64, kind: JournalEventKind, thread: UInt64, isMain: Bool, isMainQueue: Bool?,
        depth: Int, isPrior: Bool
    ) -> StoredEvent {
        StoredEvent(
            sessionID: sessionID, seq: seq, timeNs: Int64(bitPattern: time &- startNanoseconds), kind: kind.code,
            thread: Int64(bitPattern: thread),
            flags: EventFlags.encode(isMain: isMain, isPrior: isPrior, isMainQueue: isMainQueue, depth: Int64(depth))
        )
    }

    func write(_ event: ObserverEvent, seq: Int64) throws(SQLiteError) {
        var row = eventRow(
            seq: seq, time: event.time, kind: Self.journal(event.kind), thread: event.thread,
            isMain: event.isMainThread, isMainQueue: event.isMainQueue, depth: event.depth, isPrior: event.isPrior
        )
        var details = StoredEventDetails(sessionID: sessionID, seq: seq)
        if let channel = event.channel {
            if channel.id == 0 {
                // A removal named a channel that does not exist (a misspelled key): there
                // is no channel row to point at, so the event names it as text.
                try note(channel.subject, seq: seq)
                details.detail = channel.description
            } else {
                try note(channel, seq: seq)
                row.channelID = Int64(channel.id)
            }
        }
        if let registration = event.registration {
            try note(registration, seq: seq)
            row.registrationID = Int64(registration.id)
            row.ownerID = Int64(registration.owner.id)
        }
        if let owner = event.owner {
            try note(owner, seq: seq)
            row.ownerID = Int64(owner.id)
        }
        if let callSite = event.callSite { row.callSiteID = try id(of: callSite) }
        // A registration's call site is on its row; the event names it too, so that
        // `event_log.call_site` says where every registration was made.
        if row.callSiteID == nil, event.kind == .registered || event.kind == .replaced, let registration = event.registration {
            row.callSiteID = try id(of: registration.callSite)
        }
        switch event.kind {
        case .registered:
            break
        case .replaced:
            if let replaced = event.replaced {
                try note(replaced, seq: seq)
                details.otherRegistrationID = Int64(replaced.id)
                try remove(replaced.id, reason: .replaced, seq: seq)
            }
        case .removed:
            if let registration = event.registration, let reason = event.removalReason {
                let removal = Self.journal(reason)
                row.reason = removal.name
                try remove(registration.id, reason: removal, seq: seq)
                switch reason {
                case .ownerDeallocated: try deallocated(registration.owner.id, seq: seq)
                case .subjectDeallocated: if let subject = event.channel?.subject { try deallocated(subject.id, seq: seq) }
                default: break
                }
            }
        case .removeUnregistered:
            break
        case .changed:
            if let number = event.changeNumber { changeSeqs[Int(number % UInt64(Self.recentChanges))] = (number, seq) }
            row.liveCount = Int64(event.liveCount)
            let key = event.channel?.key
            row.oldValue = values.text(for: event.old, key: key).map { .text($0) }
            row.newValue = values.text(for: event.new, key: key).map { .text($0) }
        case .delivered:
            row.durationNs = event.duration.map { Int64(clamping: $0) }
            row.cpuNs = event.cpuDuration.map { Int64(clamping: $0) }
            details.waits = event.waits.map { Int64(clamping: $0) }
            details.runQueueNs = event.runQueueWait.map { Int64(clamping: $0) }
            row.newValue = values.text(for: event.new, key: event.channel?.key).map { .text($0) }
            row.changeBack = changeBack(seq: seq, number: event.changeNumber)
        case .skipped:
            row.reason = event.skipReason.map { Self.journal($0).name }
            row.changeBack = changeBack(seq: seq, number: event.changeNumber)
        case .cancelAfterAutoRemoval:
            row.reason = event.removalReason.map { Self.journal($0).name }
        case .ownerGone:
            if let registration = event.registration { try deallocated(registration.owner.id, seq: seq) }
        case .scopeBegan:
            if let scope = event.scope { try note(scope, beganAt: seq) }
        case .scopeEnded:
            if let scope = event.scope {
                try note(scope, beganAt: nil)
                try markScopeEnded.bind(seq, at: 1)
                try markScopeEnded.bind(sessionID, at: 2)
                try markScopeEnded.bind(Int64(scope.id), at: 3)
                try markScopeEnded.run()
                scopes.remove(scope.id)
            }
        }
        if let scope = event.scope { details.scopeID = Int64(scope.id) }
        try add(row, details)
    }

    /// A `changed` record's event: what `write(_:seq:)` writes for its decoded event.
    /// `detail` is lent from the batch (copying it out retained and released its references).
    func writeChange(
        _ record: EventRecord, _ detail: LentChangeDetail, seq: Int64
    ) throws(SQLiteError) {
        let channel = try channelID(record.channel, seq: seq)
        var callSite: Int64? = nil
        if let site = detail.callSite { callSite = try id(of: site) }
        changeSeqs[Int(record.changeNumber % UInt64(Self.recentChanges))] = (record.changeNumber, seq)
        // The channel's key matters only to a per-key redaction: no lookup per change without one.
        let redaction = values.redactionByKey.isEmpty
            ? values.redaction : values.redaction(forKey: channels[record.channel]?.info.key)
        // Read in place; boxed only when needed.
        let plain = detail.plainValues
        var row = eventRow(
            seq: seq, time: record.time, kind: .changed, thread: record.thread,
            isMain: record.flags.contains(.mainThread),
            isMainQueue: record.flags.contains(.mainQueue), depth: Int(record.depth),
            isPrior: record.flags.contains(.prior)
        )
        row.channelID = channel
        row.callSiteID = callSite
        row.liveCount = Int64(record.liveCount)
        row.oldValue = values.text(for: plain.old, boxed: { detail.old }, redaction: redaction)
        row.newValue = values.text(for: plain.new, boxed: { detail.new }, redaction: redaction)
        try add(row)
    }

    /// A `delivered` or `skipped` record's event: what `write(_:seq:)` writes for its
    /// decoded event.
    func writeDelivery(_ record: EventRecord, seq: Int64) throws(SQLiteError) {
        let delivered: Bool
        if case .delivered = record.kind { delivered = true } else { delivered = false }
        let channel = try channelID(record.channel, seq: seq)
        var row = eventRow(
            seq: seq, time: record.time, kind: delivered ? .delivered : .skipped, thread: record.thread,
            isMain: record.flags.contains(.mainThread),
            isMainQueue: record.flags.contains(.mainQueue), depth: Int(record.depth), isPrior: false
        )
        row.channelID = channel
        if record.registration != 0 {
            // A registration's row is written when it is first named; afterwards its id is
            // enough, and after it ended (not held any more) its row was written with its
            // removal. As with channels, the last registration found spares a lookup.
            if record.registration != lastRegistration, let live = registrations[record.registration] {
                if !live.written { try note(live.info, seq: seq) }
                if registrations[record.registration]?.written == true { lastRegistration = record.registration }
            }
            row.registrationID = Int64(record.registration)
            row.ownerID = Int64(record.owner)
        }
        row.changeBack = changeBack(seq: seq, number: record.changeNumber == 0 ? nil : record.changeNumber)
        if delivered {
            row.durationNs = Int64(clamping: record.duration)
            row.cpuNs = Int64(clamping: record.cpu)
            // A slow callback's details: rare.
            if record.flags.contains(.countedWaits) || record.runQueue != nil {
                var details = StoredEventDetails(sessionID: sessionID, seq: seq)
                if record.flags.contains(.countedWaits) { details.waits = Int64(clamping: record.waits) }
                details.runQueueNs = record.runQueue.map { Int64(clamping: $0) }
                try add(row, details)
                return
            }
        } else {
            row.reason = record.skipReason.map { Self.journal($0).name }
        }
        try add(row)
    }

    /// The id of the channel a record names, its row written on first sight; `nil` for one
    /// never defined (as a decoded event without a channel).
    private func channelID(_ id: UInt64, seq: Int64) throws(SQLiteError) -> Int64? {
        // Records come in runs on one channel (a change, then its deliveries): the last
        // one found spares a dictionary lookup (hashing) per record.
        if id == lastChannel, id != 0 { return Int64(id) }
        guard id != 0, let live = channels[id] else { return nil }
        if !live.written { try note(live.info, seq: seq) }
        if channels[id]?.written == true { lastChannel = id }
        return Int64(id)
    }

    func write(_ gap: GapRecord) throws(SQLiteError) {
        // No event, so no queue to speak of.
        var row = eventRow(
            seq: gap.seq, time: gap.time, kind: .gap, thread: gap.thread, isMain: gap.isMainThread, isMainQueue: nil,
            depth: 0, isPrior: false
        )
        row.reason = JournalGapReason.bufferFull.name
        var details = StoredEventDetails(sessionID: sessionID, seq: gap.seq)
        details.detail = "dropped=\(gap.dropped)"
        try add(row, details)
    }

    /// The seq of the `changed` row of change `number`, if it is still remembered.
    func changeSeq(of number: UInt64?) -> Int64? {
        guard let number else { return nil }
        let slot = changeSeqs[Int(number % UInt64(Self.recentChanges))]
        return slot.number == number && slot.seq > 0 ? slot.seq : nil
    }

    /// The `change_back` of event `seq` delivering change `number`: how many events back
    /// its `changed` row is; `nil` when that is not remembered.
    func changeBack(seq: Int64, number: UInt64?) -> Int64? {
        changeSeq(of: number).map { seq &- $0 }
    }

    /// Stages an event's row; its details, unless empty, are inserted now (the two tables'
    /// rows are committed together).
    func add(_ row: StoredEvent, _ details: StoredEventDetails) throws(SQLiteError) {
        if !details.isEmpty {
            try insertDetails.bind(details)
            try insertDetails.run()
        }
        try add(row)
    }

    /// Stages the row of an event without details (the staged rows are inserted when
    /// `rowsPerInsert` wait).
    func add(_ row: StoredEvent) throws(SQLiteError) {
        try staged.append(row)
    }

    // MARK: - The registry's enumerations in the journal's vocabulary

    static func journal(_ kind: ObserverEvent.Kind) -> JournalEventKind {
        switch kind {
        case .registered: return .registered
        case .replaced: return .replaced
        case .removed: return .removed
        case .removeUnregistered: return .removeUnregistered
        case .changed: return .changed
        case .delivered: return .delivered
        case .skipped: return .skipped
        case .scopeBegan: return .scopeBegan
        case .scopeEnded: return .scopeEnded
        case .cancelAfterAutoRemoval: return .cancelAfterAutoRemoval
        case .ownerGone: return .ownerGone
        }
    }

    static func journal(_ reason: RemovalReason) -> JournalRemovalReason {
        switch reason {
        case .explicit: return .explicit
        case .ownerRemovedAll: return .ownerRemovedAll
        case .tokenCancelled: return .tokenCancelled
        case .tokenReleased: return .tokenReleased
        case .ownerDeallocated: return .ownerDeallocated
        case .subjectDeallocated: return .subjectDeallocated
        case .replaced: return .replaced
        case .streamEnded: return .streamEnded
        }
    }

    static func journal(_ reason: SkipReason) -> JournalSkipReason {
        switch reason {
        case .unchanged: return .unchanged
        case .senderMismatch: return .senderMismatch
        case .removedBeforeDelivery: return .removedBeforeDelivery
        }
    }

    static func journal(_ policy: DeliveryPolicy) -> JournalDeliveryPolicy {
        switch policy {
        case .multicast: return .multicast
        case .singleSlot: return .singleSlot
        }
    }
}
