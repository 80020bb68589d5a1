import ObserverCore
import Synchronization
import Testing

/// Collects the changes a callback saw.
final class Changes<Value: Sendable>: Sendable {
    private let items = Mutex<[ValueChange<Value>]>([])
    func append(_ change: ValueChange<Value>) { items.withLock { $0.append(change) } }
    var all: [ValueChange<Value>] { items.withLock { $0 } }
}

@Test func initialDeliversTheCurrentValueOnRegistration() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let volume = ObservableValue(3, subject: player, key: "volume", registry: registry)
    let screen = Screen("s")
    let changes = Changes<Int>()
    screen.tokens.append(volume.observe(owner: screen, options: [.initial, .new]) { _, change in changes.append(change) })
    #expect(changes.all == [ValueChange(old: nil, new: 3, isInitial: true)])
    volume.value = 4
    #expect(changes.all == [ValueChange(old: nil, new: 3, isInitial: true), ValueChange(old: nil, new: 4)])
    #expect(sink.kinds == [.registered, .delivered, .changed, .delivered])
    #expect(sink.events[1].new?.description == "3")
    #expect(sink.events[1].depth == 0)
}

@Test func initialWithoutNewStillCarriesTheCurrentValue() {
    let registry = ObserverRegistry()
    let player = Player()
    let volume = ObservableValue(3, subject: player, key: "volume", registry: registry)
    let screen = Screen("s")
    let changes = Changes<Int>()
    screen.tokens.append(volume.observe(owner: screen, options: [.initial]) { _, change in changes.append(change) })
    volume.value = 4
    #expect(changes.all == [ValueChange(old: nil, new: 3, isInitial: true), ValueChange(old: nil, new: nil)])
}

@Test func priorDeliversBeforeAndAfterOnlyToThoseWhoAskedForIt() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let volume = ObservableValue(1, subject: player, key: "volume", registry: registry)
    let wantsPrior = Screen("prior"), plain = Screen("plain")
    let priorChanges = Changes<Int>(), plainChanges = Changes<Int>()
    wantsPrior.tokens.append(volume.observe(owner: wantsPrior, options: [.prior, .old, .new]) { _, change in
        priorChanges.append(change)
    })
    plain.tokens.append(volume.observe(owner: plain, options: [.old, .new]) { _, change in plainChanges.append(change) })
    volume.value = 2
    #expect(priorChanges.all == [
        ValueChange(old: 1, new: 2, isPrior: true),
        ValueChange(old: 1, new: 2),
    ])
    #expect(plainChanges.all == [ValueChange(old: 1, new: 2)])
    #expect(sink.kinds == [.registered, .registered, .changed, .delivered, .changed, .delivered, .delivered])
    let changed = sink.events(.changed)
    #expect(changed.map(\.isPrior) == [true, false])
    #expect(changed.map { $0.old?.description } == ["1", "1"])
    #expect(changed.map { $0.new?.description } == ["2", "2"])
    #expect(sink.events(.delivered).map { $0.registration!.id } == [1, 1, 2])
}

@Test func noPriorDispatchOnceTheLastPriorRegistrationIsGone() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let volume = ObservableValue(1, subject: player, key: "volume", registry: registry)
    let screen = Screen("s")
    var token: ObservationToken? = volume.observe(owner: screen, options: [.prior, .new]) { _, _ in }
    token = nil
    volume.value = 2
    #expect(sink.kinds == [.registered, .removed, .changed])
    #expect(sink.events(.changed).map(\.isPrior) == [false])
    withExtendedLifetime(token) {}
}

@Test func oldAndNewAreIncludedOnlyWhenAskedFor() {
    let registry = ObserverRegistry()
    let player = Player()
    let title = ObservableValue("a", subject: player, key: "title", registry: registry)
    let screen = Screen("s")
    let onlyOld = Changes<String>(), onlyNew = Changes<String>(), both = Changes<String>(), neither = Changes<String>()
    screen.tokens.append(title.observe(owner: screen, options: [.old]) { _, change in onlyOld.append(change) })
    screen.tokens.append(title.observe(owner: screen, options: [.new]) { _, change in onlyNew.append(change) })
    screen.tokens.append(title.observe(owner: screen) { _, change in both.append(change) })
    screen.tokens.append(title.observe(owner: screen, options: []) { _, change in neither.append(change) })
    title.value = "b"
    #expect(onlyOld.all == [ValueChange(old: "a", new: nil)])
    #expect(onlyNew.all == [ValueChange(old: nil, new: "b")])
    #expect(both.all == [ValueChange(old: "a", new: "b")])
    #expect(neither.all == [ValueChange(old: nil, new: nil)])
}

@Test func onlyWhenChangedSkipsEqualValuesAndSaysWhy() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let toolbar = Player()
    let hidden = ObservableValue(false, subject: toolbar, key: "hidden", registry: registry)
    let button = Screen("download"), logger = Screen("logger")
    let buttonChanges = Changes<Bool>(), loggerChanges = Changes<Bool>()
    button.tokens.append(hidden.observe(owner: button, options: [.old, .new, .onlyWhenChanged]) { _, change in
        buttonChanges.append(change)
    })
    logger.tokens.append(hidden.observe(owner: logger) { _, change in loggerChanges.append(change) })
    hidden.value = true
    hidden.value = true
    hidden.value = false
    #expect(buttonChanges.all == [ValueChange(old: false, new: true), ValueChange(old: true, new: false)])
    #expect(loggerChanges.all == [
        ValueChange(old: false, new: true), ValueChange(old: true, new: true), ValueChange(old: true, new: false),
    ])
    #expect(sink.kinds == [
        .registered, .registered,
        .changed, .delivered, .delivered,
        .changed, .skipped, .delivered,
        .changed, .delivered, .delivered,
    ])
    let skipped = sink.events(.skipped)[0]
    #expect(skipped.skipReason == .unchanged)
    #expect(skipped.registration?.id == 1)
    #expect(skipped.channel == hidden.channelInfo)
}

@Test func optionsRoundTripThroughTheirDescription() {
    let all: ObservationOptions = [.initial, .prior, .old, .new, .onlyWhenChanged]
    #expect(all.description == "initial,prior,old,new,onlyWhenChanged")
    #expect(ObservationOptions(names: all.description) == all)
    #expect(ObservationOptions(names: "new,bogus,old") == [.old, .new])
    #expect(ObservationOptions().description == "")
}
