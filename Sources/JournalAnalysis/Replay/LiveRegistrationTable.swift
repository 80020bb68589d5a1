/// Registration rows by id, each held as a fixed-size record of integers in one flat array
/// (the texts it names, options, queue and removal reason, as numbers into a shared pool),
/// with an id-to-place index.
///
/// `LiveRegistry` keeps one per live registration for the whole pass, and a long session
/// that leaks registrations holds thousands: as `[Int64: RegistrationRow]` each cost a
/// 144-byte dictionary slot, doubled while the dictionary grew, and a heap copy of any
/// option list over 15 bytes. Here a row costs an 80-byte record and a 12-byte index
/// slot; `subscript` rebuilds the same `RegistrationRow` it was given.
package struct LiveRegistrationTable {
    private struct Record {
        var id: Int64
        var channelID: Int64
        var ownerID: Int64
        var callSiteID: Int64
        var registeredSeq: Int64
        /// Meaningful where `flags` says it is set.
        var senderID: Int64
        var scopeID: Int64
        var removedSeq: Int64
        /// Places in `texts` (`TextPool.none`: `nil`; `TextPool.unpooled`: in `unpooled`).
        var options: UInt32
        var queue: UInt32
        var removalReason: UInt32
        var flags: UInt8

        static let expectsMain: UInt8 = 1
        static let hasSender: UInt8 = 2
        static let hasScope: UInt8 = 4
        static let hasRemovedSeq: UInt8 = 8
    }

    private var records: [Record] = []
    private var places = IDMap<Int32>()
    private var texts = TextPool()
    /// The texts of rows that did not fit the pool (a journal with more distinct texts than
    /// the pool holds): kept per row, so they go with it.
    private var unpooled: [Int64: (options: String, queue: String?, removalReason: String?)] = [:]

    package init() {}

    /// How many rows the table holds.
    package var count: Int { records.count }

    /// Whether the table holds no row.
    package var isEmpty: Bool { records.isEmpty }

    /// Whether a row with `id` is held.
    package func contains(_ id: Int64) -> Bool { places[id] != nil }

    /// The row with `id`, as it was inserted.
    package subscript(id: Int64) -> RegistrationRow? {
        guard let place = places[id] else { return nil }
        return row(records[Int(place)])
    }

    /// Every row, in no particular order.
    package var values: some Sequence<RegistrationRow> {
        records.lazy.map { row($0) }
    }

    /// The rows declared for `scope`, in no particular order: a scope's end asks for them,
    /// and only they are rebuilt as rows.
    package func rows(inScope scope: Int64) -> [RegistrationRow] {
        records.filter { $0.flags & Record.hasScope != 0 && $0.scopeID == scope }.map { row($0) }
    }

    /// Adds `row`, replacing any row with the same id.
    package mutating func insert(_ row: RegistrationRow) {
        if places[row.id] != nil { _ = removeValue(forKey: row.id) }
        var flags: UInt8 = row.expectsMain ? Record.expectsMain : 0
        if row.senderID != nil { flags |= Record.hasSender }
        if row.scopeID != nil { flags |= Record.hasScope }
        if row.removedSeq != nil { flags |= Record.hasRemovedSeq }
        var record = Record(
            id: row.id, channelID: row.channelID, ownerID: row.ownerID, callSiteID: row.callSiteID,
            registeredSeq: row.registeredSeq, senderID: row.senderID ?? 0, scopeID: row.scopeID ?? 0,
            removedSeq: row.removedSeq ?? 0, options: TextPool.unpooled, queue: TextPool.unpooled,
            removalReason: TextPool.unpooled, flags: flags
        )
        if let options = texts.intern(row.options), let queue = texts.intern(row.queue),
           let reason = texts.intern(row.removalReason) {
            (record.options, record.queue, record.removalReason) = (options, queue, reason)
        } else {
            unpooled[row.id] = (row.options, row.queue, row.removalReason)
        }
        places[row.id] = Int32(records.count)
        records.append(record)
    }

    /// Removes and returns the row with `id`; the last record takes its place.
    @discardableResult
    package mutating func removeValue(forKey id: Int64) -> RegistrationRow? {
        guard let place = places.removeValue(forKey: id).map(Int.init) else { return nil }
        let removed = row(records[place])
        unpooled[id] = nil
        let last = records.removeLast()
        if place < records.count {
            records[place] = last
            places[last.id] = Int32(place)
        }
        if records.isEmpty { texts = TextPool() }
        return removed
    }

    private func row(_ record: Record) -> RegistrationRow {
        let options: String, queue: String?, reason: String?
        if record.options == TextPool.unpooled, let own = unpooled[record.id] {
            (options, queue, reason) = own
        } else {
            (options, queue, reason) = (texts[record.options] ?? "", texts[record.queue], texts[record.removalReason])
        }
        return RegistrationRow(
            id: record.id, channelID: record.channelID, ownerID: record.ownerID, callSiteID: record.callSiteID,
            options: options, queue: queue, expectsMain: record.flags & Record.expectsMain != 0,
            senderID: record.flags & Record.hasSender != 0 ? record.senderID : nil,
            scopeID: record.flags & Record.hasScope != 0 ? record.scopeID : nil,
            registeredSeq: record.registeredSeq,
            removedSeq: record.flags & Record.hasRemovedSeq != 0 ? record.removedSeq : nil,
            removalReason: reason
        )
    }
}
