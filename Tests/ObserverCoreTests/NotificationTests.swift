import ObserverCore
import Testing

@Test func notificationObserversMayFilterBySender() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let mainPlayer = Player(), previewPlayer = Player()
    let onlyMain = Screen("onlyMain"), anyone = Screen("anyone")
    let received = Received()
    onlyMain.tokens.append(registry.observe(notification: "didFinish", sender: mainPlayer, owner: onlyMain) { owner, note in
        received.append("\(owner.name):\(note.sender?.description ?? "nil"):\(note.payload as? String ?? "nil")")
    })
    anyone.tokens.append(registry.observe(notification: "didFinish", owner: anyone) { owner, note in
        received.append("\(owner.name):\(note.sender?.description ?? "nil"):\(note.payload as? String ?? "nil")")
    })
    registry.post(notification: "didFinish", sender: mainPlayer, payload: "song")
    registry.post(notification: "didFinish", sender: previewPlayer, payload: "clip")
    registry.post(notification: "didFinish")
    #expect(received.all == [
        "onlyMain:Player#2:song", "anyone:Player#2:song",
        "anyone:Player#4:clip",
        "anyone:nil:nil",
    ])
    #expect(sink.kinds == [
        .registered, .registered,
        .changed, .delivered, .delivered,
        .changed, .skipped, .delivered,
        .changed, .skipped, .delivered,
    ])
    #expect(sink.events(.skipped).map(\.skipReason) == [.senderMismatch, .senderMismatch])
    #expect(sink.events(.registered)[0].registration?.sender == ObjectRef(id: 2, typeName: "Player"))
    #expect(sink.events(.registered)[1].registration?.sender == nil)
    #expect(sink.events(.changed).map { $0.new?.description } == ["song", "clip", nil])
    #expect(sink.events(.changed).map { $0.channel!.subject } == [.any, .any, .any])
    #expect(sink.events(.changed).map { $0.channel!.description } == ["*.didFinish", "*.didFinish", "*.didFinish"])
}

@Test func postingANameNobodyObservesReachesNobody() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let screen = Screen("s")
    let received = Received()
    screen.tokens.append(registry.observe(notification: "contentOffset", owner: screen) { owner, _ in
        received.append(owner.name)
    })
    registry.post(notification: "contenOffset")
    #expect(received.all.isEmpty)
    #expect(sink.kinds == [.registered, .changed])
    #expect(sink.events[1].liveCount == 0)
    #expect(sink.events[1].channel?.key == "contenOffset")
}

@Test func removingNotificationObserversIsPerOwnerAndName() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let screen = Screen("s"), other = Screen("other")
    let received = Received()
    screen.tokens.append(registry.observe(notification: "a", owner: screen) { owner, _ in received.append("\(owner.name):a") })
    screen.tokens.append(registry.observe(notification: "b", owner: screen) { owner, _ in received.append("\(owner.name):b") })
    other.tokens.append(registry.observe(notification: "a", owner: other) { owner, _ in received.append("\(owner.name):a") })
    registry.removeObservers(notification: "a", owner: screen)
    registry.post(notification: "a")
    registry.post(notification: "b")
    #expect(received.all == ["other:a", "s:b"])
    #expect(sink.events(.removed).map { $0.registration!.id } == [1])
    #expect(sink.events(.removed).map(\.removalReason) == [.explicit])
}
