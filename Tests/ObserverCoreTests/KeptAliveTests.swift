@testable import ObserverCore
import Testing

// A weak read under the registry's lock must not be where an object dies: its deinit may
// call the registry (an owner releasing its tokens), whose lock that thread holds.
// `KeptAlive` holds what such reads found alive until the caller has released the lock.

private final class Probe {}

@Test func keptAliveHoldsEveryObjectItFoundAliveUntilItIsReleased() {
    weak var first: Probe?
    weak var second: Probe?
    var kept: KeptAlive? = KeptAlive()
    do {
        let a = Probe(), b = Probe()
        first = a
        second = b
        weak let readA: Probe? = a
        weak let readB: Probe? = b
        let aGone = kept?.isGone(readA)
        let bGone = kept?.isGone(readB)
        #expect(aGone == false && bGone == false)
    }
    // The reads were the last references: the objects live on in `kept`.
    #expect(first != nil)
    #expect(second != nil)
    kept = nil
    #expect(first == nil)
    #expect(second == nil)
}

@Test func keptAliveSaysAGoneObjectIsGone() {
    var kept = KeptAlive()
    weak var gone: Probe?
    do {
        let probe = Probe()
        gone = probe
    }
    let isGone = kept.isGone(gone)
    #expect(isGone)
}
