import ObserverCore
import Testing

// An owner that goes away without removing its registration: never called again, and
// removed with reason ownerDeallocated exactly once.

@Test func aDeallocatedOwnerIsNeverCalledAndIsRemovedAtTheNextDispatch() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let isPlaying = ObservableValue(false, subject: player, key: "isPlaying", registry: registry)
    let received = Received()
    var token: ObservationToken?
    do {
        let screen = Screen("gone")
        // The token is kept outside the owner, so only the owner goes.
        token = isPlaying.observe(owner: screen) { owner, _ in received.append(owner.name) }
    }
    isPlaying.value = true
    isPlaying.value = false
    #expect(received.all.isEmpty)
    #expect(sink.kinds == [.registered, .changed, .removed, .changed])
    let removed = sink.events(.removed)
    #expect(removed.count == 1)
    #expect(removed[0].removalReason == .ownerDeallocated)
    #expect(removed[0].registration?.id == 1)
    #expect(removed[0].channel == isPlaying.channelInfo)
    #expect(registry.statistics.registrations == 0)
    // Releasing the token of an auto-removed registration is not a second removal.
    token = nil
    #expect(sink.kinds.count == 4)
    withExtendedLifetime(token) {}
}

@Test func sweepRemovesRegistrationsOfDeallocatedOwnersWithoutADispatch() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let title = ObservableValue("", subject: player, key: "title", registry: registry)
    let stays = Screen("stays")
    let received = Received()
    stays.tokens.append(volume.observe(owner: stays) { owner, _ in received.append(owner.name) })
    var kept: [ObservationToken] = []
    do {
        let gone = Screen("gone")
        kept.append(volume.observe(owner: gone) { owner, _ in received.append(owner.name) })
        kept.append(title.observe(owner: gone) { owner, _ in received.append(owner.name) })
    }
    registry.sweep()
    #expect(sink.kinds == [.registered, .registered, .registered, .removed, .removed])
    #expect(sink.events(.removed).map(\.removalReason) == [.ownerDeallocated, .ownerDeallocated])
    #expect(sink.events(.removed).map { $0.registration!.id } == [2, 3])
    #expect(registry.statistics.registrations == 1)
    registry.sweep()
    volume.value = 1
    #expect(received.all == ["stays"])
    #expect(sink.kinds == [.registered, .registered, .registered, .removed, .removed, .changed, .delivered])
    withExtendedLifetime(kept) {}
}

@Test func sweepRemovesRegistrationsOnADeallocatedSubjectAndForgetsItsChannel() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let screen = Screen("stays")
    do {
        let player = Player()
        let isPlaying = ObservableValue(false, subject: player, key: "isPlaying", registry: registry)
        screen.tokens.append(isPlaying.observe(owner: screen) { _, _ in })
    }
    #expect(registry.statistics.channels == 1)
    registry.sweep()
    #expect(sink.kinds == [.registered, .removed])
    #expect(sink.events(.removed)[0].removalReason == .subjectDeallocated)
    #expect(registry.statistics.registrations == 0)
    #expect(registry.statistics.channels == 0)
    #expect(registry.statistics.objects == 1)
    // The owner's token goes later: nothing left to remove, nothing reported.
    screen.tokens.removeAll()
    #expect(sink.kinds == [.registered, .removed])
}

@Test func anOwnerThatKeepsItsTokensTakesItsRegistrationsWithIt() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let isPlaying = ObservableValue(false, subject: player, key: "isPlaying", registry: registry)
    let received = Received()
    do {
        let screen = Screen("gone")
        screen.tokens.append(isPlaying.observe(owner: screen) { owner, _ in received.append(owner.name) })
        screen.tokens.append(registry.observe(notification: "logout", owner: screen) { owner, _ in
            received.append(owner.name)
        })
    }
    isPlaying.value = true
    registry.post(notification: "logout")
    #expect(received.all.isEmpty)
    #expect(sink.kinds == [.registered, .registered, .removed, .removed, .changed, .changed])
    // The tokens go in the owner's deinit, where the weak owner already reads nil: the
    // removal is the owner's deallocation (issue 11 point 4), not a token released early.
    #expect(sink.events(.removed).map(\.removalReason) == [.ownerDeallocated, .ownerDeallocated])
    #expect(sink.events(.changed).map(\.liveCount) == [0, 0])
}

