import ObserverCore
import Testing

// Removing what is not registered is never a crash: it is one removeUnregistered event
// carrying the removal's call site (shared/seeds/002: removal twice; a misspelled key).

@Test func removingAnOwnerThatNeverRegisteredIsReported() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let stranger = Screen("stranger")
    let line = #line + 1
    registry.removeObservers(owner: stranger)
    #expect(sink.kinds == [.removeUnregistered])
    let event = sink.events[0]
    #expect(event.owner == ObjectRef(id: 1, typeName: "Screen"))
    #expect(event.callSite?.line == line)
    #expect(event.channel == nil)
    #expect(event.registration == nil)
}

@Test func removingTwiceIsOneRemovalAndOneReport() {
    // The stretchy header removes its observer in both dealloc and removeFromSuperview.
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let scrollView = Player()
    let offset = ObservableValue(0.0, subject: scrollView, key: "contentOffset", registry: registry)
    let header = Screen("header")
    header.tokens.append(offset.observe(owner: header) { _, _ in })
    registry.removeObservers(owner: header, subject: scrollView, key: "contentOffset")
    let secondLine = #line + 1
    registry.removeObservers(owner: header, subject: scrollView, key: "contentOffset")
    #expect(sink.kinds == [.registered, .removed, .removeUnregistered])
    #expect(sink.events(.removed)[0].removalReason == .explicit)
    let report = sink.events(.removeUnregistered)[0]
    #expect(report.callSite?.line == secondLine)
    #expect(report.channel == offset.channelInfo)
    #expect(report.owner?.description == "Screen#2")
    // The owner's token goes with it later: already removed, nothing more.
    header.tokens.removeAll()
    #expect(sink.kinds.count == 3)
}

@Test func removingAMisspelledKeyIsReportedWithTheKeyAsWritten() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let scrollView = Player()
    let offset = ObservableValue(0.0, subject: scrollView, key: "contentOffset", registry: registry)
    let header = Screen("header")
    header.tokens.append(offset.observe(owner: header) { _, _ in })
    let line = #line + 1
    registry.removeObservers(owner: header, subject: scrollView, key: "contenOffset")
    #expect(sink.kinds == [.registered, .removeUnregistered])
    let report = sink.events[1]
    #expect(report.channel?.key == "contenOffset")
    #expect(report.channel?.subject == offset.channelInfo.subject)
    #expect(report.channel?.id == 0)
    #expect(report.callSite?.line == line)
    // The real registration is untouched.
    #expect(registry.statistics.registrations == 1)
}

// Issue 11 point 4: the app cannot know the registry removed it by itself, so cancelling
// then is a recorded no-op, not a second removal.
@Test func cancellingAnAutoRemovedRegistrationIsARecordedNoOp() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    var token: ObservationToken?
    do {
        let gone = Screen("gone")
        token = volume.observe(owner: gone) { _, _ in }
    }
    registry.sweep()
    token?.cancel()
    let cancelLine = #line - 1
    #expect(sink.kinds == [.registered, .removed, .cancelAfterAutoRemoval])
    #expect(sink.events(.removed)[0].removalReason == .ownerDeallocated)
    let noOp = sink.events(.cancelAfterAutoRemoval)[0]
    #expect(noOp.registration?.id == 1)
    #expect(noOp.removalReason == .ownerDeallocated)
    #expect(noOp.channel == volume.channelInfo)
    #expect(noOp.callSite?.line == cancelLine)
}

@Test func cancellingTwiceIsStillReported() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let screen = Screen("s")
    let token = volume.observe(owner: screen) { _, _ in }
    token.cancel()
    token.cancel()
    #expect(sink.kinds == [.registered, .removed, .removeUnregistered])
    #expect(sink.events(.removeUnregistered)[0].registration?.id == 1)
    withExtendedLifetime(screen) {}
}

@Test func cancellingAReplacedAssignmentIsARecordedNoOp() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let slot = CallbackProperty<Int>(subject: player, key: "delegate", registry: registry)
    let first = Screen("first"), second = Screen("second")
    let token = slot.assign(owner: first) { _, _ in }
    slot.assign(owner: second) { _, _ in }
    token.cancel()
    #expect(sink.kinds == [.registered, .replaced, .cancelAfterAutoRemoval])
    #expect(sink.events(.cancelAfterAutoRemoval)[0].removalReason == .replaced)
    #expect(registry.statistics.registrations == 1)
    withExtendedLifetime((first, second)) {}
}

@Test func removingFromAValueOrANotificationWithNoRegistrationsIsReported() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let screen = Screen("s")
    volume.removeObservers(owner: screen)
    volume.removeAllObservers()
    registry.removeObservers(notification: "neverObserved", owner: screen)
    #expect(sink.kinds == [.removeUnregistered, .removeUnregistered, .removeUnregistered])
    #expect(sink.events.map { $0.channel?.key } == ["volume", "volume", "neverObserved"])
    #expect(sink.events.map { $0.owner?.description } == ["Screen#2", nil, "Screen#2"])
}

@Test func removingAllOfAnOwnersRegistrationsUsesReasonOwnerRemovedAll() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let title = ObservableValue("", subject: player, key: "title", registry: registry)
    let screen = Screen("s"), other = Screen("other")
    screen.tokens.append(volume.observe(owner: screen) { _, _ in })
    other.tokens.append(volume.observe(owner: other) { _, _ in })
    screen.tokens.append(title.observe(owner: screen) { _, _ in })
    registry.removeObservers(owner: screen)
    #expect(sink.kinds == [.registered, .registered, .registered, .removed, .removed])
    #expect(sink.events(.removed).map(\.removalReason) == [.ownerRemovedAll, .ownerRemovedAll])
    #expect(sink.events(.removed).map { $0.registration!.id } == [1, 3])
    #expect(registry.statistics.registrations == 1)
}
