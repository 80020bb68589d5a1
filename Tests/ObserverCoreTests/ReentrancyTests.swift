import ObserverCore
import Testing

// Callbacks that register, remove (themselves or others) and post while a dispatch is in
// flight: no deadlock, and a snapshot's rules hold (shared/seeds/002's upload progress).

final class Upload {}

final class ProgressBar {
    var token: ObservationToken?
    var shown: [Double] = []
}

@Test func uploadProgressRemovesItselfAtCompletionAndHearsNothingMore() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let upload = Upload()
    let fraction = ObservableValue(0.0, subject: upload, key: "fractionCompleted", registry: registry)
    let bar = ProgressBar()
    let cancelLine = #line + 4
    bar.token = fraction.observe(owner: bar) { bar, change in
        bar.shown.append(change.new!)
        if change.new! >= 1.0 {
            bar.token?.cancel()
        }
    }
    fraction.value = 0.5
    fraction.value = 1.0
    fraction.value = 1.0
    fraction.value = 0.0
    #expect(bar.shown == [0.5, 1.0])
    #expect(sink.kinds == [
        .registered, .changed, .delivered, .changed, .removed, .delivered, .changed, .changed,
    ])
    let removed = sink.events(.removed)[0]
    #expect(removed.removalReason == .tokenCancelled)
    #expect(removed.callSite?.line == cancelLine)
    #expect(removed.depth == 1)
    #expect(sink.events(.changed).map(\.liveCount) == [1, 1, 0, 0])
    // The bar drops its token later: already removed, not reported again.
    bar.token = nil
    #expect(sink.events(.removeUnregistered).isEmpty)
    #expect(sink.kinds.count == 8)
}

@Test func aRegistrationAddedDuringADispatchDoesNotGetTheChangeInFlight() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let received = Received()
    let first = Screen("first"), late = Screen("late")
    first.partner = late
    first.tokens.append(volume.observe(owner: first) { first, change in
        received.append("first:\(change.new!)")
        if change.new == 1, let late = first.partner {
            late.tokens.append(volume.observe(owner: late) { owner, change in
                received.append("\(owner.name):\(change.new!)")
            })
        }
    })
    volume.value = 1
    volume.value = 2
    #expect(received.all == ["first:1", "first:2", "late:2"])
    #expect(sink.kinds == [.registered, .changed, .registered, .delivered, .changed, .delivered, .delivered])
    #expect(sink.events(.changed).map(\.liveCount) == [1, 2])
    #expect(sink.events(.registered).map(\.depth) == [0, 1])
}

@Test func aRegistrationRemovedDuringADispatchIsNotCalledLaterInIt() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let received = Received()
    let remover = Screen("remover"), victim = Screen("victim"), last = Screen("last")
    remover.partner = victim
    remover.tokens.append(volume.observe(owner: remover) { remover, change in
        received.append("remover:\(change.new!)")
        if change.new == 1 { remover.partner?.tokens.removeAll() }
    })
    victim.tokens.append(volume.observe(owner: victim) { _, change in received.append("victim:\(change.new!)") })
    last.tokens.append(volume.observe(owner: last) { _, change in received.append("last:\(change.new!)") })
    volume.value = 1
    volume.value = 2
    #expect(received.all == ["remover:1", "last:1", "remover:2", "last:2"])
    #expect(sink.kinds == [
        .registered, .registered, .registered,
        .changed, .removed, .delivered, .delivered,
        .changed, .delivered, .delivered,
    ])
    #expect(sink.events(.removed)[0].removalReason == .tokenReleased)
    #expect(sink.events(.removed)[0].registration?.id == 2)
    #expect(sink.events(.delivered).map { $0.registration!.id } == [1, 3, 1, 3])
}

@Test func aCallbackMayPostToItsOwnChannelWithoutDeadlock() {
    // A clamp: any volume above 10 is set back to 10 from inside the callback.
    let registry = ObserverRegistry()
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let received = Received()
    let clamp = Screen("clamp")
    clamp.tokens.append(volume.observe(owner: clamp) { [volume] _, change in
        received.append("\(change.old!)->\(change.new!)")
        if change.new! > 10 { volume.value = 10 }
    })
    volume.value = 15
    #expect(received.all == ["0->15", "15->10"])
    #expect(volume.value == 10)
}

@Test func nestedPostsRecordTheirDepth() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let a = ObservableValue(0, subject: player, key: "a", registry: registry)
    let b = ObservableValue(0, subject: player, key: "b", registry: registry)
    let c = ObservableValue(0, subject: player, key: "c", registry: registry)
    let screen = Screen("s")
    screen.tokens.append(a.observe(owner: screen) { [b] _, change in b.value = change.new! + 1 })
    screen.tokens.append(b.observe(owner: screen) { [c] _, change in c.value = change.new! + 1 })
    screen.tokens.append(c.observe(owner: screen) { _, _ in })
    a.value = 1
    a.value = 10
    #expect(b.value == 11)
    #expect(c.value == 12)
    let changes = sink.events(.changed)
    #expect(changes.map { $0.channel!.key } == ["a", "b", "c", "a", "b", "c"])
    #expect(changes.map(\.depth) == [0, 1, 2, 0, 1, 2])
    let deliveries = sink.events(.delivered)
    // Innermost callbacks finish first.
    #expect(deliveries.map { $0.channel!.key } == ["c", "b", "a", "c", "b", "a"])
    #expect(deliveries.map(\.depth) == [2, 1, 0, 2, 1, 0])
    // Depth goes back to zero once the outermost dispatch is over.
    registry.post(notification: "after")
    #expect(sink.events(.changed).last?.depth == 0)
}
