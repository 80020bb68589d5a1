import ObserverCore
import Testing

@Test func threeOwnersReceiveEveryChangeInRegistrationOrder() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let isPlaying = ObservableValue(false, subject: player, key: "isPlaying", registry: registry)
    let screens = [Screen("floating"), Screen("nowPlaying"), Screen("list")]
    let received = Received()
    for screen in screens {
        screen.tokens.append(isPlaying.observe(owner: screen) { owner, change in
            received.append("\(owner.name):\(change.old!)->\(change.new!)")
        })
    }
    isPlaying.value = true
    isPlaying.value = false
    #expect(received.all == [
        "floating:false->true", "nowPlaying:false->true", "list:false->true",
        "floating:true->false", "nowPlaying:true->false", "list:true->false",
    ])
    #expect(sink.kinds == [
        .registered, .registered, .registered,
        .changed, .delivered, .delivered, .delivered,
        .changed, .delivered, .delivered, .delivered,
    ])
    let changes = sink.events(.changed)
    #expect(changes.map(\.liveCount) == [3, 3])
    #expect(changes.map { $0.old?.description } == ["false", "true"])
    #expect(changes.map { $0.new?.description } == ["true", "false"])
    #expect(changes.map { $0.channel?.description } == ["Player#1.isPlaying", "Player#1.isPlaying"])
    #expect(sink.events(.delivered).map { $0.registration!.id } == [1, 2, 3, 1, 2, 3])
    #expect(sink.events(.registered).map { $0.registration!.owner.description } == ["Screen#2", "Screen#3", "Screen#4"])
}

@Test func notificationObserversAreCalledInRegistrationOrder() {
    let registry = ObserverRegistry()
    let screens = (1...5).map { Screen("screen\($0)") }
    let received = Received()
    for screen in screens {
        screen.tokens.append(registry.observe(notification: "playbackStarted", owner: screen) { owner, note in
            received.append("\(owner.name):\(note.payload as! Int)")
        })
    }
    registry.post(notification: "playbackStarted", payload: 7)
    #expect(received.all == ["screen1:7", "screen2:7", "screen3:7", "screen4:7", "screen5:7"])
}

@Test func registrationOrderSurvivesRemovalsInTheMiddle() {
    // Forty registrations, every other one cancelled: enough tombstones to compact the
    // channel's storage, which must keep the survivors in registration order.
    let registry = ObserverRegistry()
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let screens = (0..<40).map { Screen("s\($0)") }
    let received = Received()
    var tokens: [ObservationToken] = []
    for screen in screens {
        tokens.append(volume.observe(owner: screen) { owner, _ in received.append(owner.name) })
    }
    for index in stride(from: 0, to: 40, by: 2) { tokens[index].cancel() }
    volume.value = 1
    #expect(received.all == stride(from: 1, to: 40, by: 2).map { "s\($0)" })
    #expect(registry.statistics.registrations == 20)
    withExtendedLifetime(tokens) {}
}
