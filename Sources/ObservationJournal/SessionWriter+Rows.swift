import JournalStore
import ObserverCore

/// Event encoding: one event per registry event, in `EventColumn` order, packed into
/// `event_packs` (docs/EVENT-BLOCKS.md); the registry's enumerations in the journal's vocabulary.
extension SessionWriter {
    // MARK: - Events

    /// The columns of one event.
    struct Row {
        var seq: Int64
        var time: UInt64
        var kind: JournalEventKind
        var thread: UInt64
        var isMain: Bool
        /// `nil` for a gap row: no event, so no queue to speak of.
        var isMainQueue: Bool?
        var depth: Int
        var isPrior: Bool
        var channel: Int64?
        var registration: Int64?
        var owner: Int64?
        var otherRegistration: Int64?
        var callSite: Int64?
        var scope: Int64?
        var liveCount: Int64?
        var duration: Int64?
        var cpu: Int64?
        var waits: Int64?
        var changeSeq: Int64?
        var old: ValueText?
        var new: ValueText?
        /// The name of a removal, skip or gap reason.
        var reason: String?
        var detail: String?
    }

    func write(_ event: ObserverEvent, seq: Int64) throws(SQLiteError) {
        var row = Row(
            seq: seq, time: event.time, kind: Self.journal(event.kind), thread: event.thread,
            isMain: event.isMainThread, isMainQueue: event.isMainQueue, depth: event.depth, isPrior: event.isPrior
        )
        if let channel = event.channel {
            if channel.id == 0 {
                // A removal named a channel that does not exist (a misspelled key): there
                // is no channel row to point at, so the event names it as text.
                try note(channel.subject, seq: seq)
                row.detail = channel.description
            } else {
                try note(channel, seq: seq)
                row.channel = Int64(channel.id)
            }
        }
        if let registration = event.registration {
            try note(registration, seq: seq)
            row.registration = Int64(registration.id)
            row.owner = Int64(registration.owner.id)
        }
        if let owner = event.owner {
            try note(owner, seq: seq)
            row.owner = Int64(owner.id)
        }
        if let callSite = event.callSite { row.callSite = try id(of: callSite) }
        // A registration's call site is on its row; the event names it too, so that
        // `event_log.call_site` says where every registration was made.
        if row.callSite == nil, event.kind == .registered || event.kind == .replaced, let registration = event.registration {
            row.callSite = try id(of: registration.callSite)
        }
        switch event.kind {
        case .registered:
            break
        case .replaced:
            if let replaced = event.replaced {
                try note(replaced, seq: seq)
                row.otherRegistration = Int64(replaced.id)
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
            row.old = values.text(for: event.old, key: key).map { .text($0) }
            row.new = values.text(for: event.new, key: key).map { .text($0) }
        case .delivered:
            row.duration = event.duration.map { Int64(clamping: $0) }
            row.cpu = event.cpuDuration.map { Int64(clamping: $0) }
            row.waits = event.waits.map { Int64(clamping: $0) }
            row.new = values.text(for: event.new, key: event.channel?.key).map { .text($0) }
            row.changeSeq = changeSeq(of: event.changeNumber)
        case .skipped:
            row.reason = event.skipReason.map { Self.journal($0).name }
            row.changeSeq = changeSeq(of: event.changeNumber)
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
        if let scope = event.scope { row.scope = Int64(scope.id) }
        try add(row)
    }

    /// A `changed` record's event: what `write(_:seq:)` writes for its decoded event, encoded
    /// straight into the open block (see "Encoding straight into the block"). `detail` is
    /// lent from the batch (copying it out retained and released its references).
    func writeChange(
        _ record: EventRecord, _ detail: UnsafePointer<PendingEvents.ChangeDetail>, decoder: RecordDecoder, seq: Int64
    ) throws(SQLiteError) {
        let channel = try channelID(record.channel, decoder: decoder, seq: seq)
        var callSite: Int64? = nil
        if let site = detail.pointee.callSite { callSite = try id(of: site) }
        changeSeqs[Int(record.changeNumber % UInt64(Self.recentChanges))] = (record.changeNumber, seq)
        // The channel's key matters only to a per-key redaction: no lookup per change without one.
        let redaction = values.redactionByKey.isEmpty
            ? values.redaction : values.redaction(forKey: decoder.channel(record.channel)?.key)
        // Read in place (`plainValues(at:)`): an accessor from another module called on
        // `pointee` copied the values to a temporary and destroyed it. Boxed only when needed.
        let plain = ChangeValues.plainValues(at: detail.pointer(to: \.values)!)
        let old = values.text(for: plain.old, boxed: { detail.pointee.old }, redaction: redaction)
        let new = values.text(for: plain.new, boxed: { detail.pointee.new }, redaction: redaction)
        let isMain = record.flags.rawValue & flagBits.mainThread != 0
        let isMainQueue = record.flags.rawValue & flagBits.mainQueue != 0
        let isPrior = record.flags.rawValue & flagBits.prior != 0
        try startEvent(seq: seq)
        let outcome = hot.block.pointee.appendChange(
            seq: seq, timeNs: Int64(bitPattern: record.time &- startNanoseconds), thread: Int64(bitPattern: record.thread),
            isMain: isMain, isMainQueue: isMainQueue, channel: channel, callSite: callSite,
            liveCount: Int64(record.liveCount), new: new, old: old, depth: record.depth == 0 ? nil : Int64(record.depth),
            isPrior: isPrior
        )
        try endEvent(outcome) {
            var row = Row(
                seq: seq, time: record.time, kind: .changed, thread: record.thread, isMain: isMain,
                isMainQueue: isMainQueue, depth: Int(record.depth), isPrior: isPrior
            )
            row.channel = channel
            row.callSite = callSite
            row.liveCount = Int64(record.liveCount)
            row.old = old
            row.new = new
            return row
        }
    }

    /// A `delivered` or `skipped` record's event: what `write(_:seq:)` writes for its decoded
    /// event, encoded straight into the open block (see "Encoding straight into the block").
    func writeDelivery(_ record: EventRecord, decoder: RecordDecoder, seq: Int64) throws(SQLiteError) {
        // A pattern, not `==`: the kind's `==` from another module is a call through `Equatable`.
        let delivered: Bool
        if case .delivered = record.kind { delivered = true } else { delivered = false }
        let channel = try channelID(record.channel, decoder: decoder, seq: seq)
        var registration: Int64? = nil
        var owner: Int64? = nil
        if record.registration != 0 {
            // A registration's row is written when it is first named; afterwards its id is enough.
            // As with channels, the last registration found spares a lookup.
            if record.registration != lastRegistration {
                if registrations[record.registration] == nil, let info = decoder.registration(record) {
                    try note(info, seq: seq)
                }
                if registrations[record.registration] != nil { lastRegistration = record.registration }
            }
            registration = Int64(record.registration)
            owner = Int64(record.owner)
        }
        let changeSeq = changeSeq(of: record.changeNumber == 0 ? nil : record.changeNumber)
        let isMain = record.flags.rawValue & flagBits.mainThread != 0
        let isMainQueue = record.flags.rawValue & flagBits.mainQueue != 0
        let waits: Int64? = delivered && record.flags.rawValue & flagBits.countedWaits != 0
            ? Int64(clamping: record.waits) : nil
        let reason = delivered ? nil : record.skipReason.map { Self.journal($0).name }
        try startEvent(seq: seq)
        let outcome = hot.block.pointee.appendDelivery(
            seq: seq, timeNs: Int64(bitPattern: record.time &- startNanoseconds), kind: delivered ? .delivered : .skipped,
            thread: Int64(bitPattern: record.thread), isMain: isMain, isMainQueue: isMainQueue, channel: channel,
            registration: registration, owner: owner, duration: delivered ? Int64(clamping: record.duration) : nil,
            cpu: delivered ? Int64(clamping: record.cpu) : nil, changeSeqDelta: changeSeq.map { seq &- $0 },
            reason: reason, waits: waits, depth: record.depth == 0 ? nil : Int64(record.depth)
        )
        try endEvent(outcome) {
            var row = Row(
                seq: seq, time: record.time, kind: delivered ? .delivered : .skipped, thread: record.thread,
                isMain: isMain, isMainQueue: isMainQueue, depth: Int(record.depth), isPrior: false
            )
            row.channel = channel
            row.registration = registration
            row.owner = owner
            if delivered {
                row.duration = Int64(clamping: record.duration)
                row.cpu = Int64(clamping: record.cpu)
            }
            row.waits = waits
            row.reason = reason
            row.changeSeq = changeSeq
            return row
        }
    }

    // MARK: - Encoding straight into the block
    //
    // The frequent events (changes, deliveries, skips) are appended to the open block by
    // one call each (`EventBlockEncoder.appendChange`, `appendDelivery`), the bytes `append`
    // writes for the `Row` they would make. Building a `Row` (312 bytes, four optional
    // strings) and passing it to `append` was about a tenth of the writer thread's
    // instructions per event: its copy, and the reference counting of its strings (NULL as
    // they mostly are) at every copy and destruction. The rare outcomes (a block full by
    // bytes, an event for `event_rows`) take the event back out and hand its `Row` to `add`,
    // which decides as for any other event.

    /// Before an event is appended to the open block: a pack's seqs are consecutive, so a
    /// seq that does not follow the block's last starts a new block (as `add` does).
    @inline(__always)
    private func startEvent(seq: Int64) throws(SQLiteError) {
        let block = hot.block
        if block.pointee.count > 0, seq != block.pointee.lastSeq &+ 1 { try insertOpenBlock() }
    }

    /// After an event was appended to the open block: inserts the block when it is full; an
    /// event it refused (`append`'s `needsRow` and `needsNewBlock`) is added as `row()` by
    /// `add`, which decides where it goes as for any other event.
    @inline(__always)
    private func endEvent(_ outcome: EventBlockEncoder.Outcome, _ row: () -> Row) throws(SQLiteError) {
        switch outcome {
        case .added: return
        case .filled: try insertOpenBlock()
        case .refused: try addOutOfLine(row())
        }
    }

    /// `add`, called (not inlined) from the rare outcomes of `endEvent`.
    @inline(never)
    private func addOutOfLine(_ row: Row) throws(SQLiteError) {
        try add(row)
    }

    /// The id of the channel a record names, its row written on first sight; `nil` for one
    /// never defined (as a decoded event without a channel).
    /// Always inlined (two callers, once per change or delivery): the call passed the
    /// decoder and cost 23 instructions per event, more than the lookup it spares.
    @inline(__always)
    private func channelID(_ id: UInt64, decoder: RecordDecoder, seq: Int64) throws(SQLiteError) -> Int64? {
        // Records come in runs on one channel (a change, then its deliveries): the last
        // one found spares a dictionary lookup (hashing) per record.
        if id == lastChannel, id != 0 { return Int64(id) }
        if channels[id] != nil {
            lastChannel = id
            return Int64(id)
        }
        guard let info = decoder.channel(id), info.id != 0 else { return nil }
        try note(info, seq: seq)
        return Int64(id)
    }

    func write(_ gap: GapRecord) throws(SQLiteError) {
        var row = Row(seq: gap.seq, time: gap.time, kind: .gap, thread: gap.thread, isMain: gap.isMainThread, depth: 0, isPrior: false)
        row.reason = JournalGapReason.bufferFull.name
        row.detail = "dropped=\(gap.dropped)"
        try add(row)
    }

    /// The seq of the `changed` row of change `number`, if it is still remembered.
    func changeSeq(of number: UInt64?) -> Int64? {
        guard let number else { return nil }
        let slot = changeSeqs[Int(number % UInt64(Self.recentChanges))]
        return slot.number == number && slot.seq > 0 ? slot.seq : nil
    }

    /// Adds an event to the open block, inserting the block when it is full: at
    /// `EventBlock.maxEvents` events, or before its body would pass `EventBlock.maxBodyBytes`.
    /// An event a block cannot hold goes to `event_rows` instead, the open block inserted
    /// first so that no block's seq range spans a row: one whose JSON alone would pass the
    /// limit, and one with U+0000 in a text (SQLite's JSON functions end a string there, so
    /// the `events` view would not read it whole).
    ///
    /// Always inlined into its callers (the rare events' writers; changes, deliveries and
    /// skips come here only when the block refused them): the call cost ~24 instructions
    /// per event when every event came through it.
    @inline(__always)
    func add(_ row: Row) throws(SQLiteError) {
        // One access to `block` per event (each access to a class's stored property is
        // checked for exclusivity at run time).
        // A pack's seqs are consecutive (its events' seqs are not written): a seq that does
        // not follow the open block's last starts a new one.
        if block.count > 0, row.seq != block.lastSeq &+ 1 { try insertOpenBlock() }
        switch Self.append(row, start: startNanoseconds, to: &block) {
        case .added:
            return
        case .filled:
            try insertOpenBlock()
        case .needsRow:
            try insertOpenBlock()
            try insert(row, with: insertEvent, bound: &boundEvent)
        case .needsNewBlock:
            try insertOpenBlock()
            _ = Self.append(row, start: startNanoseconds, to: &block)
            if block.count == EventBlock.maxEvents { try insertOpenBlock() }
        }
    }

    /// What `append` did with an event.
    enum Appended {
        /// In the block, which has room for more.
        case added
        /// In the block, which is now full.
        case filled
        /// Not in the block: it goes to `event_rows`.
        case needsRow
        /// Not in the block, which would pass `EventBlock.maxBodyBytes` with it.
        case needsNewBlock
    }

    /// Appends `row` to `block` as one event of a pack's body (docs/EVENT-BLOCKS.md), in
    /// `EventPack.elements` order, unless the block cannot hold it (see `add`).
    static func append(_ row: Row, start: UInt64, to block: inout EventBlockEncoder) -> Appended {
        block.beginEvent(seq: row.seq, timeNs: Int64(bitPattern: row.time &- start))
        // The kind's raw value of the concrete type: `code`, generic over the vocabulary, was a call per event.
        block.int(Int64(row.kind.rawValue), Int64(bitPattern: row.thread), row.isMain ? 1 : 0, row.isMainQueue.map { $0 ? 1 : 0 })
        block.int(row.channel, row.registration, row.owner, row.duration, row.cpu, row.changeSeq.map { row.seq &- $0 })
        block.int(row.callSite, row.liveCount)
        block.text(row.new)
        block.text(row.old)
        block.text(row.reason)
        block.int(row.scope, row.otherRegistration, row.waits, row.depth == 0 ? nil : Int64(row.depth))
        block.int(row.isPrior ? 1 : nil)
        block.text(row.detail)
        block.endEvent()
        if block.lastEventHasNUL || block.lastEventBytes + 2 > EventBlock.maxBodyBytes {
            block.removeLastEvent()
            return .needsRow
        }
        if block.closedBodyBytes > EventBlock.maxBodyBytes {
            block.removeLastEvent()
            return .needsNewBlock
        }
        return block.count == EventBlock.maxEvents ? .filled : .added
    }

    /// Inserts the open block, if it holds any event, and empties it.
    func insertOpenBlock() throws(SQLiteError) {
        guard block.count > 0 else {
            // Still reset: an event that went to event_rows may have grown the buffer.
            block.reset()
            return
        }
        try insertBlock.bind(sessionID, at: 1)
        try insertBlock.bind(block.firstSeq, at: 2)
        try insertBlock.bind(Int64(block.count), at: 3)
        try insertBlock.bind(block.baseTimeNs, at: 4)
        try block.withClosedBody { (body) throws(SQLiteError) in
            defer { insertBlock.unbind(at: 5) }
            try insertBlock.bind(borrowedText: body, at: 5)
            try insertBlock.run()
        }
        block.reset()
    }

    /// Binds `row` to a statement made by `EventColumn.insertSQL(rows: 1)` and runs it;
    /// `bound` is what the statement holds at each parameter (see `BoundParameter`).
    func insert(_ row: Row, with statement: SQLiteStatement, bound: inout [BoundParameter]) throws(SQLiteError) {
        try bound.withUnsafeMutableBufferPointer { (bound) throws(SQLiteError) in
            func int(_ value: Int64?, _ column: EventColumn) throws(SQLiteError) {
                let index = 1 + column.rawValue
                try statement.bind(value, at: index, over: &bound[Int(index - 1)])
            }
            func text(_ value: String?, _ column: EventColumn) throws(SQLiteError) {
                let index = 1 + column.rawValue
                try statement.bind(value, at: index, over: &bound[Int(index - 1)])
            }
            try int(sessionID, .sessionID)
            try int(row.seq, .seq)
            try int(Int64(bitPattern: row.time &- startNanoseconds), .timeNs)
            try int(row.kind.code, .kind)
            try int(Int64(bitPattern: row.thread), .thread)
            try int(row.isMain ? 1 : 0, .isMain)
            try int(row.channel, .channelID)
            try int(row.registration, .registrationID)
            try int(row.owner, .ownerID)
            try int(row.otherRegistration, .otherRegistrationID)
            try int(row.callSite, .callSiteID)
            try int(row.scope, .scopeID)
            try int(Int64(row.depth), .depth)
            try int(row.liveCount, .liveCount)
            try int(row.duration, .durationNs)
            try int(row.isPrior ? 1 : 0, .isPrior)
            try text(row.old?.string, .oldValue)
            try text(row.new?.string, .newValue)
            try text(row.reason, .reason)
            try text(row.detail, .detail)
            try int(row.isMainQueue.map { $0 ? 1 : 0 }, .mainQueue)
            try int(row.cpu, .cpuNs)
            try int(row.waits, .waits)
            try int(row.changeSeq, .changeSeq)
        }
        try statement.run()
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
