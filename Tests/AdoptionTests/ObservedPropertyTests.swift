import Dispatch
import ObservationJournal
import ObserverCore
import Synchronization
import Testing
import TestSupport

// `@Observed`: the key is the property's name, derived once; the first use is safe from
// many threads at once; the whole ObservableValue API is there through `$`.

private final class Jukebox: ObservationSubject, @unchecked Sendable {
    let registry: ObserverRegistry
    @Observed var isPlaying = false
    @Observed var trackTitle = "none"
    @Observed var cover: [UInt8] = []
    init(registry: ObserverRegistry) { self.registry = registry }
}

private final class Listener {}

@Test func theChannelIsNamedAfterTheProperty() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "names")
    let player = Player(registry: recording.registry)
    let listener = Listener()
    let token = player.$isPlaying.observe(owner: listener) { _, _ in }
    player.isPlaying = true
    player.title = "Blue"
    recording.close()
    #expect(try rows(scratch.path(), "select seq, kind, channel, old_value, new_value from event_log order by seq") == [
        "1|registered|Player#1.isPlaying|NULL|NULL",
        "2|changed|Player#1.isPlaying|false|true",
        "3|delivered|Player#1.isPlaying|NULL|NULL",
        "4|changed|Player#1.title||Blue",
    ])
    withExtendedLifetime(token) {}
}

@Test func readingAndAssigningGoThroughTheObservableValue() {
    let sink = InMemoryEventSink()
    let jukebox = Jukebox(registry: ObserverRegistry(sink: sink))
    #expect(jukebox.trackTitle == "none")
    jukebox.trackTitle = "Intro"
    jukebox.$trackTitle.set("Outro")
    #expect(jukebox.trackTitle == "Outro")
    #expect(jukebox.$trackTitle.value == "Outro")
    #expect(jukebox.$trackTitle.channelInfo.description == "Jukebox#1.trackTitle")
    #expect(jukebox.$cover.channelInfo.key == "cover")
    #expect(sink.events.filter { $0.kind == .changed }.map { "\($0.old!) → \($0.new!)" } == ["none → Intro", "Intro → Outro"])
}

@Test func equatableValuesSkipUnchangedSetsForOnlyWhenChanged() {
    let jukebox = Jukebox(registry: ObserverRegistry())
    let listener = Listener()
    let seen = Received()
    let token = jukebox.$isPlaying.observe(owner: listener, options: [.new, .onlyWhenChanged]) { _, change in
        seen.append("\(change.new!)")
    }
    jukebox.isPlaying = true
    jukebox.isPlaying = true
    jukebox.isPlaying = false
    #expect(seen.all == ["true", "false"])
    withExtendedLifetime(token) {}
}

// Many threads touch every property for the first time at once: each property gets one
// ObservableValue (one channel), and no change is lost.
@Test func theFirstUseFromManyThreadsAtOnceMakesOneValue() {
    for _ in 0..<20 {
        let registry = ObserverRegistry()
        let jukebox = Jukebox(registry: registry)
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            switch index % 3 {
            case 0: _ = jukebox.isPlaying
            case 1: jukebox.trackTitle = "t\(index)"
            default: _ = jukebox.$cover
            }
            _ = jukebox.$isPlaying
        }
        #expect(registry.statistics.channels == 3)
        #expect(jukebox.$trackTitle.value.hasPrefix("t"))
    }
}

// The existing way keeps working beside it.
private final class Legacy {
    let registry = ObserverRegistry()
    lazy var volume = ObservableValue(0.5, subject: self, key: "volume", registry: registry)
}

@Test func theExplicitObservableValueStillWorks() {
    let legacy = Legacy()
    legacy.volume.value = 0.8
    #expect(legacy.volume.value == 0.8)
    #expect(legacy.volume.channelInfo.description == "Legacy#1.volume")
}

/// Collects what callbacks saw.
private final class Received: Sendable {
    private let items = Mutex<[String]>([])
    func append(_ item: String) { items.withLock { $0.append(item) } }
    var all: [String] { items.withLock { $0 } }
}
