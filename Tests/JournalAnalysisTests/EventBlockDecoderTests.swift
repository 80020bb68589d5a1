import JournalStore
import Testing

/// `EventBlockDecoder` against docs/EVENT-BLOCKS.md: exact values for every column type and every
/// JSON escape, and one exact refusal for each way a body can be damaged, for schema 5's
/// blocks and schema 6's packs.
struct EventBlockDecoderTests {
    /// One decoded event: its integers by element index (nil for NULL) and its texts.
    struct Decoded: Equatable {
        var integers: [Int64?]
        var texts: [String?]
    }

    func decode(_ body: String, first: Int64, last: Int64, count: Int64) throws(EventBlockDecoder.Damage) -> [Decoded] {
        let decoder = EventBlockDecoder()
        var events: [Decoded] = []
        let bytes = Array(body.utf8)
        try bytes.withUnsafeBufferPointer { (buffer) throws(EventBlockDecoder.Damage) in
            try decoder.decode(buffer, firstSeq: first, lastSeq: last, eventCount: count) { decoder in
                let columns = EventColumn.allCases.dropFirst()
                events.append(Decoded(
                    integers: columns.map { decoder.integer($0) },
                    texts: [EventColumn.oldValue, .newValue, .reason, .detail].map { decoder.text($0) }
                ))
            }
        }
        return events
    }

    func damage(_ body: String, first: Int64 = 1, last: Int64 = 1, count: Int64 = 1) -> String? {
        do {
            _ = try decode(body, first: first, last: last, count: count)
            return nil
        } catch {
            return error.what
        }
    }

