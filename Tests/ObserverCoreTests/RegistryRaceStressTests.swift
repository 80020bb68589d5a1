import Foundation
import ObserverCore
import Synchronization
import Testing
import TestSupport

// 8 threads share one registry and everything in it: any thread may cancel or release a
// token another thread made, post on any value, sweep, and let owners and subjects die.
// Unlike ConcurrencyStressTests (each thread predicts its own deliveries, subjects live
// to the end), this run is about objects dying while another thread is inside the
// registry: a subject that died between the two passes of a sweep once left its channel
// drained but its registrations still listed, and the next cancel trapped with
// `Index out of range` in `Channel.remove`. Bounded by operation count, not time.

/// Things shared between the threads, each taken out under a lock and used outside it.
private final class SharedPool<Item>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Item] = []

    func put(_ item: Item) {
        lock.lock()
        items.append(item)
        lock.unlock()
    }

    /// Removes and returns the item at `seed % count`, if any.
    func take(_ seed: Int) -> Item? {
        lock.lock()
        defer { lock.unlock() }
        if items.isEmpty { return nil }
        items.swapAt(seed % items.count, items.count - 1)
        return items.removeLast()
    }

    /// The item at `seed % count`, left in the pool.
    func peek(_ seed: Int) -> Item? {
        lock.lock()
        defer { lock.unlock() }
        return items.isEmpty ? nil : items[seed % items.count]
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return items.count
    }

    /// Everything, emptying the pool.
    func takeAll() -> [Item] {
        lock.lock()
        defer { lock.unlock() }
        let all = items
        items = []
        return all
    }
}

/// A subject and its value; the value keeps its channel, the subject may die first.
private final class Observed: @unchecked Sendable {
    var subject: Player?
    let value: ObservableValue<Int>
    init(registry: ObserverRegistry, key: String) {
        let subject = Player()
        self.subject = subject
        value = ObservableValue(0, subject: subject, key: key, registry: registry)
    }
}

/// Owners as a pool item (Screen is not Sendable).
private final class OwnerBox: @unchecked Sendable {
    let owner: Screen
    init(_ owner: Screen) { self.owner = owner }
}

/// Counts registrations and removals as the registry reports them.
private final class RemovalCountingSink: EventSink {
    let registered = Atomic<Int>(0)
    let removed = Atomic<Int>(0)
    func record(_ event: ObserverEvent) {
        switch event.kind {
        case .registered: registered.add(1, ordering: .relaxed)
        case .removed: removed.add(1, ordering: .relaxed)
        default: break
        }
    }
}

@inline(never)
private func drop<T>(_ item: consuming T?) { _ = consume item }

private func raceThread(
    _ thread: Int, operations: Int, registry: ObserverRegistry,
    values: SharedPool<Observed>, tokens: SharedPool<ObservationToken>, owners: SharedPool<OwnerBox>
) {
    var rng = SplitMix64(state: 0xC0FFEE &+ UInt64(thread))
    for op in 0..<operations {
        let seed = Int(truncatingIfNeeded: rng.next() >> 1)
        switch rng.below(100) {
        case 0..<30:
            // Bounded, so a sweep's passes over every registration and object stay short.
            if tokens.count >= 400 || owners.count >= 400 {
                drop(tokens.take(seed))
                drop(owners.take(seed))
                continue
            }
            guard let observed = values.peek(seed) else { continue }
            let owner = Screen("t\(thread)")
            tokens.put(observed.value.observe(owner: owner) { _, _ in })
            owners.put(OwnerBox(owner))
        case 30..<45:
            tokens.take(seed)?.cancel()
        case 45..<55:
            drop(tokens.take(seed))
        case 55..<70:
            values.peek(seed)?.value.value = op
        case 70..<83:
            drop(owners.take(seed))
        case 83..<88:
            registry.sweep()
        case 88..<96:
            // The subject dies; its value (and channel) stays until the pool drops it.
            if let observed = values.take(seed) {
                observed.subject = nil
                values.put(observed)
            }
        default:
            // A fresh subject replaces an old value, whose channel then goes.
            drop(values.take(seed))
            values.put(Observed(registry: registry, key: "k\(seed % 8)"))
        }
    }
}

/// Lets a subject die at the moment a sweep reports its first removal: a sink runs under
/// the registry's lock, so this is the one deterministic way to make a subject die
/// between the sweep's passes, as another thread can at any time.
private final class SubjectKillingSink: EventSink, @unchecked Sendable {
    private let lock = NSLock()
    private var subject: Player?
    private var removals: [RemovalReason] = []

    init(holding subject: Player) { self.subject = subject }

    func record(_ event: ObserverEvent) {
        guard event.kind == .removed, let reason = event.removalReason else { return }
        lock.lock()
        defer { lock.unlock() }
        removals.append(reason)
        if reason == .ownerDeallocated { subject = nil }
    }

    var reasons: [RemovalReason] {
        lock.lock()
        defer { lock.unlock() }
        return removals
    }
}

@Suite(.skippedWhenQuick, .tags(.slow)) struct RegistryRaceStressTests {
    @Test func stressCancelReleaseSweepPostAndDeathsFromEightThreads() {
        let threads = 8, operations = 20_000
        let sink = RemovalCountingSink()
        let registry = ObserverRegistry(sink: sink)
        let values = SharedPool<Observed>()
        let tokens = SharedPool<ObservationToken>()
        let owners = SharedPool<OwnerBox>()
        for index in 0..<16 { values.put(Observed(registry: registry, key: "k\(index % 8)")) }

        let done = DispatchGroup()
        for index in 0..<threads {
            done.enter()
            Thread {
                raceThread(index, operations: operations, registry: registry, values: values, tokens: tokens, owners: owners)
                done.leave()
            }.start()
        }
        done.wait()

        // Whatever the interleaving, every registration is removed exactly once and reported.
        let registered = sink.registered.load(ordering: .relaxed)
        drop(tokens.takeAll())
        drop(owners.takeAll())
        registry.sweep()
        #expect(registry.statistics.registrations == 0)
        #expect(sink.removed.load(ordering: .relaxed) == registered)
        #expect(registered > 10_000)
        drop(values.takeAll())
    }

    @Test func subjectDyingDuringASweepLeavesItsRegistrationsCancellable() {
        var subject: Player? = Player()
        let sink = SubjectKillingSink(holding: subject!)
        let registry = ObserverRegistry(sink: sink)
        let value = ObservableValue(0, subject: subject!, key: "volume", registry: registry)
        subject = nil  // only the sink holds it now
        let otherSubject = Player()
        let other = ObservableValue(0, subject: otherSubject, key: "other", registry: registry)
        let owner = Screen("stays")
        let token = value.observe(owner: owner) { _, _ in }
        var doomed: Screen? = Screen("dies")
        let doomedToken = other.observe(owner: doomed!) { _, _ in }
        doomed = nil

        registry.sweep()  // removes the dead owner; the subject dies while it does
        token.cancel()
        registry.sweep()

        #expect(sink.reasons == [.ownerDeallocated, .tokenCancelled])
        #expect(registry.statistics.registrations == 0)
        withExtendedLifetime((owner, doomedToken, value, other, otherSubject)) {}
    }
}
