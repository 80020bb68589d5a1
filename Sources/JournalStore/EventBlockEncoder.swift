/// Builds the body of one `event_packs` row (schema 6, `EventPack`, docs/EVENT-BLOCKS.md):
/// a JSON array of events of consecutive seqs, each a JSON array of the columns of
/// `EventPack.elements`, its first (`time_ns`) written as the difference from the time of
/// the block's first event (`baseTimeNs`).
///
/// Guarantees: integers are written in decimal (`-`? digits, any `Int64`), text as a JSON
/// string escaping only `"`, `\` and U+0000–U+001F (`\b \t \n \f \r`, else `\u00xx`),
/// everything else as its UTF-8 bytes — byte for byte what SQLite's `json_array()` writes
/// for the same values; NULLs at the end of an event are left out; no whitespace. In
/// steady state it allocates nothing: the body's buffer is kept across `reset()` and only
/// grows (doubling) when an event does not fit.
///
/// Use: `beginEvent(seq:timeNs:)`, then one `int`/`text` per later element of
/// `EventPack.elements` in order (`kind` first; `depth`, `is_prior` NULL for 0,
/// `change_seq` as `seq - change_seq`), then `endEvent()`. The caller decides when the
/// block is full (`count`, `closedBodyBytes`), closes it before an event whose seq does not
/// follow `lastSeq`, and may take the last event back out (`removeLastEvent()`).
///
/// Noncopyable: it owns its buffer (written through a pointer, the writer's hot path:
/// an `Array.append` per byte cost about 2,000 instructions per event).
package struct EventBlockEncoder: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    /// Bytes of the body so far, without its closing `]`.
    @usableFromInline var length = 0
    /// The seq of the first event (meaningful when `count > 0`).
    package private(set) var firstSeq: Int64 = 0
    /// The seq of the last event (meaningful when `count > 0`).
    package private(set) var lastSeq: Int64 = 0
    /// The `time_ns` of the first event, from which every event's time is written as a
    /// difference (meaningful when `count > 0`).
    package private(set) var baseTimeNs: Int64 = 0
    /// Events in the block.
    package private(set) var count = 0
    /// Whether a text of the last event held U+0000: SQLite's JSON functions (3.40) end a
    /// string at an escaped NUL, so the `events` view would not read it back whole.
    package internal(set) var lastEventHasNUL = false

    /// NULLs written since the last non-NULL column of the event: written only if a
    /// non-NULL column follows.
    @usableFromInline var pendingNulls = 0
    /// Where the last event's separator begins, and where its own array begins: what
    /// `removeLastEvent` cuts back to.
    @usableFromInline var separatorStart = 0
    @usableFromInline var eventStart = 0
    /// `lastSeq` before the last event, for `removeLastEvent`.
    @usableFromInline var previousLastSeq: Int64 = 0
    @usableFromInline var lastEventRemovable = false
    @usableFromInline var seq: Int64 = 0

    /// The buffer's size to begin with: a block of 256 typical events is about 25 KB.
    package static let defaultCapacity = 64 << 10

    /// An empty block whose buffer has room for `capacity` bytes.
    package init(capacity: Int = defaultCapacity) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
        base[0] = UInt8(ascii: "[")
        length = 1
    }

    deinit { base.deallocate() }

    /// Empties the block, keeping its buffer unless an outsized event (one sent to
    /// `event_rows`, or a block near `EventBlock.maxBodyBytes`) grew it past twice that:
    /// such a buffer is given back, so one huge value does not stay in memory all session.
    package mutating func reset() {
        if capacity > 2 * EventBlock.maxBodyBytes {
            base.deallocate()
            capacity = Self.defaultCapacity
            base = .allocate(capacity: capacity)
            base[0] = UInt8(ascii: "[")
        }
        length = 1
        count = 0
        firstSeq = 0
        lastSeq = 0
        lastEventRemovable = false
    }

    /// The body's length once closed (with its `]`).
    @inlinable
    package var closedBodyBytes: Int { length + 1 }

    /// The length of the last event's own JSON array.
    @inlinable
    package var lastEventBytes: Int { length - eventStart }

    /// Starts an event: its array and its time, as the difference from `baseTimeNs` (this
    /// time, for the block's first event). The seq is not written: it is the block's first
    /// seq plus the event's index.
    @inlinable @inline(__always)
    package mutating func beginEvent(seq: Int64, timeNs: Int64) {
        reserve(23)
        putEventStart(seq: seq, timeNs: timeNs)
    }

    /// `beginEvent` in room already reserved.
    @inlinable @inline(__always)
    mutating func putEventStart(seq: Int64, timeNs: Int64) {
        separatorStart = length
        if count > 0 { put(UInt8(ascii: ",")) } else { baseTimeNs = timeNs }
        eventStart = length
        put(UInt8(ascii: "["))
        putDecimal(timeNs &- baseTimeNs)
        self.seq = seq
        pendingNulls = 0
        lastEventHasNUL = false
    }

    /// The next column: an integer or NULL.
    @inlinable @inline(__always)
    package mutating func int(_ value: Int64?) {
        guard let value else {
            pendingNulls &+= 1
            return
        }
        int(value)
    }

    /// The next column: an integer (the columns never NULL need no test for it).
    @inlinable @inline(__always)
    package mutating func int(_ value: Int64) {
        reserve(pendingNulls &* 5 &+ 22)
        putInt(value)
    }

    /// `int` in room already reserved.
    @inlinable @inline(__always)
    mutating func putInt(_ value: Int64) {
        putPendingNulls()
        put(UInt8(ascii: ","))
        putDecimal(value)
    }

    /// `int` of an integer or NULL in room already reserved.
    @inlinable @inline(__always)
    mutating func putInt(_ value: Int64?) {
        guard let value else {
            pendingNulls &+= 1
            return
        }
        putInt(value)
    }

    /// The next `count` columns: NULLs (the columns an event of its kind never has, without
    /// a test each).
    @inlinable @inline(__always)
    package mutating func nulls(_ count: Int) {
        pendingNulls &+= count
    }

    /// The next six columns: integers or NULLs, as six calls of `int` write them (one call
    /// from another module instead of six: the call itself was most of a NULL's cost).
    @inlinable
    package mutating func int(
        _ first: Int64?, _ second: Int64?, _ third: Int64?, _ fourth: Int64?, _ fifth: Int64?, _ sixth: Int64?
    ) {
        int(first)
        int(second)
        int(third)
        int(fourth)
        int(fifth)
        int(sixth)
    }

    /// The next four columns: integers or NULLs (see the six-column `int`).
    @inlinable
    package mutating func int(_ first: Int64?, _ second: Int64?, _ third: Int64?, _ fourth: Int64?) {
        int(first)
        int(second)
        int(third)
        int(fourth)
    }

    /// The next two columns: integers or NULLs (see the six-column `int`).
    @inlinable
    package mutating func int(_ first: Int64?, _ second: Int64?) {
        int(first)
        int(second)
    }

    /// The next four columns: integers (see the six-column `int`).
    @inlinable
    package mutating func int(_ first: Int64, _ second: Int64, _ third: Int64, _ fourth: Int64) {
        int(first)
        int(second)
        int(third)
        int(fourth)
    }

    /// The next column: a text or NULL.
    @inlinable @inline(__always)
    package mutating func text(_ value: String?) {
        guard var value else {
            pendingNulls &+= 1
            return
        }
        reserve(pendingNulls &* 5 &+ 3 &+ value.utf8.count)
        putPendingNulls()
        put(UInt8(ascii: ","))
        put(UInt8(ascii: "\""))
        value.withUTF8 { putEscaped($0) }
        put(UInt8(ascii: "\""))
    }

    /// The next column: the text of `value` in decimal, as a JSON string (the bytes
    /// `text(String(value))` writes: digits and `-` need no escape).
    @inlinable @inline(__always)
    package mutating func quotedInt(_ value: Int64) {
        reserve(pendingNulls &* 5 &+ 24)
        putPendingNulls()
        put(UInt8(ascii: ","))
        put(UInt8(ascii: "\""))
        putDecimal(value)
        put(UInt8(ascii: "\""))
    }

    /// The next column: `"true"` or `"false"`, as `text("true")` / `text("false")` write them.
    @inlinable @inline(__always)
    package mutating func quotedBool(_ value: Bool) {
        reserve(pendingNulls &* 5 &+ 8)
        putPendingNulls()
        if value {
            for byte in ",\"true\"".utf8 { put(byte) }
        } else {
            for byte in ",\"false\"".utf8 { put(byte) }
        }
    }

    /// Ends the event (its trailing NULLs left out) and counts it.
    @inlinable @inline(__always)
    package mutating func endEvent() {
        reserve(1)
        put(UInt8(ascii: "]"))
        previousLastSeq = lastSeq
        if count == 0 { firstSeq = seq }
        lastSeq = seq
        count &+= 1
        lastEventRemovable = true
    }

    /// Takes the event just ended back out of the block, as if it had never begun (once:
    /// the event before it cannot be taken back).
    package mutating func removeLastEvent() {
        precondition(lastEventRemovable, "no event just ended to remove")
        length = separatorStart
        lastEventRemovable = false
        count -= 1
        lastSeq = previousLastSeq
        if count == 0 { firstSeq = 0 }
        lastEventHasNUL = false
    }

    /// Calls `body` with the closed body (`[...]`), valid only during the call.
    package mutating func withClosedBody<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        reserve(1)
        base[length] = UInt8(ascii: "]")
        return try body(UnsafeBufferPointer(start: base, count: length + 1))
    }

    /// The closed body as text (tests, fixtures).
    package var body: String {
        String(decoding: UnsafeBufferPointer(start: base, count: length), as: UTF8.self) + "]"
    }

    // MARK: - Writing (room reserved by the caller)

    /// Makes room for `extra` more bytes.
    @inlinable @inline(__always)
    mutating func reserve(_ extra: Int) {
        if length &+ extra > capacity { grow(to: length &+ extra) }
    }

    @usableFromInline
    mutating func grow(to needed: Int) {
        let newCapacity = Swift.max(needed, capacity * 2)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: length)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inlinable @inline(__always)
    mutating func put(_ byte: UInt8) {
        base[length] = byte
        length &+= 1
    }

    @inlinable @inline(__always)
    mutating func putPendingNulls() {
        while pendingNulls > 0 {
            base[length] = UInt8(ascii: ",")
            base[length &+ 1] = UInt8(ascii: "n")
            base[length &+ 2] = UInt8(ascii: "u")
            base[length &+ 3] = UInt8(ascii: "l")
            base[length &+ 4] = UInt8(ascii: "l")
            length &+= 5
            pendingNulls &-= 1
        }
    }

    /// `value` in decimal (at most 20 bytes), without Foundation's formatting: its digits
    /// counted first, then written from the last, two at a time.
    @inlinable @inline(__always)
    mutating func putDecimal(_ value: Int64) {
        if value < 0 { put(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        if magnitude < 10 {
            put(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude))
            return
        }
        var digits = 2
        if magnitude >= 10_000_000_000_000_000_000 {
            digits = 20
        } else {
            // Below 10^19 the loop ends before `bound` passes 10^19: no count to test too.
            var bound: UInt64 = 100
            while magnitude >= bound {
                digits &+= 1
                bound &*= 10
            }
        }
        var position = length &+ digits
        length = position
        while magnitude >= 100 {
            let (quotient, pair) = magnitude.quotientAndRemainder(dividingBy: 100)
            position &-= 2
            base[position] = Self.digitPairs[Int(pair) &* 2]
            base[position &+ 1] = Self.digitPairs[Int(pair) &* 2 &+ 1]
            magnitude = quotient
        }
        if magnitude >= 10 {
            position &-= 2
            base[position] = Self.digitPairs[Int(magnitude) &* 2]
            base[position &+ 1] = Self.digitPairs[Int(magnitude) &* 2 &+ 1]
        } else {
            base[position &- 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)
        }
    }

    /// "00", "01", …, "99": two digits per division. A literal in the binary's constant
    /// data, not a `static let` array: that one's lazy initialisation was checked (a call to
    /// `swift_once`) and the array bounds-checked on every number written.
    @inlinable
    static var digitPairs: UnsafePointer<UInt8> {
        let pairs: StaticString = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
        return pairs.utf8Start
    }

    /// UTF-8 `text` as the inside of a JSON string, room for it unescaped already
    /// reserved; unescaped runs are copied whole.
    @usableFromInline
    mutating func putEscaped(_ text: UnsafeBufferPointer<UInt8>) {
        guard let source = text.baseAddress else { return }
        var runStart = 0
        var index = 0
        while index < text.count {
            let byte = source[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                index &+= 1
                continue
            }
            (base + length).update(from: source + runStart, count: index &- runStart)
            length &+= index &- runStart
            // The escape takes up to 6 bytes for 1; the rest of the text and the quote follow.
            reserve(6 &+ (text.count &- index) &+ 1)
            put(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): put(byte)
            case 0x08: put(UInt8(ascii: "b"))
            case 0x09: put(UInt8(ascii: "t"))
            case 0x0A: put(UInt8(ascii: "n"))
            case 0x0C: put(UInt8(ascii: "f"))
            case 0x0D: put(UInt8(ascii: "r"))
            default:
                if byte == 0 { lastEventHasNUL = true }
                put(UInt8(ascii: "u"))
                put(UInt8(ascii: "0"))
                put(UInt8(ascii: "0"))
                put(Self.hexDigit(byte >> 4))
                put(Self.hexDigit(byte & 0xF))
            }
            index &+= 1
            runStart = index
        }
        (base + length).update(from: source + runStart, count: text.count &- runStart)
        length &+= text.count &- runStart
    }

    @usableFromInline
    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ nibble &- 10
    }
}
