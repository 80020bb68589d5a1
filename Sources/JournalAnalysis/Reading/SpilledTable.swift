import Foundation

/// A rule's groups by key (a registration id), the recently used ones in memory and the
/// rest in an unlinked temporary file, with only a 4-byte slot per key written out kept in
/// memory.
///
/// Some rules keep a group per registration that misbehaved (called off main, slow...)
/// until the session ends, for its finding: about 100 bytes each, in proportion to the
/// session's history, not to what is live. Here the table holds two generations of at
/// most `capacity` entries in memory (as `CatalogTable` does): when the recent one fills,
/// the older one is written out and the recent one becomes the older; an entry used again
/// comes back to the recent one (from the file if need be, its slot reused later). Values
/// are plain bytes (`BitwiseCopyable`), written as they are: the file lives and dies with
/// the process.
///
/// A failed write keeps the entry, and every later one, in memory (nothing is lost: the
/// table just stops spilling); a failed read answers `nil` and is kept in `failure`, which
/// `drain` throws: the rule's verdicts would be wrong. Not thread-safe.
final class SpilledTable<Value: BitwiseCopyable> {
    private struct Record {
        var key: Int64
        var value: Value
    }

    /// An entry to hand out in order, while draining.
    private struct Entry {
        var order: Int64
        var key: Int64
        /// Where it is: `UInt32.max` for memory.
        var slot: UInt32
    }

    private var recent: [Int64: Value] = [:]
    private var older: [Int64: Value] = [:]
    /// The slot of each entry written out.
    private var spilled: [Int64: UInt32] = [:]
    /// Slots whose entries came back to memory, for the next ones written out.
    private var freeSlots: [UInt32] = []
    private var slotCount: UInt32 = 0
    private let capacity: Int
    private let file: SpoolFile
    /// Set when a write failed: entries stay in memory from then on.
    private var inMemoryOnly = false
    /// The first read or write of the file that failed, if any.
    private(set) var failure: AnalysisError?

    /// An empty table keeping up to twice `capacity` entries in memory, writing the rest
    /// to a file in `directory` (the temporary directory unless a test names another).
    init(capacity: Int = 512, directory: URL = FileManager.default.temporaryDirectory) {
        self.capacity = max(capacity, 1)
        file = SpoolFile(directory: directory)
    }

    /// How many entries the table holds, in memory and written out.
    var count: Int { recent.count + older.count + spilled.count }

    /// How many entries are in memory: at most about twice the capacity.
    var entriesInMemory: Int { recent.count + older.count }

    /// The entry with `key`, moved to the recent generation; setting `nil` removes it.
    subscript(key: Int64) -> Value? {
        get {
            if let value = recent[key] { return value }
            if let value = older.removeValue(forKey: key) {
                keep(key, value)
                return value
            }
            guard let slot = spilled.removeValue(forKey: key) else { return nil }
            freeSlots.append(slot)
            do throws(AnalysisError) {
                let value = try read(slot).value
                keep(key, value)
                return value
            } catch {
                if failure == nil { failure = error }
                return nil
            }
        }
        set {
            if older.removeValue(forKey: key) == nil, let slot = spilled.removeValue(forKey: key) {
                freeSlots.append(slot)
            }
            if let newValue {
                if recent[key] != nil {
                    recent[key] = newValue
                } else {
                    keep(key, newValue)
                }
            } else {
                recent[key] = nil
            }
        }
    }

    /// Hands out every entry, ordered by `order` of its value and then by key, and empties
    /// the table. Only the order and the key of each entry are held at once.
    func drain(
        orderedBy order: (Value) -> Int64, _ body: (Int64, Value) throws(AnalysisError) -> Void
    ) throws(AnalysisError) {
        if let failure { throw failure }
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        for (key, value) in recent { entries.append(Entry(order: order(value), key: key, slot: .max)) }
        for (key, value) in older { entries.append(Entry(order: order(value), key: key, slot: .max)) }
        for (key, slot) in spilled { entries.append(Entry(order: order(try read(slot).value), key: key, slot: slot)) }
        spilled = [:]
        freeSlots = []
        entries.sort { ($0.order, $0.key) < ($1.order, $1.key) }
        for entry in entries {
            let value: Value
            if entry.slot == .max {
                guard let kept = recent.removeValue(forKey: entry.key) ?? older.removeValue(forKey: entry.key) else { continue }
                value = kept
            } else {
                value = try read(entry.slot).value
            }
            try body(entry.key, value)
        }
        recent = [:]
        older = [:]
        slotCount = 0
        file.reset()
    }

    /// Puts an entry in the recent generation, writing the older one out when it is full.
    private func keep(_ key: Int64, _ value: Value) {
        if recent.count >= capacity, !inMemoryOnly {
            spillOlder()
            // The emptied older generation's storage becomes the recent one (as in
            // `CatalogTable`): no fresh allocation per turn.
            swap(&older, &recent)
            recent.reserveCapacity(capacity)
        }
        recent[key] = value
    }

    /// Writes the older generation's entries out (those that cannot be stay in memory,
    /// in the recent generation: the table holds them all the same).
    private func spillOlder() {
        for (key, value) in older {
            guard !inMemoryOnly, let slot = nextSlot() else {
                recent[key] = value
                continue
            }
            do throws(AnalysisError) {
                try file.write(Record(key: key, value: value), at: Int64(slot) * Int64(MemoryLayout<Record>.stride))
                spilled[key] = slot
            } catch {
                inMemoryOnly = true
                freeSlots.append(slot)
                recent[key] = value
            }
        }
        older.removeAll(keepingCapacity: true)
    }

    /// A free slot of the file, `nil` when every slot number is taken.
    private func nextSlot() -> UInt32? {
        if let free = freeSlots.popLast() { return free }
        guard slotCount < .max else { return nil }
        slotCount += 1
        return slotCount - 1
    }

    private func read(_ slot: UInt32) throws(AnalysisError) -> Record {
        try file.read(Record.self, at: Int64(slot) * Int64(MemoryLayout<Record>.stride))
    }
}
