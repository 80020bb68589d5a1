import ObserverCore
import Testing

// A callback may hold tokens (a registration that ends another one) or anything else. A
// removed registration must let go of its callback at once — not when the channel next
// tidies up — and only after the registry dropped its lock: releasing the callback
// releases its tokens, which remove their registrations through the registry again.
// Released under the lock, that would deadlock; never released, it would leak.

/// Flags its own deinitialisation.
final class Sentinel: Sendable {
    let released: Counter
    init(_ released: Counter) { self.released = released }
    deinit { released.increment() }
}

@Test func removingARegistrationReleasesItsCallbackAtOnce() {
    let registry = ObserverRegistry()
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let screen = Screen("s")
    let released = Counter()
    var tokens: [ObservationToken] = []
    for _ in 0..<3 {
        let sentinel = Sentinel(released)
        tokens.append(volume.observe(owner: screen) { _, _ in _ = sentinel })
    }
    tokens[1].cancel()
    #expect(released.count == 1)
    tokens.removeAll()
    #expect(released.count == 3)
}

@Test func removingRegistrationsReleasesTheTokensTheirCallbacksHeld() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let screen = Screen("s")
    var outer: [ObservationToken] = []
    for _ in 0..<20 {
        let inner = registry.observe(notification: "tick", owner: screen) { _, _ in }
        outer.append(volume.observe(owner: screen) { _, _ in _ = inner })
    }
    #expect(registry.statistics.registrations == 40)
    for token in outer { token.cancel() }
    // Each cancel releases the cancelled callback, whose inner token then goes.
    let removed = sink.events(.removed)
    var reasons: [RemovalReason] = [], ids: [UInt64] = []
    for pair in 0..<20 {
        let innerID = UInt64(2 * pair + 1), outerID = innerID + 1
        reasons += [.tokenCancelled, .tokenReleased]
        ids += [outerID, innerID]
    }
    #expect(removed.map(\.removalReason) == reasons)
    #expect(removed.map { $0.registration!.id } == ids)
    #expect(registry.statistics.registrations == 0)
}

@Test func aRegistrationRemovedDuringADispatchIsReleasedWhenTheDispatchEnds() {
    let registry = ObserverRegistry()
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let screen = Screen("s")
    let released = Counter()
    let seenDuringDispatch = Counter()
    do {
        let sentinel = Sentinel(released)
        screen.tokens.append(volume.observe(owner: screen) { owner, _ in
            _ = sentinel
            owner.tokens.removeAll()
            // The dispatch in flight still holds this registration: not freed yet.
            if released.count == 0 { seenDuringDispatch.increment() }
        })
    }
    volume.value = 1
    #expect(seenDuringDispatch.count == 1)
    #expect(released.count == 1)
}

@Test func sweepingADeallocatedSubjectsChannelReleasesItsRegistrations() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let screen = Screen("s")
    do {
        let player = Player()
        let isPlaying = ObservableValue(false, subject: player, key: "isPlaying", registry: registry)
        let inner = registry.observe(notification: "tick", owner: screen) { _, _ in }
        screen.tokens.append(isPlaying.observe(owner: screen) { _, _ in _ = inner })
    }
    registry.sweep()
    #expect(sink.kinds == [.registered, .registered, .removed, .removed])
    let removed = sink.events(.removed)
    #expect(removed.map(\.removalReason) == [.subjectDeallocated, .tokenReleased])
    #expect(removed.map { $0.registration!.id } == [2, 1])
    #expect(registry.statistics.registrations == 0)
    #expect(registry.statistics.channels == 1)
}

@Test func replacingASlotOccupantReleasesTheTokensItHeld() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let slot = CallbackProperty<Int>(subject: player, key: "progress", registry: registry)
    let screens = (0..<40).map { Screen("s\($0)") }
    for screen in screens {
        let inner = registry.observe(notification: "tick", owner: screen) { _, _ in }
        slot.assign(owner: screen) { _, _ in _ = inner }
    }
    let released = sink.events(.removed)
    #expect(released.map(\.removalReason) == Array(repeating: .tokenReleased, count: 39))
    #expect(released.map { $0.registration!.id } == Array(stride(from: 1, to: 79, by: 2)))
    #expect(sink.events(.replaced).count == 39)
    #expect(registry.statistics.registrations == 2)
}
