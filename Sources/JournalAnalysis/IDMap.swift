/// The seed of every `IDMap` of this process, chosen at random when first used.
private let idMapSeed = UInt64.random(in: .min ... .max)

/// A map from `Int64` keys (a session's row ids) to values, for the tables a diagnosis
/// looks up on nearly every event.
///
/// `Dictionary` hashes every key with SipHash, which made most of the cost of these
/// lookups (BENCHMARKS.md). Here a key is mixed with a seed chosen at random per process
/// (splitmix64's finalizer, a bijection of 64 bits), so the ids of a hostile journal
/// cannot be chosen to collide, and found by linear probing in a table kept at most three
/// quarters full, as `Dictionary` keeps its own. A removal moves the entries after it back
/// into the gap (no tombstones), so a table that churns — registrations made and removed
/// all session long — keeps its probes as short as a fresh one's. A value type, copied on
/// write as `Dictionary` is; not thread-safe to mutate.
struct IDMap<Value> {
    private var keys: [Int64] = []
    /// A slot is taken when it holds a value (`nil`: free).
    private var values: [Value?] = []
    /// The table's size minus one (a power of two minus one); meaningless while empty.
    private var mask = 0
    private let seed = idMapSeed
    /// How many entries the map holds.
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { count == 0 }

    /// Where `key` would be found first.
    @inline(__always)
    private func home(_ key: Int64) -> Int {
        var z = UInt64(bitPattern: key) ^ seed
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: z ^ (z >> 31)) & mask
    }

    /// The slot holding `key`, if the map has it.
    @inline(__always)
    private func slot(of key: Int64) -> Int? {
        guard count > 0 else { return nil }
        var index = home(key)
        while values[index] != nil {
            if keys[index] == key { return index }
            index = (index + 1) & mask
        }
        return nil
    }

    func contains(_ key: Int64) -> Bool { slot(of: key) != nil }

    /// The value for `key`; setting `nil` removes it.
    subscript(key: Int64) -> Value? {
        get { slot(of: key).flatMap { values[$0] } }
        set {
            if let newValue {
                insert(newValue, for: key)
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Runs `body` on the value for `key` in place (no copy of what it holds); `nil` when
    /// the map has no value for `key`.
    @discardableResult
    mutating func update<Result>(_ key: Int64, _ body: (inout Value) -> Result) -> Result? {
        guard let index = slot(of: key) else { return nil }
        return body(&values[index]!)
    }

    /// Runs `body` on the value for `key` in place, on `defaultValue` stored for `key`
    /// first when there is none. (No `subscript(_:default:)`: without a modify accessor
    /// it would hand out a copy, and mutating that copy would copy what it holds.)
    @discardableResult
    mutating func update<Result>(
        _ key: Int64, default defaultValue: @autoclosure () -> Value, _ body: (inout Value) -> Result
    ) -> Result {
        if let index = slot(of: key) { return body(&values[index]!) }
        var value = defaultValue()
        let result = body(&value)
        add(value, for: key)
        return result
    }

    /// Stores `value` for `key`, replacing the value there was.
    mutating func insert(_ value: Value, for key: Int64) {
        if let index = slot(of: key) {
            values[index] = value
            return
        }
        add(value, for: key)
    }

    /// Adds `value` for `key`, which the map does not have, growing the table first when
    /// it would be more than three quarters full.
    private mutating func add(_ value: Value, for key: Int64) {
        if (count + 1) * 4 > keys.count * 3 { grow() }
        place(value, for: key)
    }

    /// Puts `value` in the first free slot of `key`'s probe (the map has no `key`).
    private mutating func place(_ value: Value, for key: Int64) {
        var index = home(key)
        while values[index] != nil { index = (index + 1) & mask }
        keys[index] = key
        values[index] = value
        count += 1
    }

    /// Removes the value for `key` and returns it.
    @discardableResult
    mutating func removeValue(forKey key: Int64) -> Value? {
        guard var gap = slot(of: key) else { return nil }
        let removed = values[gap]
        values[gap] = nil
        count -= 1
        // Each entry after the gap, up to the next empty slot, whose probe from its home
        // passes the gap moves into it (lookups stop at the first empty slot).
        var next = (gap + 1) & mask
        while values[next] != nil {
            let start = home(keys[next])
            if (gap &- start) & mask < (next &- start) & mask {
                keys[gap] = keys[next]
                values[gap] = values[next]
                values[next] = nil
                gap = next
            }
            next = (next + 1) & mask
        }
        return removed
    }

    /// Removes every entry; keeps the table's size when asked (a cache emptied and filled
    /// again).
    mutating func removeAll(keepingCapacity: Bool = false) {
        guard keepingCapacity else {
            self = IDMap()
            return
        }
        for index in values.indices { values[index] = nil }
        count = 0
    }

    /// Every key and value, in no particular order.
    var entries: [(key: Int64, value: Value)] {
        values.indices.compactMap { index in values[index].map { (keys[index], $0) } }
    }

    /// Every value, in no particular order.
    var allValues: [Value] {
        values.compactMap { $0 }
    }

    /// Doubles the table (at least 8 slots) and places every entry again.
    private mutating func grow() {
        let old = (keys: keys, values: values)
        let size = max(8, keys.count * 2)
        keys = Array(repeating: 0, count: size)
        values = Array(repeating: nil, count: size)
        mask = size - 1
        count = 0
        for index in old.values.indices {
            if let value = old.values[index] { place(value, for: old.keys[index]) }
        }
    }
}
