import Dispatch
import ObserverCore
import Testing

// Registrations that ask for delivery on a queue: called there, asynchronously, and the
// choice recorded so the journal can check it.

private let queueName = DispatchSpecificKey<String>()

private func serialQueue(_ label: String) -> DispatchQueue {
    let queue = DispatchQueue(label: label)
    queue.setSpecific(key: queueName, value: label)
    return queue
}

@Test func aRegistrationWithAQueueIsCalledOnThatQueue() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let isPlaying = ObservableValue(false, subject: player, key: "isPlaying", registry: registry)
    let queue = serialQueue("test.ui")
    let screen = Screen("s")
    let received = Received()
    screen.tokens.append(isPlaying.observe(owner: screen, queue: queue, expectsMainThread: true) { owner, change in
        let label = DispatchQueue.getSpecific(key: queueName) ?? "other"
        received.append("\(owner.name):\(change.new!):\(label)")
    })
    isPlaying.value = true
    isPlaying.value = false
    queue.sync {}
    #expect(received.all == ["s:true:test.ui", "s:false:test.ui"])
    #expect(sink.kinds == [.registered, .changed, .changed, .delivered, .delivered]
        || sink.kinds == [.registered, .changed, .delivered, .changed, .delivered])
    let registration = sink.events(.registered)[0].registration!
    #expect(registration.queueLabel == "test.ui")
    #expect(registration.expectsMainThread)
    let changed = sink.events(.changed), delivered = sink.events(.delivered)
    #expect(delivered.map(\.isMainThread) == [false, false])
    #expect(delivered.map(\.depth) == [0, 0])
    // Delivered on the queue's thread, not the posting one.
    #expect(delivered.allSatisfy { $0.thread != changed[0].thread })
    #expect(changed.map(\.thread) == [changed[0].thread, changed[0].thread])
}

@Test func aRegistrationRemovedBeforeItsQueuedDeliveryRunsIsNotCalled() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let queue = serialQueue("test.held")
    let screen = Screen("s")
    let received = Received()
    let token = volume.observe(owner: screen, queue: queue) { _, change in received.append("\(change.new!)") }
    queue.suspend()
    volume.value = 1
    token.cancel()
    queue.resume()
    queue.sync {}
    #expect(received.all.isEmpty)
    // The change that waited in the queue is not lost silently: it is a skip.
    #expect(sink.kinds == [.registered, .changed, .removed, .skipped])
    #expect(sink.events(.skipped).map(\.skipReason) == [.removedBeforeDelivery])
    #expect(sink.events(.skipped).map { $0.registration?.id } == [token.registration.id])
}

@Test func theMainQueueImpliesExpectingTheMainThread() {
    let registry = ObserverRegistry()
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let screen = Screen("s")
    let onMain = volume.observe(owner: screen, queue: .main) { _, _ in }
    let declared = volume.observe(owner: screen, expectsMainThread: true) { _, _ in }
    let plain = volume.observe(owner: screen) { _, _ in }
    #expect(onMain.registration.expectsMainThread)
    #expect(onMain.registration.queueLabel == DispatchQueue.main.label)
    #expect(declared.registration.expectsMainThread)
    #expect(declared.registration.queueLabel == nil)
    #expect(!plain.registration.expectsMainThread)
}

@Test func initialDeliveryOnAQueueRunsThere() {
    let registry = ObserverRegistry()
    let player = Player()
    let volume = ObservableValue(5, subject: player, key: "volume", registry: registry)
    let queue = serialQueue("test.initial")
    let screen = Screen("s")
    let received = Received()
    screen.tokens.append(volume.observe(owner: screen, options: [.initial, .new], queue: queue) { _, change in
        received.append("\(change.new!):\(change.isInitial):\(DispatchQueue.getSpecific(key: queueName) ?? "other")")
    })
    queue.sync {}
    #expect(received.all == ["5:true:test.initial"])
}

@Test func everyDeliveryAndSkipCarriesTheNumberOfItsChangeEvenWhenQueuedBehindALaterOne() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let queue = serialQueue("test.numbers")
    let screen = Screen("s")
    let received = Received()
    let queued = volume.observe(owner: screen, queue: queue) { _, change in received.append("q\(change.new!)") }
    let direct = volume.observe(owner: screen, options: [.new, .onlyWhenChanged]) { _, change in
        received.append("d\(change.new!)")
    }
    // One thread posts twice before the queue runs the first delivery: the queued
    // deliveries come after both changes, and only their numbers say which is which.
    queue.suspend()
    volume.value = 1
    volume.value = 1
    queue.resume()
    queue.sync {}
    #expect(received.all == ["d1", "q1", "q1"])
    #expect(sink.kinds == [.registered, .registered, .changed, .delivered, .changed, .skipped, .delivered, .delivered])
    #expect(sink.events.map(\.changeNumber) == [nil, nil, 1, 1, 2, 2, 1, 2])
    #expect(sink.events(.delivered).map { $0.registration?.id } == [direct.registration.id, queued.registration.id, queued.registration.id])
    #expect(sink.events(.skipped).map { $0.registration?.id } == [direct.registration.id])
}

@Test func aQueuedDeliverySkippedAfterRemovalCarriesItsChangeNumber() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let queue = serialQueue("test.held.numbers")
    let screen = Screen("s")
    volume.value = 5  // change 1, before anyone listens
    let token = volume.observe(owner: screen, queue: queue) { _, _ in }
    queue.suspend()
    volume.value = 6  // change 2
    token.cancel()
    queue.resume()
    queue.sync {}
    #expect(sink.kinds == [.changed, .registered, .changed, .removed, .skipped])
    #expect(sink.events.map(\.changeNumber) == [1, nil, 2, nil, 2])
}
