import ObserverCore
import Testing

// The seed bug (shared/seeds/004): a singleton's single callback property assigned from
// three places; each assignment silently replaces the previous one.

@Test func singleSlotReplacesEachAssignmentSoOnlyTheLastFires() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let isPlayingChanged = CallbackProperty<Bool>(subject: player, key: "isPlayingChanged", registry: registry)
    let floating = Screen("floating"), nowPlaying = Screen("nowPlaying"), list = Screen("list")
    let received = Received()
    let firstLine = #line + 1
    isPlayingChanged.assign(owner: floating) { owner, playing in received.append("\(owner.name):\(playing)") }
    isPlayingChanged.assign(owner: nowPlaying) { owner, playing in received.append("\(owner.name):\(playing)") }
    isPlayingChanged.assign(owner: list) { owner, playing in received.append("\(owner.name):\(playing)") }
    isPlayingChanged.call(true)
    isPlayingChanged.call(false)
    #expect(received.all == ["list:true", "list:false"])
    #expect(sink.kinds == [.registered, .replaced, .replaced, .changed, .delivered, .changed, .delivered])

    let replacements = sink.events(.replaced)
    #expect(replacements.map { $0.replaced!.owner.description } == ["Screen#2", "Screen#3"])
    #expect(replacements.map { $0.registration!.owner.description } == ["Screen#3", "Screen#4"])
    #expect(replacements.map { $0.replaced!.id } == [1, 2])
    #expect(replacements.map { $0.registration!.id } == [2, 3])
    #expect(replacements.map { $0.replaced!.callSite.line } == [firstLine, firstLine + 1])
    #expect(replacements.map { $0.registration!.callSite.line } == [firstLine + 1, firstLine + 2])
    let site = replacements[0].replaced!.callSite
    #expect(site.file == "ObserverCoreTests/SingleSlotTests.swift")
    #expect(site.function == "singleSlotReplacesEachAssignmentSoOnlyTheLastFires()")
    #expect(replacements.allSatisfy { $0.channel?.policy == .singleSlot })
    #expect(sink.events(.changed).map(\.liveCount) == [1, 1])
    #expect(sink.events(.changed).map { $0.new?.description } == ["true", "false"])
    #expect(registry.statistics.registrations == 1)
    withExtendedLifetime((floating, nowPlaying, list)) {}
}

@Test func replacingADeallocatedOccupantIsARemovalThenARegistration() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let slot = CallbackProperty<Int>(subject: player, key: "progress", registry: registry)
    let received = Received()
    do {
        let gone = Screen("gone")
        slot.assign(owner: gone) { owner, value in received.append("\(owner.name):\(value)") }
    }
    let stays = Screen("stays")
    slot.assign(owner: stays) { owner, value in received.append("\(owner.name):\(value)") }
    slot.call(5)
    #expect(received.all == ["stays:5"])
    #expect(sink.kinds == [.registered, .removed, .registered, .changed, .delivered])
    let removed = sink.events(.removed)[0]
    #expect(removed.removalReason == .ownerDeallocated)
    #expect(removed.registration?.id == 1)
    #expect(removed.callSite == nil)
    #expect(sink.events(.registered).map { $0.registration!.id } == [1, 2])
    withExtendedLifetime(stays) {}
}

@Test func aDeallocatedOccupantEmptiesTheSlotAtTheNextCall() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let slot = CallbackProperty<String>(subject: player, key: "titleChanged", registry: registry)
    let received = Received()
    do {
        let screen = Screen("gone")
        slot.assign(owner: screen) { owner, title in received.append("\(owner.name):\(title)") }
    }
    slot.call("first")
    slot.call("second")
    #expect(received.all.isEmpty)
    #expect(sink.kinds == [.registered, .changed, .removed, .changed])
    #expect(sink.events(.removed).map(\.removalReason) == [.ownerDeallocated])
    #expect(sink.events(.changed).map(\.liveCount) == [1, 0])
}

@Test func clearingTheSlotRemovesItsCallbackAndClearingAgainIsReported() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let slot = CallbackProperty<Int>(subject: player, key: "progress", registry: registry)
    let screen = Screen("s")
    let received = Received()
    slot.assign(owner: screen) { owner, value in received.append("\(owner.name):\(value)") }
    slot.clear()
    let secondClearLine = #line + 1
    slot.clear()
    slot.call(1)
    #expect(received.all.isEmpty)
    #expect(sink.kinds == [.registered, .removed, .removeUnregistered, .changed])
    #expect(sink.events(.removed)[0].removalReason == .explicit)
    let unregistered = sink.events(.removeUnregistered)[0]
    #expect(unregistered.callSite?.line == secondClearLine)
    #expect(unregistered.channel == slot.channelInfo)
    withExtendedLifetime(screen) {}
}

