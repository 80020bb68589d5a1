@testable import JournalAnalysis
import TestSupport
import Testing

// IDMap replaces Dictionary in the tables a diagnosis reads per event: it must hold
// exactly what a Dictionary would after any sequence of inserts, updates and removals
// (removal moves entries back into the gap, the part that is easy to get wrong).

@Test(arguments: [
    // Dense ids as a session numbers them, a few of them (long probe runs, wrap-around),
    // and ids from anywhere in Int64, extremes included.
    (seed: 1 as UInt64, keySpace: 300),
    (seed: 2, keySpace: 12),
    (seed: 3, keySpace: 0),
])
func anIDMapHoldsWhatADictionaryHolds(seed: UInt64, keySpace: Int) {
    var generator = SplitMix64(state: seed)
    var map = IDMap<[Int]>()
    var reference: [Int64: [Int]] = [:]
    let extremes: [Int64] = [.min, .max, 0, -1, 1, .min + 1, .max - 1]
    func key() -> Int64 {
        if keySpace == 0 {
            return generator.below(4) == 0 ? extremes[generator.below(extremes.count)] : Int64(bitPattern: generator.next())
        }
        return Int64(generator.below(keySpace))
    }
    var keysSeen: [Int64] = extremes
    for step in 0..<20_000 {
        let k = generator.below(3) == 0 && !keysSeen.isEmpty ? keysSeen[generator.below(keysSeen.count)] : key()
        keysSeen.append(k)
        if keysSeen.count > 500 { keysSeen.removeFirst(250) }
        switch generator.below(10) {
        case 0...3:
            map[k] = [step]
            reference[k] = [step]
        case 4...5:
            #expect(map.removeValue(forKey: k) == reference.removeValue(forKey: k))
        case 6:
            map[k] = nil
            reference[k] = nil
        case 7:
            let updated = map.update(k) { $0.append(step); return $0.count }
            reference[k]?.append(step)
            #expect(updated == reference[k]?.count)
        case 8:
            map.update(k, default: []) { $0.append(step) }
            reference[k, default: []].append(step)
        default:
            if generator.below(400) == 0 {
                map.removeAll(keepingCapacity: generator.below(2) == 0)
                reference.removeAll()
            }
        }
        #expect(map[k] == reference[k])
        #expect(map.count == reference.count)
    }
    // Every key the reference holds is found, and nothing else.
    for (k, value) in reference { #expect(map[k] == value) }
    #expect(map.entries.count == reference.count)
    #expect(Dictionary(uniqueKeysWithValues: map.entries.map { ($0.key, $0.value) }) == reference)
    #expect(map.allValues.count == reference.count)
    for k in extremes where reference[k] == nil { #expect(!map.contains(k)) }
}

@Test func anEmptiedIDMapFindsNothing() {
    var map = IDMap<Int>()
    #expect(map.isEmpty)
    #expect(map[7] == nil)
    #expect(map.removeValue(forKey: 7) == nil)
    for k in Int64(0)..<1000 { map[k] = Int(k) }
    #expect(map.count == 1000)
    for k in Int64(0)..<1000 where k % 3 != 0 { map[k] = nil }
    #expect(map.count == 334)
    #expect((Int64(0)..<1000).allSatisfy { map[$0] == ($0 % 3 == 0 ? Int($0) : nil) })
    map.removeAll(keepingCapacity: true)
    #expect(map.isEmpty)
    #expect((Int64(0)..<1000).allSatisfy { map[$0] == nil })
}
