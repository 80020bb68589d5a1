/// The first few `Int64`s of a stream (sequence numbers, thread ids), up to a limit of at
/// most `FirstValues.capacity`, kept inline: plain bytes (`BitwiseCopyable`), so a rule's
/// group holding it can be stored as it is in a `ScratchTable`, and making or adding to it
/// allocates nothing.
///
/// A tuple, not `InlineArray`: `InlineArray` is macOS/iOS 26 and later, above the package's
/// floors (`tools/scripts/availability-check.py` fails on it).
struct FirstValues: BitwiseCopyable {
    /// The most values any instance keeps.
    static let capacity = 10

    private var storage: (Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    /// How many values are kept.
    private(set) var count = 0
    private let limit: Int

    /// An empty list keeping at most `limit` values (clamped to `0...capacity`).
    init(limit: Int = FirstValues.capacity) {
        self.limit = min(max(limit, 0), Self.capacity)
    }

    /// Keeps `value` unless `limit` values are kept already; answers whether it was kept.
    @discardableResult
    mutating func append(_ value: Int64) -> Bool {
        guard count < limit else { return false }
        switch count {
        case 0: storage.0 = value
        case 1: storage.1 = value
        case 2: storage.2 = value
        case 3: storage.3 = value
        case 4: storage.4 = value
        case 5: storage.5 = value
        case 6: storage.6 = value
        case 7: storage.7 = value
        case 8: storage.8 = value
        default: storage.9 = value
        }
        count += 1
        return true
    }

    /// The value kept at `index` (`0..<count`), first first.
    subscript(index: Int) -> Int64 {
        precondition(index >= 0 && index < count, "FirstValues index \(index) out of 0..<\(count)")
        switch index {
        case 0: return storage.0
        case 1: return storage.1
        case 2: return storage.2
        case 3: return storage.3
        case 4: return storage.4
        case 5: return storage.5
        case 6: return storage.6
        case 7: return storage.7
        case 8: return storage.8
        default: return storage.9
        }
    }

    /// Whether `value` is among the kept values.
    func contains(_ value: Int64) -> Bool {
        (0..<count).contains { self[$0] == value }
    }

    /// The kept values, first first.
    var values: [Int64] { (0..<count).map { self[$0] } }
}
