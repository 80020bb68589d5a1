import Foundation
import ObserverCore
import Synchronization
import Testing
import TestSupport

// 8 threads × 10,000 mixed operations on one registry. Each thread works its own channel
// (so it can predict its deliveries exactly) and shares one more channel with every other
// thread for registering and removing; then the totals of deliveries and events must be
// exactly what the threads' own bookkeeping says.

/// What one thread did, counted as it went.
struct StressTally: Sendable {
    var registered = 0
    var posts = 0
    var expectedDeliveries = 0
    var cancelled = 0
    var released = 0
    var ownersDropped = 0
    var removedAll = 0
    var cancelledTwice = 0
    var sharedRegistered = 0
    var stillRegistered = 0
    var ownersStillAlive = 0

    static func + (a: Self, b: Self) -> Self {
        var sum = a
        sum.registered += b.registered
        sum.posts += b.posts
        sum.expectedDeliveries += b.expectedDeliveries
        sum.cancelled += b.cancelled
        sum.released += b.released
        sum.ownersDropped += b.ownersDropped
        sum.removedAll += b.removedAll
        sum.cancelledTwice += b.cancelledTwice
        sum.sharedRegistered += b.sharedRegistered
        sum.stillRegistered += b.stillRegistered
        sum.ownersStillAlive += b.ownersStillAlive
        return sum
    }
}

/// Registrations a thread keeps alive until the whole run is checked.
final class Keep: @unchecked Sendable {
    var subject: Player?
    var owners: [Screen] = []
    var tokens: [ObservationToken?] = []
}

/// An owner and its token, so the test decides which goes first.
///
/// Release order is not something Swift promises: an optimised build may end an owner
/// before a token released next to it, and then a sweep on another thread rightly
/// reports the owner deallocated. So tokens are released in a function of their own
/// while the caller still uses the owner, and owners meant to die are checked dead
/// through a weak reference.
final class Held {
    let owner: Screen
    var token: ObservationToken?
    init(_ owner: Screen, _ token: ObservationToken) {
        self.owner = owner
        self.token = token
    }
}

@inline(never)
private func releaseToken(of held: Held) {
    held.token = nil
}

/// Removes `live[index]` and lets its owner die; returns its token (its registration is
/// still there) and whether the owner is really gone.
///
/// Dropping the last reference here does not make the owner die here: a `sweep()` on
/// another thread reads every owner's weak reference, holding the owner while it does
/// (until its lock is released: see `KeptAlive`), and the owner then dies on that thread,
/// a little later. The registry promises no more (a weak reference never said which thread
/// runs a `deinit`), so the owner is waited for: were it still alive at this thread's next
/// post it would be called, and its token's release would count as `tokenReleased`.
/// (Without the wait, 38 of 100,000 drops found the owner alive with a sweep running all
/// the time on another thread: `ownersStillAlive` then fails alone, as this test once did
/// in CI under ThreadSanitizer.) The wait is bounded: an owner the registry leaked is
/// reported, not waited for forever.
@inline(never)
private func dropOwner(at index: Int, from live: inout [Held]) -> (token: ObservationToken?, ownerGone: Bool) {
    weak var owner: Screen?
    var token: ObservationToken?
    do {
        let held = live.remove(at: index)
        owner = held.owner
        token = held.token
    }
    var yields = 0
    while owner != nil && yields < 1_000_000 {
        sched_yield()
        yields += 1
    }
    return (token, owner == nil)
}

private func stressThread(
    _ thread: Int, operations: Int, registry: ObserverRegistry, shared: ObservableValue<Int>,
    delivered: Counter, keep: Keep
) -> StressTally {
    var rng = SplitMix64(state: UInt64(thread))
    var tally = StressTally()
    let subject = Player()
    let value = ObservableValue(0, subject: subject, key: "value", registry: registry)
    var live: [Held] = []
    var sharedLive: [Held] = []
    var zombies: [ObservationToken?] = []  // tokens whose owners are gone

    for op in 0..<operations {
        let roll = rng.below(100)
        switch roll {
        case 0..<25, 95..<99:
            let owner = Screen("t\(thread)")
            live.append(Held(owner, value.observe(owner: owner) { _, _ in delivered.increment() }))
            tally.registered += 1
        case 25..<45:
            value.value = op
            tally.posts += 1
            tally.expectedDeliveries += live.count
            // This post found the dead owners and removed them (reason ownerDeallocated),
            // unless a sweep did first; releasing their tokens now reports nothing.
            zombies.removeAll()
        case 45..<55 where !live.isEmpty:
            let held = live.remove(at: rng.below(live.count))
            held.token?.cancel()
            withExtendedLifetime(held.owner) {}
            tally.cancelled += 1
        case 55..<62 where !live.isEmpty:
            let held = live.remove(at: rng.below(live.count))
            releaseToken(of: held)
            withExtendedLifetime(held.owner) {}
            tally.released += 1
        case 62..<70 where !live.isEmpty:
            let dropped = dropOwner(at: rng.below(live.count), from: &live)
            zombies.append(dropped.token)
            if !dropped.ownerGone { tally.ownersStillAlive += 1 }
            tally.ownersDropped += 1
        case 70..<80:
            let owner = Screen("shared\(thread)")
            sharedLive.append(Held(owner, shared.observe(owner: owner) { _, _ in delivered.increment() }))
            tally.registered += 1
            tally.sharedRegistered += 1
        case 80..<88 where !sharedLive.isEmpty:
            let held = sharedLive.remove(at: rng.below(sharedLive.count))
            held.token?.cancel()
            withExtendedLifetime(held.owner) {}
            tally.cancelled += 1
        case 88..<92 where !live.isEmpty:
            let held = live.remove(at: rng.below(live.count))
            registry.removeObservers(owner: held.owner)
            withExtendedLifetime(held.owner) {}
            tally.removedAll += 1
        case 92..<95 where !live.isEmpty:
            let held = live.remove(at: rng.below(live.count))
            held.token?.cancel()
            held.token?.cancel()
            withExtendedLifetime(held.owner) {}
            tally.cancelled += 1
            tally.cancelledTwice += 1
        case 99:
            registry.sweep()  // may remove any thread's dead owners; the total is the same
        default:
            break
        }
    }
    // Dead owners of the last stretch are found by the final sweep (main thread).
    tally.stillRegistered = live.count + sharedLive.count
    keep.owners = live.map(\.owner) + sharedLive.map(\.owner)
    keep.tokens = live.map(\.token) + sharedLive.map(\.token) + zombies
    keep.subject = subject  // its channel must outlive the final sweep
    return tally
}