@Test func releasingTheAssignTokenKeepsTheCallbackAndCancellingItEmptiesTheSlot() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let slot = CallbackProperty<Int>(subject: player, key: "progress", registry: registry)
    let screen = Screen("s")
    let received = Received()
    let visible = registry.beginScope("s visible")
    do {
        // Discarded at once: the legacy shape, which must keep the callback.
        slot.assign(owner: screen, scope: visible) { owner, value in received.append("\(owner.name):\(value)") }
    }
    slot.call(1)
    let token = slot.assign(owner: screen) { owner, value in received.append("\(owner.name):again \(value)") }
    slot.call(2)
    token.cancel()
    slot.call(3)
    #expect(received.all == ["s:1", "s:again 2"])
    #expect(sink.kinds == [.scopeBegan, .registered, .changed, .delivered, .replaced, .changed, .delivered, .removed, .changed])
    #expect(sink.events(.registered)[0].registration?.scope == visible.info)
    #expect(sink.events(.removed).map(\.removalReason) == [.tokenCancelled])
    #expect(token.registration.id == 2)
    withExtendedLifetime(screen) {}
}

// Issue 11 point 4: a token released in its owner's deinit (the weak owner already reads
// nil there) records the owner's deallocation at once, for callback properties too, so a
// replaced owner that goes away is seen deallocated.
@Test func anAssignTokenKeptByItsOwnerRecordsTheOwnersDeallocation() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let slot = CallbackProperty<Int>(subject: player, key: "delegate", registry: registry)
    let received = Received()
    let list = Screen("list")
    list.tokens.append(slot.assign(owner: list) { owner, value in received.append("\(owner.name):\(value)") })
    do {
        let detail = Screen("detail")
        detail.tokens.append(slot.assign(owner: detail) { owner, value in received.append("\(owner.name):\(value)") })
        slot.call(1)
        list.tokens.append(slot.assign(owner: list) { owner, value in received.append("\(owner.name):\(value)") })
    }
    slot.call(2)
    #expect(received.all == ["detail:1", "list:2"])
    // The detail screen was replaced (nothing to remove) and then went: its deallocation
    // is recorded (ownerGone), and the list's slot is untouched.
    #expect(sink.kinds == [.registered, .replaced, .changed, .delivered, .replaced, .ownerGone, .changed, .delivered])
    withExtendedLifetime(list) {}
}

@Test func anOwnerHoldingTheSlotThatGoesEmptiesItAtOnce() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let slot = CallbackProperty<Int>(subject: player, key: "delegate", registry: registry)
    do {
        let screen = Screen("gone")
        screen.tokens.append(slot.assign(owner: screen) { _, _ in })
    }
    // Recorded when the screen went, not at the next call.
    #expect(sink.kinds == [.registered, .removed])
    #expect(sink.events(.removed).map(\.removalReason) == [.ownerDeallocated])
    slot.call(1)
    #expect(sink.events(.changed).map(\.liveCount) == [0])
}

// The hand-over of a delegate: a pushed screen takes the slot, the previous one re-takes
// it when the pushed one is popped; the popped screen, already replaced, goes with its
// token, and its deallocation is recorded (`ownerGone`) so it is not a live victim.
@Test func aReplacedOwnerThatGoesWithItsTokenIsRecordedAsGone() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let slot = CallbackProperty<Int>(subject: player, key: "delegate", registry: registry)
    let list = Screen("list")
    list.tokens.append(slot.assign(owner: list) { _, _ in })
    do {
        let detail = Screen("detail")
        detail.tokens.append(slot.assign(owner: detail) { _, _ in })
        list.tokens.append(slot.assign(owner: list) { _, _ in })
    }
    #expect(sink.kinds == [.registered, .replaced, .replaced, .ownerGone])
    let gone = sink.events(.ownerGone)[0]
    #expect(gone.registration?.owner.description == "Screen#3")
    #expect(gone.registration?.id == 2)
    #expect(gone.channel == slot.channelInfo)
    withExtendedLifetime(list) {}
}
