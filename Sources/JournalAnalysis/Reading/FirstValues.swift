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
        let offset = count * MemoryLayout<Int64>.stride
        withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: value, toByteOffset: offset, as: Int64.self) }
        count += 1
        return true
    }

    /// The value kept at `index` (`0..<count`), first first.
    subscript(index: Int) -> Int64 {
        precondition(index >= 0 && index < count, "FirstValues index \(index) out of 0..<\(count)")
        return withUnsafeBytes(of: storage) { $0.load(fromByteOffset: index * MemoryLayout<Int64>.stride, as: Int64.self) }
    }

    /// Whether `value` is among the kept values.
    func contains(_ value: Int64) -> Bool {
        (0..<count).contains { self[$0] == value }
    }

    /// The kept values, first first.
    var values: [Int64] { (0..<count).map { self[$0] } }
}
