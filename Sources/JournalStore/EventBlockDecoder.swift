/// Decodes the body of an `event_blocks` row (schema 5, `Migrations/0005_event_blocks.sql`)
/// or of an `event_packs` row (schema 6, `EventPack`) into its events, strictly: anything
/// the format contract (docs/EVENT-BLOCKS.md) does not allow is `Damage`.
///
/// A journal may come from anywhere, so the body is hostile: the decoder reads it once,
/// front to back (work linear in its length), holds no nesting stack (only two levels are
/// legal, so a third `[` is refused where it stands), stops after `maxEvents` events, and
/// allocates only for the text values it returns (plus one scratch buffer, reused, for
/// text with escapes). It does not use Foundation's JSON: that builds a tree of objects
/// for the whole body and accepts what the contract refuses (fractions, exponents, big
/// numbers rounded to a `Double`).
///
/// One decoder decodes many blocks, one at a time; the values of the event being
/// delivered are read through `integer(_:)` and `text(_:)` during the callback.
package final class EventBlockDecoder {
    /// Why a block body is refused; `what` completes "damaged event block (…): ".
    package struct Damage: Error, Equatable, CustomStringConvertible {
        package let what: String

        package init(_ what: String) {
            self.what = what
        }

        package var description: String { what }
    }

    /// The most events one block may hold (the writer closes a block at 256).
    package static let maxEvents = 256
    /// The longest body the writer writes (docs/EVENT-BLOCKS.md: a block closes before passing it;
    /// a longer event is a row): a longer body is refused before a byte is parsed.
    package static let maxBodyBytes = 4 << 20
    /// Elements of a schema-5 event array: the event columns after `session_id`; trailing
    /// NULLs may be left out down to `minElements` (the last column that is never NULL is
    /// `is_prior`, the 15th).
    package static let maxElements = Int(EventColumn.count) - 1
    package static let minElements = 15

    /// How a body lays out an event: which column each element holds (by column index,
    /// `EventColumn.rawValue - 1`), how few elements an event may have, which columns
    /// must not be NULL and which read as 0 when they are.
    private struct Layout {
        /// A pack's: seq, time_ns and change_seq are computed (`completePackEvent`).
        let isPack: Bool
        let columns: [Int]
        let minElements: Int
        let required: UInt32
        let zeroWhenNull: UInt32
    }

    /// Schema 5's: every column after `session_id`, in `EventColumn` order.
    private static let blockLayout = Layout(
        isPack: false, columns: Array(0..<maxElements), minElements: minElements,
        required: 1 << 0 | 1 << 1 | 1 << 2 | 1 << 3 | 1 << 4 | 1 << 11 | 1 << 14, zeroWhenNull: 0
    )

    /// Schema 6's (`EventPack.elements`): no seq; time_ns, kind, thread and is_main never
    /// NULL (the first four elements); depth and is_prior 0 when NULL.
    private static let packLayout = Layout(
        isPack: true, columns: EventPack.elements.map { Int($0.rawValue) - 1 }, minElements: 4,
        required: 1 << 1 | 1 << 2 | 1 << 3 | 1 << 4, zeroWhenNull: 1 << 11 | 1 << 14
    )

    /// Integer values of the current event by column index (`EventColumn.rawValue - 1`; 0 where NULL).
    private let integers: UnsafeMutablePointer<Int64>
    /// Bit i set: column i of the current event is NULL (or left out).
    private var nulls: UInt32 = 0
    private var oldValue: String?
    private var newValue: String?
    private var reason: String?
    private var detail: String?
    /// Unescaped bytes of a text value that has escapes; its capacity is kept.
    private var scratch: [UInt8] = []

    package init() {
        integers = .allocate(capacity: Self.maxElements)
        integers.initialize(repeating: 0, count: Self.maxElements)
    }

    deinit {
        integers.deallocate()
    }

    // MARK: - Values of the event being delivered

    /// The integer value of `column` in the event being delivered; `nil` for NULL. Reading
    /// a text column or `sessionID` (not part of a body) gives `nil`.
    @inline(__always)
    package func integer(_ column: EventColumn) -> Int64? {
        let index = Int(column.rawValue) - 1
        guard index >= 0, nulls & (1 << UInt32(index)) == 0, !Self.isText(index) else { return nil }
        return integers[index]
    }

    /// The integer value of a column that is never NULL (`seq`, `time_ns`, `kind`,
    /// `thread`, `is_main`, `depth`, `is_prior`): checked while decoding.
    @inline(__always)
    package func required(_ column: EventColumn) -> Int64 {
        integers[Int(column.rawValue) - 1]
    }

    /// The text value of `column` in the event being delivered; `nil` for NULL or a
    /// column that is not text.
    package func text(_ column: EventColumn) -> String? {
        switch column {
        case .oldValue: return oldValue
        case .newValue: return newValue
        case .reason: return reason
        case .detail: return detail
        default: return nil
        }
    }

    // MARK: - Decoding

    /// Decodes the body of a schema-5 block and calls `event` for each event in order, then
    /// checks the block's columns: `eventCount` events, the first with seq `firstSeq`, the
    /// last with `lastSeq`, seqs strictly increasing.
    ///
    /// Events are delivered as they are decoded: a block found damaged part-way has
    /// delivered its first events already (a caller that must not use a damaged block's
    /// events collects them and uses them once this returns).
    /// - Throws: `Damage` saying what is wrong, and where (event number, element, byte).
    package func decode(
        _ body: UnsafeBufferPointer<UInt8>, firstSeq: Int64, lastSeq: Int64, eventCount: Int64,
        _ event: (EventBlockDecoder) -> Void
    ) throws(Damage) {
        try decode(body, layout: Self.blockLayout, firstSeq: firstSeq, lastSeq: lastSeq, eventCount: eventCount,
                   baseTimeNs: 0, event)
    }

    /// Decodes the body of a schema-6 pack (`EventPack`) and calls `event` for each event
    /// in order, with its seq (`firstSeq` + its index), its `time_ns` (`baseTimeNs` + its
    /// element) and its `change_seq` (seq − its element) computed, then checks that the
    /// body holds `eventCount` events. Guarantees as `decode(_:firstSeq:lastSeq:eventCount:_:)`'s;
    /// a computed value that does not fit 64 bits is `Damage`.
    package func decodePack(
        _ body: UnsafeBufferPointer<UInt8>, firstSeq: Int64, eventCount: Int64, baseTimeNs: Int64,
        _ event: (EventBlockDecoder) -> Void
    ) throws(Damage) {
        guard eventCount >= 1, eventCount <= Int64(Self.maxEvents) else {
            throw Damage("event_count \(eventCount) is not between 1 and \(Self.maxEvents)")
        }
        guard firstSeq <= Int64.max - (eventCount - 1) else {
            throw Damage("first_seq \(firstSeq) + event_count \(eventCount) - 1 does not fit a 64-bit integer")
        }
        try decode(body, layout: Self.packLayout, firstSeq: firstSeq, lastSeq: firstSeq + (eventCount - 1),
                   eventCount: eventCount, baseTimeNs: baseTimeNs, event)
    }

    private func decode(
        _ body: UnsafeBufferPointer<UInt8>, layout: Layout, firstSeq: Int64, lastSeq: Int64, eventCount: Int64,
        baseTimeNs: Int64, _ event: (EventBlockDecoder) -> Void
    ) throws(Damage) {
        guard eventCount >= 1, eventCount <= Int64(Self.maxEvents) else {
            throw Damage("event_count \(eventCount) is not between 1 and \(Self.maxEvents)")
        }
        guard body.count <= Self.maxBodyBytes else {
            throw Damage("its body is \(body.count) bytes, longer than the \(Self.maxBodyBytes) a block may hold")
        }
        var parser = Parser(body)
        try parser.skipSpace()
        try parser.expect(UInt8(ascii: "["), "the body is not a JSON array")
        var count = 0
        var previousSeq: Int64 = 0
        try parser.skipSpace()
        if try parser.peek("the body ends before its first event") != UInt8(ascii: "]") {
            while true {
                guard count < Self.maxEvents else {
                    throw Damage("the body holds more than \(Self.maxEvents) events")
                }
                count += 1
                try decodeEvent(&parser, number: count, layout: layout)
                if layout.isPack { try completePackEvent(number: count, seq: firstSeq + Int64(count - 1), baseTimeNs: baseTimeNs) }
                let seq = integers[0]
                if count == 1 {
                    guard seq == firstSeq else {
                        throw Damage("its first event has seq \(seq), not its first_seq \(firstSeq)")
                    }
                } else if seq <= previousSeq {
                    throw Damage("event \(count) has seq \(seq), not after seq \(previousSeq)")
                }
                previousSeq = seq
                event(self)
                try parser.skipSpace()
                let separator = try parser.next("the body ends after event \(count)")
                if separator == UInt8(ascii: "]") { break }
                guard separator == UInt8(ascii: ",") else {
                    throw parser.unexpected(separator, at: parser.position - 1, "after event \(count)")
                }
                try parser.skipSpace()
            }
        } else {
            parser.position += 1
        }
        try parser.skipSpace()
        guard parser.atEnd else {
            throw Damage("bytes follow the body's array at byte \(parser.position)")
        }
        guard Int64(count) == eventCount else {
            throw Damage("its event_count is \(eventCount), its body holds \(count) events")
        }
        guard previousSeq == lastSeq else {
            throw Damage("its last event has seq \(previousSeq), not its last_seq \(lastSeq)")
        }
    }

    /// The seq, time_ns and change_seq of a pack's event from what its body holds: the
    /// seq from its place, the others as differences (see `EventPack`).
    private func completePackEvent(number: Int, seq: Int64, baseTimeNs: Int64) throws(Damage) {
        integers[0] = seq
        nulls &= ~1
        let (time, timeOverflow) = baseTimeNs.addingReportingOverflow(integers[1])
        guard !timeOverflow else {
            throw Damage("event \(number): base_time_ns \(baseTimeNs) + \(integers[1]) does not fit a 64-bit integer")
        }
        integers[1] = time
        let changeSeq = Int(EventColumn.changeSeq.rawValue) - 1
        if nulls & (1 << UInt32(changeSeq)) == 0 {
            let (value, overflow) = seq.subtractingReportingOverflow(integers[changeSeq])
            guard !overflow else {
                throw Damage("event \(number): seq \(seq) - \(integers[changeSeq]) does not fit a 64-bit integer")
            }
            integers[changeSeq] = value
        }
    }

    /// Column indexes of the text columns (`old_value` … `detail`).
    @inline(__always)
    private static func isText(_ index: Int) -> Bool { index >= 15 && index <= 18 }

    /// Bits of the 0/1 columns: is_main, is_prior, main_queue.
    private static let flagMask: UInt32 = 1 << 4 | 1 << 14 | 1 << 19

    /// A column's name for messages, by column index.
    fileprivate static func name(_ index: Int) -> String {
        EventColumn(rawValue: Int32(index + 1))?.name ?? "?"
    }

    private func decodeEvent(_ parser: inout Parser, number: Int, layout: Layout) throws(Damage) {
        let start = parser.position
        guard try parser.next("the body ends before event \(number)") == UInt8(ascii: "[") else {
            throw Damage("event \(number) is not a JSON array (byte \(start))")
        }
        nulls = ~0
        oldValue = nil
        newValue = nil
        reason = nil
        detail = nil
        var index = 0
        try parser.skipSpace()
        if try parser.peek("the body ends inside event \(number)") == UInt8(ascii: "]") {
            parser.position += 1
        } else {
            while true {
                guard index < layout.columns.count else {
                    throw Damage("event \(number) has more than \(layout.columns.count) elements")
                }
                try decodeElement(&parser, index: layout.columns[index], event: number)
                index += 1
                try parser.skipSpace()
                let separator = try parser.next("the body ends inside event \(number)")
                if separator == UInt8(ascii: "]") { break }
                guard separator == UInt8(ascii: ",") else {
                    throw parser.unexpected(separator, at: parser.position - 1, "in event \(number)")
                }
                try parser.skipSpace()
            }
        }
        guard index >= layout.minElements else {
            throw Damage("event \(number) has \(index) elements, not \(layout.minElements) to \(layout.columns.count)")
        }
        if nulls & layout.required != 0 {
            let missing = (nulls & layout.required).trailingZeroBitCount
            throw Damage("event \(number): \(Self.name(missing)) is null")
        }
        var zeros = nulls & layout.zeroWhenNull
        while zeros != 0 {
            let bit = zeros.trailingZeroBitCount
            zeros &= zeros - 1
            integers[bit] = 0
        }
        nulls &= ~layout.zeroWhenNull
        var flags = ~nulls & Self.flagMask
        while flags != 0 {
            let bit = flags.trailingZeroBitCount
            flags &= flags - 1
            guard integers[bit] == 0 || integers[bit] == 1 else {
                throw Damage("event \(number): \(Self.name(bit)) is \(integers[bit]), not 0 or 1")
            }
        }
    }

    private func decodeElement(_ parser: inout Parser, index: Int, event: Int) throws(Damage) {
        let start = parser.position
        let byte = try parser.peek("the body ends inside event \(event)")
        let isText = Self.isText(index)
        switch byte {
        case UInt8(ascii: "n"):
            try parser.null(event: event)
            return
        case UInt8(ascii: "\""):
            guard isText else {
                throw Damage("event \(event): \(Self.name(index)) is a string, not an integer (byte \(start))")
            }
            parser.position += 1
            let value = try parser.string(scratch: &scratch, event: event, column: index)
            switch index {
            case 15: oldValue = value
            case 16: newValue = value
            case 17: reason = value
            default: detail = value
            }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            guard !isText else {
                throw Damage("event \(event): \(Self.name(index)) is a number, not a string (byte \(start))")
            }
            integers[index] = try parser.integer(event: event, column: index)
        default:
            let what = isText ? "a string" : "an integer"
            throw Damage("event \(event): \(Self.name(index)) is not \(what) or null (byte \(start))")
        }
        nulls &= ~(1 << UInt32(index))
    }

    /// A cursor over the body's bytes; every read is bounds-checked.
    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        var atEnd: Bool { position >= bytes.count }

        @inline(__always)
        func peek(_ truncated: @autoclosure () -> String) throws(Damage) -> UInt8 {
            guard position < bytes.count else { throw Damage(truncated() + " (truncated)") }
            return bytes[position]
        }

        @inline(__always)
        mutating func next(_ truncated: @autoclosure () -> String) throws(Damage) -> UInt8 {
            guard position < bytes.count else { throw Damage(truncated() + " (truncated)") }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func expect(_ byte: UInt8, _ what: String) throws(Damage) {
            guard position < bytes.count, bytes[position] == byte else { throw Damage(what) }
            position += 1
        }

        /// JSON whitespace: space, tab, line feed, carriage return.
        @inline(__always)
        mutating func skipSpace() throws(Damage) {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }

        func unexpected(_ byte: UInt8, at offset: Int, _ place: String) -> Damage {
            Damage("unexpected \(Self.describe(byte)) \(place) (byte \(offset))")
        }

        static func describe(_ byte: UInt8) -> String {
            byte >= 0x21 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(hex(byte))"
        }

        static func hex(_ byte: UInt8) -> String {
            let digits = Array("0123456789ABCDEF")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
        }

        /// `null`, whose `n` is at `position`.
        @inline(__always)
        mutating func null(event: Int) throws(Damage) {
            guard bytes.count - position >= 4 else {
                throw Damage("the body ends inside event \(event) (truncated)")
            }
            guard bytes[position + 1] == UInt8(ascii: "u"), bytes[position + 2] == UInt8(ascii: "l"),
                  bytes[position + 3] == UInt8(ascii: "l") else {
                throw Damage("event \(event): malformed value at byte \(position)")
            }
            position += 4
        }

        /// `-`? digits, no leading zero, no fraction or exponent, within `Int64`.
        /// `column` is the element's index (named only in a refusal).
        mutating func integer(event: Int, column index: Int) throws(Damage) -> Int64 {
            var column: String { EventBlockDecoder.name(index) }
            let start = position
            let negative = bytes[position] == UInt8(ascii: "-")
            if negative { position += 1 }
            let digitsStart = position
            // Accumulated negatively: Int64.min has no positive counterpart.
            var value: Int64 = 0
            var overflow = false
            while position < bytes.count {
                let digit = bytes[position] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                if !overflow {
                    let (times, o1) = value.multipliedReportingOverflow(by: 10)
                    let (sum, o2) = times.subtractingReportingOverflow(Int64(digit))
                    overflow = o1 || o2
                    value = sum
                }
                position += 1
            }
            let digits = position - digitsStart
            guard digits > 0 else {
                throw Damage("event \(event): \(column) is not a number (byte \(start))")
            }
            guard digits == 1 || bytes[digitsStart] != UInt8(ascii: "0") else {
                throw Damage("event \(event): \(column) has a leading zero (byte \(start))")
            }
            if position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
                    throw Damage("event \(event): \(column) is not an integer (byte \(start))")
                default: break
                }
            }
            if negative {
                guard !overflow else { throw Damage("event \(event): \(column) does not fit a 64-bit integer (byte \(start))") }
                return value
            }
            guard !overflow, value != .min else {
                throw Damage("event \(event): \(column) does not fit a 64-bit integer (byte \(start))")
            }
            return -value
        }

        /// The string whose opening quote was just read, unescaped and checked to be UTF-8.
        mutating func string(scratch: inout [UInt8], event: Int, column index: Int) throws(Damage) -> String {
            var column: String { EventBlockDecoder.name(index) }
            let start = position
            // Fast path: no escapes, the bytes are the value.
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    let value = UnsafeBufferPointer(rebasing: bytes[start..<position])
                    position += 1
                    return try Self.validated(value, event: event, column: index, at: start)
                }
                if byte == UInt8(ascii: "\\") { break }
                guard byte >= 0x20 else {
                    throw Damage("event \(event): \(column) holds a raw control character (byte 0x\(Self.hex(byte)) at \(position))")
                }
                position += 1
            }
            guard position < bytes.count else { throw Damage("the body ends inside event \(event) (truncated)") }
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<position]))
            while true {
                guard position < bytes.count else { throw Damage("the body ends inside event \(event) (truncated)") }
                let byte = bytes[position]
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return try scratch.withUnsafeBufferPointer { (value) throws(Damage) -> String in
                        try Self.validated(value, event: event, column: index, at: start)
                    }
                case UInt8(ascii: "\\"):
                    try unescape(into: &scratch, event: event, column: index)
                case 0..<0x20:
                    throw Damage("event \(event): \(column) holds a raw control character (byte 0x\(Self.hex(byte)) at \(position - 1))")
                default:
                    scratch.append(byte)
                }
            }
        }

        private static func validated(
            _ value: UnsafeBufferPointer<UInt8>, event: Int, column: Int, at offset: Int
        ) throws(Damage) -> String {
            guard let text = String(validating: value, as: UTF8.self) else {
                throw Damage("event \(event): \(EventBlockDecoder.name(column)) is not valid UTF-8 (string at byte \(offset))")
            }
            return text
        }

        /// One escape after its backslash; a `\u` high surrogate must be followed by a
        /// `\u` low surrogate.
        private mutating func unescape(into out: inout [UInt8], event: Int, column index: Int) throws(Damage) {
            var column: String { EventBlockDecoder.name(index) }
            let at = position - 1
            guard position < bytes.count else { throw Damage("the body ends inside event \(event) (truncated)") }
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(byte)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4(event: event, column: index, at: at)
                if scalar >= 0xD800, scalar <= 0xDBFF {
                    guard bytes.count - position >= 2, bytes[position] == UInt8(ascii: "\\"),
                          bytes[position + 1] == UInt8(ascii: "u") else {
                        throw Damage("event \(event): \(column) holds a lone surrogate escape (byte \(at))")
                    }
                    position += 2
                    let low = try hex4(event: event, column: index, at: at)
                    guard low >= 0xDC00, low <= 0xDFFF else {
                        throw Damage("event \(event): \(column) holds a lone surrogate escape (byte \(at))")
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if scalar >= 0xDC00, scalar <= 0xDFFF {
                    throw Damage("event \(event): \(column) holds a lone surrogate escape (byte \(at))")
                }
                guard let unicode = Unicode.Scalar(scalar) else {
                    throw Damage("event \(event): \(column) holds an invalid escape (byte \(at))")
                }
                out.append(contentsOf: unicode.utf8)
            default:
                throw Damage("event \(event): \(column) holds an invalid escape (byte \(at))")
            }
        }

        private mutating func hex4(event: Int, column index: Int, at: Int) throws(Damage) -> UInt32 {
            guard bytes.count - position >= 4 else { throw Damage("the body ends inside event \(event) (truncated)") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[position]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw Damage("event \(event): \(EventBlockDecoder.name(index)) holds an invalid escape (byte \(at))")
                }
                value = value << 4 | UInt32(digit)
                position += 1
            }
            return value
        }
    }
}
