import ObserverCore
import Testing

// A (subject, key) channel carries one payload type. A second value of another type on
// the same subject and key once made every `set` of one of them vanish — no event, no
// callback — so it is refused where it is made, with a message naming both types and the
// key. Each refusal runs in a child process (an exit test): it traps.

@Test func aSecondValueOfAnotherTypeOnTheSameSubjectAndKeyIsRefusedAtCreation() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        let registry = ObserverRegistry()
        let player = Player()
        let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
        let label = ObservableValue("loud", subject: player, key: "volume", registry: registry)
        withExtendedLifetime((volume, label)) {}
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains(
        "A value or callback is made with payload type ValueChange<String> on Player#1.volume (key \"volume\"), "
            + "which already carries payload type ValueChange<Int>"
    ))
}

@Test func aCallbackPropertyOnAValuesKeyIsRefusedAtCreation() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        let registry = ObserverRegistry()
        let player = Player()
        let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
        let slot = CallbackProperty<Int>(subject: player, key: "volume", registry: registry)
        withExtendedLifetime((volume, slot)) {}
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("payload type Int on Player#1.volume (key \"volume\"), which already carries payload type ValueChange<Int>"))
}

// The same refusal for notifications: a name a `RecordingNotificationCenter` already
// records (payload `Notification`), then observed through the registry's own
// notifications (payload `PostedNotification`). (In the other order the center records
// on a channel of its own: see AdoptionTests.)
@Test func observingANameTheRecordingCenterOwnsIsRefusedWithTheSameMessage() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        let registry = ObserverRegistry()
        let center = RecordingNotificationCenter(registry: registry)
        let screen = Screen("s")
        let forwarded = center.addObserver(forName: .init("Tick"), object: nil, queue: nil) { _ in }
        let own = registry.observe(notification: "Tick", owner: screen) { _, _ in }
        withExtendedLifetime((forwarded, own)) {}
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("payload type PostedNotification on *.Tick (key \"Tick\"), which already carries payload type Notification"))
}

// Values of one type on one key share the channel, and values of two types on two keys
// (or on two subjects) each get their own: both reach their observers.
@Test func valuesOfTheSameTypeShareAChannelAndOtherKeysStaySeparate() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player(), other = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let sameVolume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let label = ObservableValue("", subject: player, key: "label", registry: registry)
    let otherVolume = ObservableValue("", subject: other, key: "volume", registry: registry)
    let screen = Screen("s")
    let received = Received()
    screen.tokens.append(volume.observe(owner: screen) { _, change in received.append("volume \(change.new!)") })
    screen.tokens.append(label.observe(owner: screen) { _, change in received.append("label \(change.new!)") })
    screen.tokens.append(otherVolume.observe(owner: screen) { _, change in received.append("other \(change.new!)") })
    sameVolume.value = 3
    label.value = "loud"
    otherVolume.value = "quiet"
    #expect(received.all == ["volume 3", "label loud", "other quiet"])
    #expect(volume.channelInfo == sameVolume.channelInfo)
    #expect(sink.events(.changed).map { $0.channel?.description } == ["Player#1.volume", "Player#1.label", "Player#2.volume"])
}
