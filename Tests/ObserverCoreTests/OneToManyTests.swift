import ObserverCore
import Synchronization
import Testing

final class Player {}
final class Screen {
    let name: String
    var tokens: [ObservationToken] = []
    init(_ name: String) { self.name = name }
}

final class Received: Sendable {
    private let names = Mutex<[String]>([])
    func append(_ name: String) { names.withLock { $0.append(name) } }
    var all: [String] { names.withLock { $0 } }
}

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
    #expect(received.all == ["floating:false->true", "nowPlaying:false->true", "list:false->true"])
    #expect(sink.kinds == [.registered, .registered, .registered, .changed, .delivered, .delivered, .delivered])
    #expect(sink.events[3].liveCount == 3)
    #expect(sink.events[3].channel?.description == "Player#1.isPlaying")
}

@Test func singleSlotReplacesEachAssignmentSoOnlyTheLastFires() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let isPlayingChanged = CallbackProperty<Bool>(subject: player, key: "isPlayingChanged", registry: registry)
    let screens = [Screen("floating"), Screen("nowPlaying"), Screen("list")]
    let received = Received()
    for screen in screens {
        isPlayingChanged.assign(owner: screen) { owner, playing in received.append("\(owner.name):\(playing)") }
    }
    isPlayingChanged.call(true)
    #expect(received.all == ["list:true"])
    #expect(sink.kinds == [.registered, .replaced, .replaced, .changed, .delivered])
    let replacements = sink.events.filter { $0.kind == .replaced }
    #expect(replacements.map { $0.replaced!.owner.description } == ["Screen#2", "Screen#3"])
    #expect(replacements.map { $0.registration!.owner.description } == ["Screen#3", "Screen#4"])
}
