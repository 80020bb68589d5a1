/// Builds the body of one `event_blocks` row: a JSON array of events, each a JSON array of
/// schema 4's event columns after `session_id` in `EventColumn` order (BLOCKS.md).
///
/// Guarantees: integers are written in decimal (`-`? digits, any `Int64`), text as a JSON
/// string escaping only `"`, `\` and U+0000–U+001F (`\b \t \n \f \r`, else `\u00xx`),
/// everything else as its UTF-8 bytes — byte for byte what SQLite's `json_array()` writes
/// for the same values; NULLs at the end of an event are left out; no whitespace. In
/// steady state it allocates nothing: the body's capacity is kept across `reset()`.
///
/// Use: `beginEvent(seq:)`, then one `int`/`text` per later column in order (`time_ns`
/// first), then `endEvent()`. The caller decides when the block is full (`count`,
/// `closedBodyBytes`) and may take the last event back out (`removeLastEvent()`).
package struct EventBlockEncoder: Sendable {
    /// The body so far, without its closing `]`.
    package private(set) var bytes: [UInt8]
    /// The seq of the first event (meaningful when `count > 0`).
    package private(set) var firstSeq: Int64 = 0
    /// The seq of the last event (meaningful when `count > 0`).
    package private(set) var lastSeq: Int64 = 0
    /// Events in the block.
    package private(set) var count = 0
    /// Whether a text of the last event held U+0000: SQLite's JSON functions (3.40) end a
    /// string at an escaped NUL, so the `events` view would not read it back whole.
    package private(set) var lastEventHasNUL = false

    /// NULLs written since the last non-NULL column of the event: written only if a
    /// non-NULL column follows.
    private var pendingNulls = 0
    /// Where the last event's separator (or the block's `[`) begins, and where its own
    /// array begins: what `removeLastEvent` cuts back to.
    private var separatorStart = 0
    private var eventStart = 0
    /// `lastSeq` before the last event, for `removeLastEvent`.
    private var previousLastSeq: Int64 = 0
    private var lastEventRemovable = false
    private var seq: Int64 = 0

    /// An empty block whose body keeps room for `capacity` bytes.
    package init(capacity: Int = 64 << 10) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "["))
    }

    /// Empties the block, keeping the body's capacity.
    package mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        bytes.append(UInt8(ascii: "["))
        count = 0
        firstSeq = 0
        lastSeq = 0
        lastEventRemovable = false
    }

    /// The body's length once closed (with its `]`).
    package var closedBodyBytes: Int { bytes.count + 1 }

    /// The length of the last event's own JSON array.
    package var lastEventBytes: Int { bytes.count - eventStart }

    /// Starts an event: its array and its seq.
    package mutating func beginEvent(seq: Int64) {
        separatorStart = bytes.count
        if count > 0 { bytes.append(UInt8(ascii: ",")) }
        eventStart = bytes.count
        bytes.append(UInt8(ascii: "["))
        appendDecimal(seq)
        self.seq = seq
        pendingNulls = 0
        lastEventHasNUL = false
    }

    /// The next column: an integer or NULL.
    @inline(__always)
    package mutating func int(_ value: Int64?) {
        guard let value else {
            pendingNulls += 1
            return
        }
        writePendingNulls()
        bytes.append(UInt8(ascii: ","))
        appendDecimal(value)
    }

    /// The next column: a text or NULL.
    @inline(__always)
    package mutating func text(_ value: String?) {
        guard var value else {
            pendingNulls += 1
            return
        }
        writePendingNulls()
        bytes.append(UInt8(ascii: ","))
        bytes.append(UInt8(ascii: "\""))
        value.withUTF8 { appendEscaped($0) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Ends the event (its trailing NULLs left out) and counts it.
    package mutating func endEvent() {
        bytes.append(UInt8(ascii: "]"))
        previousLastSeq = lastSeq
        if count == 0 { firstSeq = seq }
        lastSeq = seq
        count += 1
        lastEventRemovable = true
    }

    /// Takes the event just ended back out of the block, as if it had never begun (once:
    /// the event before it cannot be taken back).
    package mutating func removeLastEvent() {
        precondition(lastEventRemovable, "no event just ended to remove")
        bytes.removeSubrange(separatorStart...)
        lastEventRemovable = false
        count -= 1
        lastSeq = previousLastSeq
        if count == 0 { firstSeq = 0 }
        lastEventHasNUL = false
    }

    /// Calls `body` with the closed body (`[...]`), valid only during the call.
    package mutating func withClosedBody<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        bytes.append(UInt8(ascii: "]"))
        defer { bytes.removeLast() }
        return try bytes.withUnsafeBufferPointer { (buffer) throws(E) -> R in try body(buffer) }
    }

    /// The closed body as text (tests, fixtures).
    package var body: String { String(decoding: bytes + [UInt8(ascii: "]")], as: UTF8.self) }

    // MARK: - Writing

    @inline(__always)
    private mutating func writePendingNulls() {
        while pendingNulls > 0 {
            bytes.append(contentsOf: Self.commaNull)
            pendingNulls -= 1
        }
    }

    private static let commaNull: [UInt8] = Array(",null".utf8)

    /// `value` in decimal, without Foundation's formatting (no locale, no allocation).
    @inline(__always)
    private mutating func appendDecimal(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        if magnitude < 10 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude))
            return
        }
        let start = bytes.count
        while magnitude > 0 {
            let (quotient, digit) = magnitude.quotientAndRemainder(dividingBy: 10)
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: digit))
            magnitude = quotient
        }
        bytes.withUnsafeMutableBufferPointer { buffer in
            var low = start
            var high = buffer.count - 1
            while low < high {
                buffer.swapAt(low, high)
                low += 1
                high -= 1
            }
        }
    }

    /// UTF-8 `text` as the inside of a JSON string: unescaped runs are copied whole.
    private mutating func appendEscaped(_ text: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for index in text.indices {
            let byte = text[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            if runStart < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<index])) }
            runStart = index + 1
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            default:
                if byte == 0 { lastEventHasNUL = true }
                bytes.append(contentsOf: Self.unicodeEscapePrefix)
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0xF)])
            }
        }
        if runStart < text.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart...])) }
    }

    private static let unicodeEscapePrefix: [UInt8] = Array("u00".utf8)
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