@Test(.skippedWhenQuick, .tags(.slow), arguments: [true, false])
func stressManyThreadsRegisteringPostingAndRemoving(withSink: Bool) {
    let threads = 8, operations = 10_000
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: withSink ? sink : nil)
    let sharedSubject = Player()
    let shared = ObservableValue(0, subject: sharedSubject, key: "shared", registry: registry)
    let delivered = Counter()
    let tallies = Locked<[Int: StressTally]>([:])
    let keeps = (0..<threads).map { _ in Keep() }
    let done = DispatchGroup()
    for index in 0..<threads {
        done.enter()
        let keep = keeps[index]
        let thread = Thread {
            let tally = stressThread(
                index, operations: operations, registry: registry, shared: shared, delivered: delivered, keep: keep
            )
            tallies.withLock { $0[index] = tally }
            done.leave()
        }
        thread.start()
    }
    done.wait()
    registry.sweep()
    let sharedLive = keeps.flatMap(\.owners).filter { $0.name.hasPrefix("shared") }.count
    shared.value = 1

    let total = tallies.withLock { $0.values.reduce(StressTally(), +) }
    #expect(tallies.withLock { $0.count } == threads)
    #expect(total.ownersStillAlive == 0)
    #expect(delivered.count == total.expectedDeliveries + sharedLive)
    #expect(registry.statistics.registrations == total.stillRegistered)
    let removals = total.cancelled + total.released + total.ownersDropped + total.removedAll
    #expect(total.registered - removals == total.stillRegistered)
    if withSink {
        var counts: [ObserverEvent.Kind: Int] = [:]
        var reasons: [RemovalReason: Int] = [:]
        for event in sink.events {
            counts[event.kind, default: 0] += 1
            if let reason = event.removalReason { reasons[reason, default: 0] += 1 }
        }
        #expect(counts[.registered] == total.registered)
        #expect(counts[.changed] == total.posts + 1)
        #expect(counts[.delivered] == total.expectedDeliveries + sharedLive)
        #expect(counts[.removeUnregistered, default: 0] == total.cancelledTwice)
        #expect(counts[.skipped, default: 0] == 0)
        #expect(counts[.replaced, default: 0] == 0)
        #expect(counts[.removed, default: 0] == removals)
        #expect(reasons[.tokenCancelled, default: 0] == total.cancelled)
        #expect(reasons[.tokenReleased, default: 0] == total.released)
        #expect(reasons[.ownerDeallocated, default: 0] == total.ownersDropped)
        #expect(reasons[.ownerRemovedAll, default: 0] == total.removedAll)
        // The shared channel's survivors were called in registration order.
        let sharedDeliveries = sink.events(.delivered).filter { $0.channel == shared.channelInfo }
        let ids = sharedDeliveries.map { $0.registration!.id }
        #expect(ids.count == sharedLive)
        #expect(ids == ids.sorted())
        // Every event got a thread number and a monotonic time; per thread, time never goes back.
        var lastTime: [UInt64: UInt64] = [:]
        var lastKind: [UInt64: ObserverEvent.Kind] = [:]
        var backwards = 0
        var firstBackwards = ""
        for event in sink.events where event.kind != .delivered {
            if event.time < lastTime[event.thread, default: 0] {
                if backwards == 0 {
                    firstBackwards = "thread \(event.thread): \(lastKind[event.thread].map { "\($0)" } ?? "?") at "
                        + "\(lastTime[event.thread, default: 0]) ns, then \(event.kind) at \(event.time) ns"
                }
                backwards += 1
            }
            lastTime[event.thread] = event.time
            lastKind[event.thread] = event.kind
        }
        #expect(backwards == 0, "\(firstBackwards)")
        #expect(lastTime.count >= threads)
    }
    // Sanity of the workload itself: every kind of operation happened many times.
    #expect(total.posts > 1_000 && total.cancelled > 1_000 && total.ownersDropped > 100 && total.removedAll > 100)
    withExtendedLifetime((keeps, sharedSubject)) {}
}
