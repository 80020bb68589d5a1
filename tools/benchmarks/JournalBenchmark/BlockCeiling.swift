import CSQLite
import Foundation
import JournalStore

/// (a) The raw ceiling of schema 6: the same events as `RawCeiling` (a `changed` with old
/// and new values, then a `delivered`, copied from what the recorder wrote, with new `seq`,
/// `time_ns` and value texts), encoded before the clock starts into packs of
/// `EventBlock.maxEvents` as the writer encodes them (`EventBlockEncoder`, in
/// `EventPack.elements` order), then inserted into `event_packs` with the SQLite C API through one prepared statement, about 10,000
/// events per `BEGIN IMMEDIATE` transaction, WAL, `synchronous=NORMAL`. What SQLite alone
/// costs per event when events are stored as the recorder now stores them.
enum BlockCeiling {
    /// One pre-encoded block: where its body lies in the shared buffer, and its seqs.
    struct Block {
        var offset: Int
        var length: Int
        var firstSeq: Int64
        var baseTimeNs: Int64
        var count: Int
    }

    static func run(path: String, events: Int) throws -> Double {
        let sample = try RawCeiling.sampleRows(path: path)
        let database = try RawSQLite(path: path)
        try database.execute("PRAGMA synchronous = NORMAL")
        let columnCount = EventColumn.allCases.count
        let templates = try (2...3).map { seq in
            try RawCeiling.copyRow(database, session: sample, seq: seq, columnCount: columnCount)
        }
        defer { for row in templates { for value in row { sqlite3_value_free(value) } } }
        let (bodies, blocks) = encode(templates: templates, events: events)
        let insert = try database.prepare(EventPack.insertSQL)
        defer { sqlite3_finalize(insert) }
        let blocksPerTransaction = max(1, 10_000 / EventBlock.maxEvents)
        let start = now()
        try bodies.withUnsafeBufferPointer { bytes in
            let base = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
            var next = 0
            while next < blocks.count {
                try database.execute("BEGIN IMMEDIATE")
                for block in blocks[next..<min(blocks.count, next + blocksPerTransaction)] {
                    sqlite3_bind_int64(insert, 1, sample + 1)
                    sqlite3_bind_int64(insert, 2, block.firstSeq)
                    sqlite3_bind_int64(insert, 3, Int64(block.count))
                    sqlite3_bind_int64(insert, 4, block.baseTimeNs)
                    sqlite3_bind_text(insert, 5, base + block.offset, Int32(block.length), nil)
                    try database.step(insert)
                }
                next += blocksPerTransaction
                try database.execute("COMMIT")
            }
        }
        let elapsed = now() - start
        return Double(events) / (Double(elapsed) / 1e9)
    }

    /// Every block's body, one after another in one buffer, and where each lies.
    static func encode(templates: [[OpaquePointer]], events: Int) -> ([UInt8], [Block]) {
        var bodies: [UInt8] = []
        var blocks: [Block] = []
        var encoder = EventBlockEncoder()
        var seq = Int64(1_000)
        let end = seq + Int64(events)
        while seq < end {
            let template = templates[Int(seq % 2)]
            encoder.beginEvent(seq: seq, timeNs: seq * 300)
            for column in EventPack.elements.dropFirst() {
                let value = template[Int(column.rawValue)]
                switch column {
                case _ where sqlite3_value_type(value) == SQLITE_NULL:
                    if column.isText { encoder.text(nil as String?) } else { encoder.int(nil) }
                case .oldValue, .newValue: encoder.text(String(seq / 2))
                case _ where column.isText: encoder.text(String(cString: sqlite3_value_text(value)))
                case .depth, .isPrior: encoder.int(sqlite3_value_int64(value) == 0 ? nil : sqlite3_value_int64(value))
                case .changeSeq: encoder.int(1)  // a delivery follows its change: seq - change_seq
                default: encoder.int(sqlite3_value_int64(value))
                }
            }
            encoder.endEvent()
            seq += 1
            if encoder.count == EventBlock.maxEvents || seq == end {
                let (first, base, count) = (encoder.firstSeq, encoder.baseTimeNs, encoder.count)
                encoder.withClosedBody { body in
                    blocks.append(Block(offset: bodies.count, length: body.count, firstSeq: first, baseTimeNs: base, count: count))
                    bodies.append(contentsOf: body)
                }
                encoder.reset()
            }
        }
        return (bodies, blocks)
    }
}

extension EventColumn {
    /// Whether the column holds text (the rest hold integers).
    var isText: Bool { [.oldValue, .newValue, .reason, .detail].contains(self) }
}
