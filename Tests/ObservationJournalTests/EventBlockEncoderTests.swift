import Foundation
@testable import JournalStore
import Testing
import TestSupport

/// The block body the writer builds (schema 6's `event_packs`), checked against SQLite's own
/// JSON: byte for byte what `json_array()` writes for the same values, and read back exactly
/// by `json_extract()`. The encoder is positional: these tests give it columns in
/// `EventColumn` order; the writer gives them in `EventPack.elements` order.
@Suite struct EventBlockEncoderTests {
    /// One column of an event after session_id, in `EventColumn` order.
    enum Value: Equatable {
        case int(Int64?)
        case text(String?)

        var isNull: Bool { self == .int(nil) || self == .text(nil) }
    }

    /// Texts a value description may hold: everything JSON must escape, and what it must not.
    static let hostile = [
        "", "plain", "\"quoted\"", "back\\slash\\", "\\\"", "\u{1}\u{7}\u{8}\t\n\u{b}\u{c}\r\u{e}\u{1f}", "del \u{7f}",
        "line\u{2028}para\u{2029}", "emoji 😀 family 👩‍👩‍👧", "é ü ß 中文", "\\u0000 literally", "</script> / slash",
        "{\"json\": [1, null]}", " spaced ",
    ]
    static let integers: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, 1_000_000_007, .max, .min, .min + 1, -9_999_999_999]

    /// Columns 1...23 of an event: every text from `hostile`, every integer from
    /// `integers`, NULLs in the middle, and for odd events trailing NULLs. The seq (not
    /// written) and the time (written as the difference from the first event's) come first.
    static func events() -> [[Value]] {
        hostile.indices.map { index in
            let integer = { (offset: Int) in integers[(index + offset) % integers.count] }
            let text = { (offset: Int) in hostile[(index + offset) % hostile.count] }
            var event: [Value] = [
                .int(Int64(index + 1)), .int(Int64(index) * 1_000_003 - 7), .int(4), .int(integer(1)), .int(Int64(index % 2)),
                .int(integer(2)), .int(nil), .int(integer(3)), .int(nil), .int(nil), .int(integer(4)),
                .int(integer(5)), .int(nil), .int(integer(6)), .int(0), .text(text(0)), .text(text(1)),
                .text(nil), .text(text(2)),
            ]
            event += index % 2 == 0 ? [.int(1), .int(integer(7)), .int(nil), .int(integer(8))] : [.int(nil), .int(nil), .int(nil), .int(nil)]
            return event
        }
    }

    static func encode(_ events: [[Value]]) -> EventBlockEncoder {
        var encoder = EventBlockEncoder(capacity: 16)
        for event in events {
            guard case let .int(seq?) = event[0], case let .int(time?) = event[1] else {
                preconditionFailure("an event starts with its seq and time")
            }
            encoder.beginEvent(seq: seq, timeNs: time)
            for value in event.dropFirst(2) {
                switch value {
                case let .int(number): encoder.int(number)
                case let .text(text): encoder.text(text)
                }
            }
            encoder.endEvent()
        }
        return encoder
    }

    static func bind(_ value: Value, to statement: SQLiteStatement, at index: Int32) throws {
        switch value {
        case let .int(number): try statement.bind(number, at: index)
        case let .text(text): try statement.bind(text, at: index)
        }
    }

    /// What SQLite's `json_array()` makes of an event as the body holds it (no seq, the
    /// time less `base`), its trailing NULLs left out.
    static func sqliteArray(_ event: [Value], base: Int64, database: SQLiteDatabase) throws -> String {
        guard case let .int(time?) = event[1] else { preconditionFailure("an event has a time") }
        let event = [Value.int(time - base)] + event.dropFirst(2)
        let kept = event.prefix(through: event.lastIndex { !$0.isNull } ?? 0)
        let statement = try database.prepare("SELECT json_array(" + Array(repeating: "?", count: kept.count).joined(separator: ", ") + ")")
        for (offset, value) in kept.enumerated() { try bind(value, to: statement, at: Int32(offset + 1)) }
        #expect(try statement.step())
        return statement.text(0)
    }

    @Test func bodyIsByteForByteWhatSQLiteJSONArrayWrites() throws {
        let scratch = try ScratchDirectory()
        let database = try SQLiteDatabase(path: scratch.path(), mode: .readWriteCreate)
        let events = Self.events() + [[
            .int(40), .int(999_999_999_999), .int(0), .int(.min), .int(1), .int(nil), .int(nil), .int(nil), .int(nil), .int(nil),
            .int(nil), .int(0), .int(nil), .int(nil), .int(0), .text("nul \u{0} inside"), .text("\u{0}"),
        ]]
        let encoder = Self.encode(events)
        let expected = try "[" + events.map { try Self.sqliteArray($0, base: -7, database: database) }.joined(separator: ",") + "]"
        let body = encoder.body
        #expect(body == expected)
        #expect((encoder.count, encoder.firstSeq, encoder.lastSeq, encoder.baseTimeNs) == (events.count, 1, 40, -7))
        let bytes = encoder.closedBodyBytes
        #expect(bytes == expected.utf8.count)
        let hasNUL = encoder.lastEventHasNUL
        #expect(hasNUL)
    }

    @Test func sqliteReadsEveryValueBackExactly() throws {
        let scratch = try ScratchDirectory()
        let database = try SQLiteDatabase(path: scratch.path(), mode: .readWriteCreate)
        let events = Self.events()
        let encoder = Self.encode(events)
        let hasNUL = encoder.lastEventHasNUL
        #expect(!hasNUL)
        let body = encoder.body
        #expect(try { () throws -> Int64 in
            let valid = try database.prepare("SELECT json_valid(?) AND json_array_length(?1) = \(events.count)")
            try valid.bind(body, at: 1)
            return try valid.step() ? valid.int(0) : -1
        }() == 1)
        let extract = try database.prepare("SELECT json_extract(?1, ?2) IS ?3 AND json_type(?1, ?2) IS ?4")
        var checked = 0
        for (eventIndex, event) in events.enumerated() {
            for (column, value) in event.enumerated().dropFirst() {
                try extract.bind(body, at: 1)
                try extract.bind("$[\(eventIndex)][\(column - 1)]", at: 2)
                if column == 1, case let .int(time?) = value {
                    try Self.bind(.int(time + 7), to: extract, at: 3)
                } else {
                    try Self.bind(value, to: extract, at: 3)
                }
                let trailing = event[column...].allSatisfy(\.isNull)
                // A trailing NULL is left out: the element is missing, not a JSON null.
                let type: String? = switch value {
                case .int(nil), .text(nil): trailing ? nil : "null"
                case .int: "integer"
                case .text: "text"
                }
                try extract.bind(type, at: 4)
                #expect(try extract.step() && extract.int(0) == 1, "event \(eventIndex) column \(column + 1): \(value)")
                extract.reset()
                checked += 1
            }
        }
        #expect(checked == events.count * 22)
    }

    @Test func trailingNullsAreLeftOutAndTheLastEventCanBeTakenBack() {
        var single = Self.encode([Self.events()[1]])
        single.removeLastEvent()
        #expect(single.body == "[]")
        #expect((single.count, single.firstSeq, single.lastSeq) == (0, 0, 0))
        var encoder = EventBlockEncoder(capacity: 0)
        #expect(encoder.body == "[]")
        let quiet: [Value] = [
            .int(7), .int(1), .int(9), .int(2), .int(0), .int(nil), .int(nil), .int(nil), .int(nil), .int(nil), .int(nil),
            .int(0), .int(nil), .int(nil), .int(0), .text(nil), .text(nil), .text(nil), .text(nil), .int(nil), .int(nil),
            .int(nil), .int(nil),
        ]
        var second = quiet
        second[0] = .int(8)
        second[22] = .int(-3)
        encoder = Self.encode([quiet, second])
        #expect(encoder.body == "[[0,9,2,0,null,null,null,null,null,null,0,null,null,0],"
            + "[0,9,2,0,null,null,null,null,null,null,0,null,null,0,null,null,null,null,null,null,null,-3]]")
        let lastBytes = encoder.lastEventBytes
        #expect(lastBytes == 91)
        encoder.removeLastEvent()
        #expect(encoder.body == "[[0,9,2,0,null,null,null,null,null,null,0,null,null,0]]")
        #expect((encoder.count, encoder.firstSeq, encoder.lastSeq) == (1, 7, 7))
        encoder.reset()
        #expect(encoder.count == 0)
        #expect(encoder.body == "[]")
    }

    /// A number or bool written as the quoted text of its description is byte for byte
    /// what writing that text writes, NULLs before it included.
    @Test func quotedNumbersAndBoolsAreTheBytesOfTheirText() {
        func body(_ column: (inout EventBlockEncoder) -> Void) -> String {
            var encoder = EventBlockEncoder()
            encoder.beginEvent(seq: 1, timeNs: 5)
            encoder.int(nil)
            column(&encoder)
            encoder.endEvent()
            return encoder.body
        }
        for value in Self.integers {
            #expect(body { $0.quotedInt(value) } == body { $0.text(String(value)) })
        }
        #expect(body { $0.quotedInt(-42) } == #"[[0,null,"-42"]]"#)
        #expect(body { $0.quotedBool(true) } == #"[[0,null,"true"]]"#)
        #expect(body { $0.quotedBool(false) } == #"[[0,null,"false"]]"#)
    }

    /// Every digit count is written whole: each power of ten and its neighbours, of both
    /// signs, are the digits of their description (the count is found by comparisons).
    @Test func everyDigitCountIsWrittenWhole() {
        var values: [Int64] = [.max, .min, .max - 1, .min + 1]
        var power: Int64 = 1
        for _ in 0...18 {
            for value in [power - 1, power, power + 1] { values += [value, -value] }
            if power <= Int64.max / 10 { power *= 10 }
        }
        for value in values {
            var encoder = EventBlockEncoder()
            encoder.beginEvent(seq: 1, timeNs: 0)
            encoder.int(value)
            encoder.quotedInt(value)
            encoder.endEvent()
            #expect(encoder.body == "[[0,\(value),\"\(value)\"]]")
        }
    }

    /// Columns written two, four or six in one call are the bytes of one call each.
    @Test func groupedColumnsAreTheBytesOfSingleColumns() {
        let columns: [Int64?] = [nil, 7, nil, nil, -1_234_567_890_123, .min, 0, nil, .max, 42]
        var single = EventBlockEncoder()
        var grouped = EventBlockEncoder()
        single.beginEvent(seq: 1, timeNs: 1)
        grouped.beginEvent(seq: 1, timeNs: 1)
        for column in columns + columns.prefix(4) + [1, 2, 3, 4] { single.int(column) }
        grouped.int(columns[0], columns[1], columns[2], columns[3], columns[4], columns[5])
        grouped.int(columns[6], columns[7], columns[8], columns[9])
        grouped.int(columns[0], columns[1], columns[2], columns[3])
        grouped.int(1 as Int64, 2, 3, 4)
        grouped.int(5, nil)
        grouped.int(nil, 6)
        for column: Int64? in [5, nil, nil, 6] { single.int(column) }
        single.endEvent()
        grouped.endEvent()
        #expect(grouped.body == single.body)
        #expect(grouped.body == "[[0,null,7,null,null,-1234567890123,-9223372036854775808,0,null,9223372036854775807,42,null,7,null,null,1,2,3,4,5,null,null,6]]")
    }

    /// Times are written as differences from the block's first event's time (which may
    /// be later than an event after it: threads take times independently); after a reset,
    /// the next event's time is the new base.
    @Test func timesAreDifferencesFromTheFirstEventsTime() {
        var encoder = EventBlockEncoder()
        for (seq, time) in [(Int64(10), Int64(1_000_000_000_000)), (11, 1_000_000_004_321), (12, 999_999_999_990)] {
            encoder.beginEvent(seq: seq, timeNs: time)
            encoder.int(5)
            encoder.endEvent()
        }
        #expect(encoder.body == "[[0,5],[4321,5],[-10,5]]")
        #expect((encoder.firstSeq, encoder.lastSeq, encoder.baseTimeNs) == (10, 12, 1_000_000_000_000))
        encoder.reset()
        encoder.beginEvent(seq: 13, timeNs: 7)
        encoder.endEvent()
        #expect(encoder.body == "[[0]]")
        #expect(encoder.baseTimeNs == 7)
    }

    @Test func anOutsizedEventsBufferIsGivenBackAtReset() {
        var encoder = EventBlockEncoder()
        encoder.beginEvent(seq: 1, timeNs: 0)
        encoder.int(0)
        encoder.text(String(repeating: "\u{1}", count: 2 << 20))
        encoder.endEvent()
        let grown = encoder.capacity
        #expect(grown > 2 * EventBlock.maxBodyBytes)
        encoder.removeLastEvent()
        encoder.reset()
        let capacity = encoder.capacity
        #expect(capacity == EventBlockEncoder.defaultCapacity)
        #expect(encoder.body == "[]")
    }
}
