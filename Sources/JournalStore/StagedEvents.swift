import CEventBatch
import CSQLite

/// Rows of `events` staged on one connection and inserted together by one statement,
/// `INSERT INTO events (…) SELECT * FROM journal_staged_events`: SQLite reads the staged
/// rows in place through an eponymous virtual table (CEventBatch) registered on this
/// connection only. No parameter is bound and no text copied before SQLite builds the
/// record. The one way rows of `events` are written: the recorder's writer and the
/// fixtures use it.
///
/// Used by one thread at a time, like its connection; one per connection.
package final class StagedEvents {
    private let statement: SQLiteStatement
    /// The batch the virtual table shows, owned by the connection (freed with it; the
    /// statement keeps the connection alive). Points at `rows` and `texts` only while the
    /// statement steps.
    private let batch: UnsafeMutablePointer<oj_event_batch>
    /// The rows and their texts: one value, so that staging a row is one access to this
    /// object, not one per text.
    private var stage = Stage()

    /// The statement: every column of `events` from the staged row's column of the same position.
    package static let insertSQL = "INSERT INTO events (" + EventColumn.allCases.map(\.name).joined(separator: ", ")
        + ") SELECT * FROM journal_staged_events"

    /// Registers the staged rows' virtual table on `database` and prepares the insert.
    package init(database: SQLiteDatabase) throws(SQLiteError) {
        var made: UnsafeMutablePointer<oj_event_batch>?
        let rc = oj_event_batch_register(database.handle, &made)
        guard rc == SQLITE_OK, let made else { throw database.error(rc) }
        batch = made
        statement = try database.prepare(Self.insertSQL)
    }

    /// The rows staged and not yet inserted.
    package var count: Int { stage.rows.count }

    /// Stages `event`'s row; returns how many rows are staged now.
    @discardableResult
    package func append(_ event: StoredEvent) -> Int {
        stage.append(event)
        return stage.rows.count
    }

    /// Inserts the staged rows, and empties the stage (also when the insert fails).
    package func insert() throws(SQLiteError) {
        guard !stage.rows.isEmpty else { return }
        defer { removeAll() }
        // Offsets and lengths are 32-bit, as SQLite's text lengths are.
        guard stage.texts.count < Int(Int32.max) else {
            throw SQLiteError(code: SQLITE_TOOBIG, message: "the staged events' texts are too long", sql: Self.insertSQL)
        }
        // An empty text is read at an address (at a null pointer SQLite would read NULL).
        stage.texts.append(0)
        try statement.checkFault(.bind)
        try stage.rows.withUnsafeBufferPointer { (rows) throws(SQLiteError) in
            try stage.texts.withUnsafeBufferPointer { (texts) throws(SQLiteError) in
                batch.pointee = oj_event_batch(rows: rows.baseAddress, count: rows.count, texts: texts.baseAddress)
                defer { batch.pointee = oj_event_batch() }
                try statement.run()
            }
        }
    }

    /// Forgets the staged rows (those of a transaction that failed).
    package func removeAll() {
        stage.rows.removeAll(keepingCapacity: true)
        stage.texts.removeAll(keepingCapacity: true)
    }
}

extension StagedEvents {
    /// Rows in the virtual table's layout (`oj_staged_event`), their texts end to end.
    struct Stage {
        var rows: [oj_staged_event] = []
        /// UTF-8.
        var texts: [UInt8] = []

        mutating func append(_ event: StoredEvent) {
            var nulls: UInt32 = 0
            func integer(_ value: Int64?, _ column: EventColumn) -> Int64 {
                if let value { return value }
                nulls |= 1 &<< UInt32(column.rawValue)
                return 0
            }
            var row = oj_staged_event()
            row.integers = (
                event.sessionID, event.seq, event.timeNs, event.kind, event.thread, event.flags,
                integer(event.channelID, .channelID), integer(event.registrationID, .registrationID),
                integer(event.ownerID, .ownerID), integer(event.changeBack, .changeBack),
                integer(event.durationNs, .durationNs), integer(event.cpuNs, .cpuNs),
                integer(event.liveCount, .liveCount), integer(event.callSiteID, .callSiteID)
            )
            let old = stage(event.oldValue, .oldValue, nulls: &nulls)
            let new = stage(event.newValue, .newValue, nulls: &nulls)
            let reason: (offset: UInt32, count: UInt32)
            if let text = event.reason {
                reason = stage(text)
            } else {
                nulls |= 1 &<< UInt32(EventColumn.reason.rawValue)
                reason = (0, 0)
            }
            row.text_offsets = (old.offset, new.offset, reason.offset)
            row.text_lengths = (old.count, new.count, reason.count)
            row.nulls = nulls
            rows.append(row)
        }

        /// Appends a value's text; returns where it is (nothing, and `column` marked NULL,
        /// for `nil`).
        private mutating func stage(_ value: ValueText?, _ column: EventColumn, nulls: inout UInt32) -> (offset: UInt32, count: UInt32) {
            switch value {
            case nil:
                nulls |= 1 &<< UInt32(column.rawValue)
                return (0, 0)
            case .text(let text)?: return stage(text)
            case .bool(let flag)?: return stage(flag ? "true" : "false")
            case .integer(let number)?: return stage(digitsOf: number)
            }
        }

        private mutating func stage(_ text: String) -> (offset: UInt32, count: UInt32) {
            let start = texts.count
            texts.append(contentsOf: text.utf8)
            return (UInt32(truncatingIfNeeded: start), UInt32(truncatingIfNeeded: texts.count - start))
        }

        /// Appends the decimal digits of `number` (a `-` first if negative).
        private mutating func stage(digitsOf number: Int64) -> (offset: UInt32, count: UInt32) {
            let start = texts.count
            // At most 20 bytes: a sign and 19 digits, written from the end.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
                var magnitude = number.magnitude
                var first = 20
                repeat {
                    first -= 1
                    digits[first] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                    magnitude /= 10
                } while magnitude > 0
                if number < 0 {
                    first -= 1
                    digits[first] = UInt8(ascii: "-")
                }
                texts.append(contentsOf: UnsafeBufferPointer(rebasing: digits[first...]))
            }
            return (UInt32(truncatingIfNeeded: start), UInt32(truncatingIfNeeded: texts.count - start))
        }
    }
}
