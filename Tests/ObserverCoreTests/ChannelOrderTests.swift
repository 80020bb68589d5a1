import Dispatch
import ObserverCore
import Testing

// Posts take only their channel's lock. What the sink still guarantees: on one channel,
// events arrive exactly in the order the registry performed them (change numbers
// increasing, each change's old value the previous change's new value), and change
// numbers are unique across channels.

@Test func eachChannelsEventsKeepTheirOrderWhileThreadsPostOnOtherChannels() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let players = (0..<4).map { _ in Player() }
    let values = players.map { ObservableValue(0, subject: $0, key: "volume", registry: registry) }
    let screen = Screen("s")
    for value in values { screen.tokens.append(value.observe(owner: screen) { _, _ in }) }
    // Two threads per channel, so each channel's chain is contended too.
    DispatchQueue.concurrentPerform(iterations: 8) { index in
        let value = values[index % 4]
        for post in 1...500 { value.value = post }
    }
    let changed = sink.events(.changed)
    #expect(changed.count == 4_000)
    #expect(Set(changed.compactMap(\.changeNumber)) == Set(1...4_000))
    for value in values {
        let mine = changed.filter { $0.channel == value.channelInfo }
        let numbers = mine.compactMap(\.changeNumber)
        #expect(numbers == numbers.sorted())
        // Old → new chains: each change replaced the value the previous one set.
        let olds = mine.map { $0.old?.description ?? "-" }
        let news = ["0"] + mine.dropLast().map { $0.new?.description ?? "-" }
        #expect(olds == news)
    }
    // Every channel's registration was recorded before any of its changes.
    let kinds = sink.events.map(\.kind)
    #expect(kinds.prefix(4) == [.registered, .registered, .registered, .registered])
}
