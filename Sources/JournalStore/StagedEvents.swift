import CEventBatch
import CSQLite

/// Rows of `events` staged on one connection and inserted together by one statement,
/// `INSERT INTO events (…) SELECT * FROM journal_staged_events`: SQLite reads the staged
/// rows in place through an eponymous virtual table (CEventBatch) registered on this
/// connection only. No parameter is bound and no text copied before SQLite builds the
/// record. The one way rows of `events` are written: the recorder's writer and the
/// fixtures use it.
///
/// The rows and texts live in the batch's C memory, written through a constant pointer: no
/// Swift collection, so no exclusivity check or uniqueness check per row. The only file
/// that touches them.
///
/// Used by one thread at a time, like its connection; one per connection.
package final class StagedEvents {
    private let statement: SQLiteStatement
    /// Owned by the connection (freed with it; the statement keeps the connection alive).
    private let batch: UnsafeMutablePointer<oj_event_batch>

    /// The statement: every column of `events` from the staged row's column of the same position.
    package static let insertSQL = "INSERT INTO events (" + EventColumn.allCases.map(\.name).joined(separator: ", ")
        + ") SELECT * FROM journal_staged_events"

    /// Registers the staged rows' virtual table on `database` and prepares the insert.
    /// - Parameter capacity: the most rows one insert takes; a full stage is inserted
    ///   before another row is staged.
    package init(database: SQLiteDatabase, capacity: Int) throws(SQLiteError) {
        precondition(capacity > 0 && EventColumn.oldValue.rawValue == OJ_STAGED_INTEGERS
            && EventColumn.allCases.count == Int(OJ_STAGED_INTEGERS + OJ_STAGED_TEXTS))
        var made: UnsafeMutablePointer<oj_event_batch>?
        let rc = oj_event_batch_register(database.handle, capacity, &made)
        guard rc != SQLITE_MISUSE else {
            throw SQLiteError(code: rc, message: "the connection already stages events (one StagedEvents per connection)")
        }
        guard rc == SQLITE_OK, let made else { throw database.error(rc) }
        batch = made
        statement = try database.prepare(Self.insertSQL)
    }

    /// The rows staged and not yet inserted.
    package var count: Int { batch.pointee.count }

    /// Stages `event`'s row, inserting the staged rows first if the stage is full.
    package func append(_ event: StoredEvent) throws(SQLiteError) {
        if batch.pointee.count == batch.pointee.capacity { try insert() }
        // The texts first: growing them can fail, and the row is counted only when whole.
        var nulls: UInt32 = 0
        let old = try stage(event.oldValue, .oldValue, nulls: &nulls)
        let new = try stage(event.newValue, .newValue, nulls: &nulls)
        let reason: (offset: UInt32, count: UInt32)
        if let text = event.reason {
            reason = try stage(text)
        } else {
            nulls |= 1 &<< UInt32(EventColumn.reason.rawValue)
            reason = (0, 0)
        }
        func integer(_ value: Int64?, _ column: EventColumn) -> Int64 {
            if let value { return value }
            nulls |= 1 &<< UInt32(column.rawValue)
            return 0
        }
        let row = batch.pointee.rows + batch.pointee.count
        row.pointee.integers = (
            event.sessionID, event.seq, event.timeNs, event.kind, event.thread, event.flags,
            integer(event.channelID, .channelID), integer(event.registrationID, .registrationID),
            integer(event.ownerID, .ownerID), integer(event.changeBack, .changeBack),
            integer(event.durationNs, .durationNs), integer(event.cpuNs, .cpuNs),
            integer(event.liveCount, .liveCount), integer(event.callSiteID, .callSiteID)
        )
        row.pointee.text_offsets = (old.offset, new.offset, reason.offset)
        row.pointee.text_lengths = (old.count, new.count, reason.count)
        row.pointee.nulls = nulls
        batch.pointee.count += 1
    }

    /// Inserts the staged rows, and empties the stage (also when the insert fails).
    package func insert() throws(SQLiteError) {
        guard batch.pointee.count > 0 else { return }
        defer { removeAll() }
        try statement.checkFault(.bind)
        try statement.run()
    }

    /// Forgets the staged rows (those of a transaction that failed).
    package func removeAll() {
        batch.pointee.count = 0
        batch.pointee.texts_used = 0
    }

    // MARK: - Texts

    /// Where `extra` more text bytes go (offset in the texts), made room for.
    private func room(_ extra: Int) throws(SQLiteError) -> Int {
        if batch.pointee.texts_capacity - batch.pointee.texts_used >= extra { return batch.pointee.texts_used }
        let rc = oj_event_batch_reserve_texts(batch, extra)
        guard rc == SQLITE_OK else {
            throw SQLiteError(code: rc, message: "no room for the staged events' texts", sql: Self.insertSQL)
        }
        return batch.pointee.texts_used
    }

    /// Appends a value's text; returns where it is (nothing, and `column` marked NULL, for `nil`).
    private func stage(_ value: ValueText?, _ column: EventColumn, nulls: inout UInt32) throws(SQLiteError)
        -> (offset: UInt32, count: UInt32)
    {
        switch value {
        case nil:
            nulls |= 1 &<< UInt32(column.rawValue)
            return (0, 0)
        case .text(let text)?: return try stage(text)
        case .bool(let flag)?: return try stage(flag ? "true" : "false")
        case .integer(let number)?: return try stage(digitsOf: number)
        }
    }

    /// Appends UTF-8 `text` (a NUL inside it is kept: texts are read by length).
    private func stage(_ text: String) throws(SQLiteError) -> (offset: UInt32, count: UInt32) {
        var text = text
        let start = try room(text.utf8.count)
        let texts = batch.pointee.texts!
        let count = text.withUTF8 { utf8 in
            if let base = utf8.baseAddress { (texts + start).update(from: base, count: utf8.count) }
            return utf8.count
        }
        batch.pointee.texts_used = start + count
        return (UInt32(truncatingIfNeeded: start), UInt32(truncatingIfNeeded: count))
    }

    /// Appends the decimal digits of `number` (a `-` first if negative): written from the
    /// end of 20 bytes (a sign and 19 digits), the text is where they end up.
    private func stage(digitsOf number: Int64) throws(SQLiteError) -> (offset: UInt32, count: UInt32) {
        let start = try room(20)
        let texts = batch.pointee.texts! + start
        var magnitude = number.magnitude
        var first = 20
        repeat {
            first -= 1
            texts[first] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
        if number < 0 {
            first -= 1
            texts[first] = UInt8(ascii: "-")
        }
        batch.pointee.texts_used = start + 20
        return (UInt32(truncatingIfNeeded: start + first), UInt32(truncatingIfNeeded: 20 - first))
    }
}
