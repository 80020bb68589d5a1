import ObserverCore
import Testing

@Test func releasingATokenRemovesItsRegistrationAtOnce() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let screen = Screen("s")
    let received = Received()
    var token: ObservationToken? = volume.observe(owner: screen) { _, change in received.append("\(change.new!)") }
    volume.value = 1
    token = nil
    volume.value = 2
    #expect(received.all == ["1"])
    #expect(sink.kinds == [.registered, .changed, .delivered, .removed, .changed])
    let removed = sink.events(.removed)[0]
    #expect(removed.removalReason == .tokenReleased)
    #expect(removed.registration?.id == 1)
    #expect(removed.callSite == nil)
    #expect(registry.statistics.registrations == 0)
    withExtendedLifetime((token, screen)) {}
}

@Test func cancellingRemovesWithTheCancelsCallSiteAndCancellingTwiceIsReportedOnce() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let screen = Screen("s")
    let received = Received()
    var token: ObservationToken? = volume.observe(owner: screen) { _, change in received.append("\(change.new!)") }
    let firstCancel = #line + 1
    token!.cancel()
    volume.value = 1
    let secondCancel = #line + 1
    token!.cancel()
    token = nil  // released after cancel: already gone, nothing to report
    #expect(received.all.isEmpty)
    #expect(sink.kinds == [.registered, .removed, .changed, .removeUnregistered])
    let removed = sink.events(.removed)[0]
    #expect(removed.removalReason == .tokenCancelled)
    #expect(removed.callSite?.line == firstCancel)
    #expect(removed.callSite?.file == "ObserverCoreTests/TokenTests.swift")
    let unregistered = sink.events(.removeUnregistered)[0]
    #expect(unregistered.callSite?.line == secondCancel)
    #expect(unregistered.registration?.id == 1)
    #expect(unregistered.owner?.description == "Screen#2")
    withExtendedLifetime((token, screen)) {}
}

@Test func aTokenNamesItsRegistration() {
    let registry = ObserverRegistry()
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let screen = Screen("s")
    let line = #line + 1
    let token = volume.observe(owner: screen, options: [.new, .onlyWhenChanged]) { _, _ in }
    let info = token.registration
    #expect(info.id == 1)
    #expect(info.channelID == volume.channelInfo.id)
    #expect(info.owner == ObjectRef(id: 2, typeName: "Screen"))
    #expect(info.callSite == CallSite(
        file: "ObserverCoreTests/TokenTests.swift", line: line, function: "aTokenNamesItsRegistration()"
    ))
    #expect(info.options == [.new, .onlyWhenChanged])
    #expect(info.queueLabel == nil)
    #expect(info.expectsMainThread == false)
    #expect(info.sender == nil)
    #expect(info.scope == nil)
}
