import ObserverCore
import Testing

// With no sink the registry skips all event work; deliveries must be exactly the same.

/// Runs every delivery rule once and returns what the callbacks saw, in order.
private func runScenario(_ registry: ObserverRegistry) -> [String] {
    let received = Received()
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let echo = ObservableValue(0, subject: player, key: "echo", registry: registry)
    let slot = CallbackProperty<Int>(subject: player, key: "slot", registry: registry)
    let screens = (0..<4).map { Screen("s\($0)") }
    let first = screens[0], selfRemover = screens[1], filtered = screens[2], late = screens[3]

    first.tokens.append(volume.observe(owner: first, options: [.initial, .prior, .old, .new]) { [echo] owner, change in
        received.append("\(owner.name):\(String(describing: change))")
        if !change.isPrior && !change.isInitial { echo.value = change.new! * 10 }
    })
    selfRemover.tokens.append(volume.observe(owner: selfRemover, options: [.new, .onlyWhenChanged]) { owner, change in
        received.append("\(owner.name):\(change.new!)")
        if change.new == 2 { owner.tokens.removeAll() }
    })
    echo.observe(owner: late) { owner, change in received.append("\(owner.name):echo \(change.new!)") }
        .cancel()
    late.tokens.append(echo.observe(owner: late) { owner, change in received.append("\(owner.name):echo \(change.new!)") })
    filtered.tokens.append(registry.observe(notification: "n", sender: player, owner: filtered) { owner, note in
        received.append("\(owner.name):note \(note.payload as! Int)")
    })
    do {
        let gone = Screen("gone")
        gone.partner = late
        slot.assign(owner: gone) { owner, value in received.append("\(owner.name):slot \(value)") }
        volume.observe(owner: gone) { owner, _ in received.append("\(owner.name): must not run") }.cancel()
        late.tokens.append(volume.observe(owner: gone) { owner, _ in received.append("\(owner.name): must not run") })
    }
    slot.call(0)
    slot.assign(owner: late) { owner, value in received.append("\(owner.name):slot \(value)") }
    volume.value = 1
    volume.value = 1
    volume.value = 2
    volume.value = 3
    registry.post(notification: "n", sender: player, payload: 1)
    registry.post(notification: "n", sender: late, payload: 2)
    slot.call(4)
    registry.sweep()
    return received.all
}

@Test func deliveriesAreTheSameWithAndWithoutASink() {
    let sink = InMemoryEventSink()
    let withSink = runScenario(ObserverRegistry(sink: sink))
    let withoutSink = runScenario(ObserverRegistry())
    #expect(withSink == withoutSink)
    #expect(withoutSink == [
        "s0:ValueChange<Int>(old: nil, new: Optional(0), isPrior: false, isInitial: true)",
        "s0:ValueChange<Int>(old: Optional(0), new: Optional(1), isPrior: true, isInitial: false)",
        "s0:ValueChange<Int>(old: Optional(0), new: Optional(1), isPrior: false, isInitial: false)",
        "s3:echo 10",
        "s1:1",
        "s0:ValueChange<Int>(old: Optional(1), new: Optional(1), isPrior: true, isInitial: false)",
        "s0:ValueChange<Int>(old: Optional(1), new: Optional(1), isPrior: false, isInitial: false)",
        "s3:echo 10",
        "s0:ValueChange<Int>(old: Optional(1), new: Optional(2), isPrior: true, isInitial: false)",
        "s0:ValueChange<Int>(old: Optional(1), new: Optional(2), isPrior: false, isInitial: false)",
        "s3:echo 20",
        "s1:2",
        "s0:ValueChange<Int>(old: Optional(2), new: Optional(3), isPrior: true, isInitial: false)",
        "s0:ValueChange<Int>(old: Optional(2), new: Optional(3), isPrior: false, isInitial: false)",
        "s3:echo 30",
        "s2:note 1",
        "s3:slot 4",
    ])
    // Two cancels, two dead owners found (slot call, volume change), the self-removal,
    // then the three screens' remaining tokens released in their deinit when the scenario
    // returns: recorded as the owners' deallocation (the weak owner reads nil there).
    #expect(sink.events(.removed).map(\.removalReason) == [
        .tokenCancelled, .tokenCancelled, .ownerDeallocated, .ownerDeallocated,
        .tokenReleased, .ownerDeallocated, .ownerDeallocated, .ownerDeallocated,
    ])
}