/// A subject that owns its observable state, as apps write it: the state goes with it.
/// The subject is `self`, which the initialiser cannot pass before its stored properties are
/// set; so the state is created lazily in a box the subject owns.
private final class OwnedItem: @unchecked Sendable {
    var status: ObservableValue<Int>!
    var onEnd: CallbackProperty<Bool>!
    init(registry: ObserverRegistry) {
        status = ObservableValue(0, subject: self, key: "status", registry: registry)
        onEnd = CallbackProperty(subject: self, key: "onEnd", registry: registry)
    }
}

@Test func aSubjectsDeathRemovesItsObserversAtOnceWithoutASweep() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let screen = Screen("stays")
    var item: OwnedItem? = OwnedItem(registry: registry)
    screen.tokens.append(item!.status.observe(owner: screen) { _, _ in })
    item!.onEnd.assign(owner: screen) { _, _ in }
    #expect(registry.statistics.channels == 2)
    // Nothing is ever posted on the dead item's channels again: its state's deinit is
    // where the registry learns of its death.
    item = nil
    #expect(sink.kinds == [.registered, .registered, .removed, .removed])
    #expect(sink.events(.removed).map(\.removalReason) == [.subjectDeallocated, .subjectDeallocated])
    #expect(sink.events(.removed).map { $0.registration!.id } == [1, 2])
    #expect(registry.statistics.registrations == 0)
    #expect(registry.statistics.channels == 0)
    // The screen's token goes later: nothing left to remove, nothing reported.
    screen.tokens.removeAll()
    registry.sweep()
    #expect(sink.kinds == [.registered, .registered, .removed, .removed])
}

@Test func releasingStateWhoseSubjectLivesRemovesNothing() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let screen = Screen("stays")
    let player = Player()
    do {
        // A second handle on the same channel, dropped while the subject lives on.
        let isPlaying = ObservableValue(false, subject: player, key: "isPlaying", registry: registry)
        screen.tokens.append(isPlaying.observe(owner: screen) { _, _ in })
    }
    #expect(sink.kinds == [.registered])
    #expect(registry.statistics.registrations == 1)
    #expect(registry.statistics.channels == 1)
    withExtendedLifetime(player) {}
}

@Test func aSubjectDyingInsideACallbackReleasesWhatItsObserversHeldOutsideTheLock() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let screen = Screen("stays")
    let player = Player()
    let currentItemChanged = ObservableValue(0, subject: player, key: "currentItem", registry: registry)
    final class Holder: @unchecked Sendable { var item: OwnedItem? }
    let holder = Holder()
    holder.item = OwnedItem(registry: registry)
    // The item's observer holds a token: released with the registration, after the lock
    // (taking the lock again from under it would deadlock).
    do {
        let inner = registry.observe(notification: "tick", owner: screen) { _, _ in }
        screen.tokens.append(holder.item!.status.observe(owner: screen) { _, _ in _ = inner })
    }
    // The player drops the item from a callback: the item dies mid-dispatch.
    screen.tokens.append(currentItemChanged.observe(owner: screen) { _, _ in holder.item = nil })
    currentItemChanged.value = 1
    #expect(holder.item == nil)
    let removed = sink.events(.removed)
    #expect(removed.map(\.removalReason) == [.subjectDeallocated, .tokenReleased])
    #expect(removed.map { $0.registration!.id } == [2, 1])
    #expect(registry.statistics.registrations == 1)  // the player's observer lives on
    #expect(registry.statistics.channels == 2)  // the player's and tick: both of the item's went with it
}