    @Test func everyColumnTypeAndEscapeDecodesExactly() throws {
        let body = """
             [ [ 1 , -9223372036854775808 , 5 , 9223372036854775807 , 0 , 0 , -1 , 7 , 8 , 9 , 10 , 11 , 12 , 13 , 1 ,
              "q\\"b\\\\s\\/f\\b\\f\\n\\r\\t\\u0000\\u001F\\u00e9\\u20AC\\ud83d\\ude00" , "" , "plain ü € 😀 \u{7F}" , null , 0 , 14 , 15 , 16 ] ,
              [2,3,4,5,1,null,null,null,null,null,null,0,null,null,0]]\t\r\n
            """
        let events = try decode(body, first: 1, last: 2, count: 2)
        #expect(events == [
            Decoded(
                integers: [1, .min, 5, .max, 0, 0, -1, 7, 8, 9, 10, 11, 12, 13, 1, nil, nil, nil, nil, 0, 14, 15, 16],
                texts: ["q\"b\\s/f\u{8}\u{C}\n\r\t\u{0}\u{1F}é€😀", "", "plain ü € 😀 \u{7F}", nil]
            ),
            Decoded(
                integers: [2, 3, 4, 5, 1, nil, nil, nil, nil, nil, nil, 0, nil, nil, 0] + Array(repeating: nil, count: 8),
                texts: [nil, nil, nil, nil]
            ),
        ])
    }

    @Test func hostileButValidStringsRoundTrip() throws {
        let hostile = "'; DROP TABLE events; --\u{1B}[31m\u{202E}\u{0}\u{FFFF}\u{10FFFF}"
        // Escaped as JSON must escape it: quotes, backslashes and control characters.
        var json = "\""
        for scalar in hostile.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case _ where scalar.value < 0x20: json += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: json.unicodeScalars.append(scalar)
            }
        }
        json += "\""
        let events = try decode("[[1,0,4,1,1,null,null,null,null,null,null,0,null,null,0,\(json)]]", first: 1, last: 1, count: 1)
        #expect(events.map(\.texts) == [[hostile, nil, nil, nil]])
    }

    static let damaged: [(body: String, first: Int64, last: Int64, count: Int64, what: String)] = [
        ("", 1, 1, 1, "the body is not a JSON array"),
        ("{}", 1, 1, 1, "the body is not a JSON array"),
        ("[", 1, 1, 1, "the body ends before its first event (truncated)"),
        ("[[1,0,4,1,1,null,null,null,null,null,null,0,null,null,0", 1, 1, 1, "the body ends inside event 1 (truncated)"),
        ("[[1,0,4,1,1,null,null,null,null,null,null,0,null,null,0]", 1, 1, 1, "the body ends after event 1 (truncated)"),
        ("[[1,0,4,1,1,null,null,null,null,null,null,0,null,null,0,\"abc", 1, 1, 1, "the body ends inside event 1 (truncated)"),
        ("[]", 1, 1, 1, "its event_count is 1, its body holds 0 events"),
        ("[[1,0,4,1,1,null,null,null,null,null,null,0,null,null,0]] x", 1, 1, 1, "bytes follow the body's array at byte 58"),
        ("[[1,0,4,1,1,null,null,null,null,null,null,0,null,null,0];", 1, 1, 1, "unexpected ';' after event 1 (byte 56)"),
        ("[[1,0,4,1,1,null,null,null,null,null,null,0,null,null]]", 1, 1, 1, "event 1 has 14 elements, not 15 to 23"),
        ("[[1,0,4,1,1,null,null,null,null,null,null,0,null,null,0,null,null,null,null,null,null,null,null,null]]", 1, 1, 1,
         "event 1 has more than 23 elements"),
        ("[[\"1\",0,4,1,1,null,null,null,null,null,null,0,null,null,0]]", 1, 1, 1, "event 1: seq is a string, not an integer (byte 2)"),
        ("[[1,0,4,1,1,null,null,null,null,null,null,0,null,null,0,7]]", 1, 1, 1, "event 1: old_value is a number, not a string (byte 56)"),
        ("[[1,0.5,4,1,1,null,null,null,null,null,null,0,null,null,0]]", 1, 1, 1, "event 1: time_ns is not an integer (byte 4)"),
        ("[[1,1e3,4,1,1,null,null,null,null,null,null,0,null,null,0]]", 1, 1, 1, "event 1: time_ns is not an integer (byte 4)"),
        ("[[1,01,4,1,1,null,null,null,null,null,null,0,null,null,0]]", 1, 1, 1, "event 1: time_ns has a leading zero (byte 4)"),
        ("[[1,-,4,1,1,null,null,null,null,null,null,0,null,null,0]]", 1, 1, 1, "event 1: time_ns is not a number (byte 4)"),
        ("[[1,9223372036854775808,4,1,1,null,null,null,null,null,null,0,null,null,0]]", 1, 1, 1,
         "event 1: time_ns does not fit a 64-bit integer (byte 4)"),
        ("[[1,-9223372036854775809,4,1,1,null,null,null,null,null,null,0,null,null,0]]", 1, 1, 1,
         "event 1: time_ns does not fit a 64-bit integer (byte 4)"),
        ("[[1,true,4,1,1,null,null,null,null,null,null,0,null,null,0]]", 1, 1, 1, "event 1: time_ns is not an integer or null (byte 4)"),
        ("[[1,nul,4,1,1,null,null,null,null,null,null,0,null,null,0]]", 1, 1, 1, "event 1: malformed value at byte 4"),
        ("[[1,null,4,1,1,null,null,null,null,null,null,0,null,null,0]]", 1, 1, 1, "event 1: time_ns is null"),
        ("[[1,0,4,1,2,null,null,null,null,null,null,0,null,null,0]]", 1, 1, 1, "event 1: is_main is 2, not 0 or 1"),
        ("[[1,0,4,1,1,[1],null,null,null,null,null,0,null,null,0]]", 1, 1, 1, "event 1: channel_id is not an integer or null (byte 12)"),
        ("[[1,0,4,1,1,null,null,null,null,null,null,0,null,null,0,\"\\ud800\"]]", 1, 1, 1,
         "event 1: old_value holds a lone surrogate escape (byte 57)"),
        ("[[1,0,4,1,1,null,null,null,null,null,null,0,null,null,0,\"\\udc00\"]]", 1, 1, 1,
         "event 1: old_value holds a lone surrogate escape (byte 57)"),
        ("[[1,0,4,1,1,null,null,null,null,null,null,0,null,null,0,\"\\ud800\\u0041\"]]", 1, 1, 1,
         "event 1: old_value holds a lone surrogate escape (byte 57)"),
        ("[[1,0,4,1,1,null,null,null,null,null,null,0,null,null,0,\"\\x\"]]", 1, 1, 1, "event 1: old_value holds an invalid escape (byte 57)"),
        ("[[1,0,4,1,1,null,null,null,null,null,null,0,null,null,0,\"\\u00G0\"]]", 1, 1, 1, "event 1: old_value holds an invalid escape (byte 57)"),
        ("[[1,0,4,1,1,null,null,null,null,null,null,0,null,null,0,\"a\nb\"]]", 1, 1, 1,
         "event 1: old_value holds a raw control character (byte 0x0A at 58)"),
        ("[[1,0,4,1,1,null,null,null,null,null,null,0,null,null,0,\"\\n\tb\"]]", 1, 1, 1,
         "event 1: old_value holds a raw control character (byte 0x09 at 59)"),
        ("[1]", 1, 1, 1, "event 1 is not a JSON array (byte 1)"),
        ("[\(event1),\(event1)]", 1, 1, 2, "event 2 has seq 1, not after seq 1"),
        ("[\(event(2)),\(event(1))]", 2, 1, 2, "event 2 has seq 1, not after seq 2"),
        ("[\(event1)]", 2, 1, 1, "its first event has seq 1, not its first_seq 2"),
        ("[\(event1)]", 1, 5, 1, "its last event has seq 1, not its last_seq 5"),
        ("[\(event1)]", 1, 1, 2, "its event_count is 2, its body holds 1 events"),
        ("[\(event1)]", 1, 1, 0, "event_count 0 is not between 1 and 256"),
        ("[\(event1)]", 1, 1, 257, "event_count 257 is not between 1 and 256"),
    ]

    static let event1 = "[1,0,4,1,1,null,null,null,null,null,null,0,null,null,0]"

    static func event(_ seq: Int64) -> String {
        "[\(seq),0,4,1,1,null,null,null,null,null,null,0,null,null,0]"
    }

    @Test(arguments: damaged.indices) func damagedBodyIsRefusedSayingWhat(_ index: Int) {
        let entry = Self.damaged[index]
        #expect(damage(entry.body, first: entry.first, last: entry.last, count: entry.count) == entry.what)
    }

    @Test func invalidUTF8IsRefused() {
        let decoder = EventBlockDecoder()
        let bytes = Array("[[1,0,4,1,1,null,null,null,null,null,null,0,null,null,0,\"a".utf8) + [0xFF, 0xC0] + Array("\"]]".utf8)
        var failure: String?
        do {
            try bytes.withUnsafeBufferPointer { (buffer) throws(EventBlockDecoder.Damage) in
                try decoder.decode(buffer, firstSeq: 1, lastSeq: 1, eventCount: 1) { _ in }
            }
        } catch {
            failure = error.what
        }
        #expect(failure == "event 1: old_value is not valid UTF-8 (string at byte 57)")
    }

    /// `[[[[…` 100,000 deep is refused at the third `[`, with no recursion; a 257th event
    /// is refused before it is decoded.
    @Test func deepNestingAndTooManyEventsStopEarly() {
        #expect(damage(String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000))
            == "event 1: seq is not an integer or null (byte 2)")
        let many = "[" + (1...300).map { Self.event(Int64($0)) }.joined(separator: ",") + "]"
        #expect(damage(many, first: 1, last: 300, count: 256) == "the body holds more than 256 events")
    }

    // MARK: - Schema 6 packs (`EventPack`)

    func decodePack(_ body: String, first: Int64, count: Int64, base: Int64) throws(EventBlockDecoder.Damage) -> [Decoded] {
        let decoder = EventBlockDecoder()
        var events: [Decoded] = []
        let bytes = Array(body.utf8)
        try bytes.withUnsafeBufferPointer { (buffer) throws(EventBlockDecoder.Damage) in
            try decoder.decodePack(buffer, firstSeq: first, eventCount: count, baseTimeNs: base) { decoder in
                events.append(Decoded(
                    integers: EventColumn.allCases.dropFirst().map { decoder.integer($0) },
                    texts: [EventColumn.oldValue, .newValue, .reason, .detail].map { decoder.text($0) }
                ))
            }
        }
        return events
    }

    func packDamage(_ body: String, first: Int64 = 1, count: Int64 = 1, base: Int64 = 0) -> String? {
        do {
            _ = try decodePack(body, first: first, count: count, base: base)
            return nil
        } catch {
            return error.what
        }
    }

    /// Every element of a pack's event lands in its column: the seq from the event's place,
    /// the time and change_seq from their differences, depth and is_prior 0 when left out.
    @Test func everyPackElementDecodesToItsColumn() throws {
        // Elements: time−base, kind, thread, is_main, main_queue, channel_id, registration_id,
        // owner_id, duration_ns, cpu_ns, seq−change_seq, call_site_id, live_count, new_value,
        // old_value, reason, scope_id, other_registration_id, waits, depth, is_prior, detail.
        let body = """
            [[0,4,7,1,1,3,null,null,null,null,null,9,2,"new \\u00e9","old",null,11,null,null,null,1,"d"],            [-5,5,7,0,0,3,21,22,1500,1400,1,null,null,"new"],[12,8,1,1]]
            """
        let events = try decodePack(body, first: 100, count: 3, base: 1_000)
        #expect(events == [
            Decoded(
                integers: [100, 1_000, 4, 7, 1, 3, nil, nil, nil, 9, 11, 0, 2, nil, 1, nil, nil, nil, nil, 1, nil, nil, nil],
                texts: ["old", "new é", nil, "d"]
            ),
            Decoded(
                integers: [101, 995, 5, 7, 0, 3, 21, 22, nil, nil, nil, 0, nil, 1500, 0, nil, nil, nil, nil, 0, 1400, nil, 100],
                texts: [nil, "new", nil, nil]
            ),
            Decoded(
                integers: [102, 1_012, 8, 1, 1, nil, nil, nil, nil, nil, nil, 0, nil, nil, 0] + Array(repeating: nil, count: 8),
                texts: [nil, nil, nil, nil]
            ),
        ])
    }

    /// Each way a pack's body or columns can be damaged, beyond the grammar a schema-5
    /// body shares (above): the one line that refuses it.
    static let damagedPacks: [(body: String, first: Int64, count: Int64, base: Int64, what: String)] = [
        ("[[0,4,1]]", 1, 1, 0, "event 1 has 3 elements, not 4 to 22"),
        ("[[0,4,1,1,1,null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,null]]", 1, 1, 0,
         "event 1 has more than 22 elements"),
        ("[[null,4,1,1]]", 1, 1, 0, "event 1: time_ns is null"),
        ("[[0,null,1,1]]", 1, 1, 0, "event 1: kind is null"),
        ("[[0,4,1,2]]", 1, 1, 0, "event 1: is_main is 2, not 0 or 1"),
        ("[[0,4,1,1,2]]", 1, 1, 0, "event 1: main_queue is 2, not 0 or 1"),
        ("[[0,4,1,1,null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,2]]", 1, 1, 0,
         "event 1: is_prior is 2, not 0 or 1"),
        ("[[\"0\",4,1,1]]", 1, 1, 0, "event 1: time_ns is a string, not an integer (byte 2)"),
        ("[[0,4,1,1,null,null,null,null,null,null,null,null,null,7]]", 1, 1, 0,
         "event 1: new_value is a number, not a string (byte 55)"),
        ("[[0,4,1,1],[1,4,1,1]]", 1, 1, 0, "its event_count is 1, its body holds 2 events"),
        ("[[0,4,1,1]]", 1, 2, 0, "its event_count is 2, its body holds 1 events"),
        ("[[0,4,1,1]]", 1, 0, 0, "event_count 0 is not between 1 and 256"),
        ("[[0,4,1,1],[1,4,1,1]]", .max, 2, 0, "first_seq 9223372036854775807 + event_count 2 - 1 does not fit a 64-bit integer"),
        ("[[0,4,1,1],[1,4,1,1]]", 1, 2, .max, "event 2: base_time_ns 9223372036854775807 + 1 does not fit a 64-bit integer"),
        ("[[-1,4,1,1]]", 1, 1, .min, "event 1: base_time_ns -9223372036854775808 + -1 does not fit a 64-bit integer"),
        ("[[0,4,1,1,null,null,null,null,null,null,-9223372036854775807]]", 5, 1, 0,
         "event 1: seq 5 - -9223372036854775807 does not fit a 64-bit integer"),
        ("[]", 1, 1, 0, "its event_count is 1, its body holds 0 events"),
        ("[[0,4,1,1]", 1, 1, 0, "the body ends after event 1 (truncated)"),
    ]

    @Test(arguments: damagedPacks.indices) func damagedPackIsRefusedSayingWhat(_ index: Int) {
        let entry = Self.damagedPacks[index]
        #expect(packDamage(entry.body, first: entry.first, count: entry.count, base: entry.base) == entry.what)
    }

    /// A pack is bounded as a block is: 100,000-deep nesting stops at the third `[`, a
    /// 257th event before it is decoded, a body over 4 MiB before a byte is parsed.
    @Test func packsAreBoundedAsBlocksAre() {
        #expect(packDamage(String(repeating: "[", count: 100_000)) == "event 1: time_ns is not an integer or null (byte 2)")
        let many = "[" + Array(repeating: "[0,4,1,1]", count: 300).joined(separator: ",") + "]"
        #expect(packDamage(many, count: 256) == "the body holds more than 256 events")
        let long = "[" + String(repeating: " ", count: 4 << 20) + "[0,4,1,1]]"
        #expect(packDamage(long) == "its body is 4194315 bytes, longer than the 4194304 a block may hold")
    }
}
