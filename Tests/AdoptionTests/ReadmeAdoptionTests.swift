import Foundation
import Observation
import ObservationJournal
import ObserverCore
import Testing
import TestSupport

// The README's adoption snippets, verbatim (ObsReplayCLITests' ReadmeTests checks that),
// compiled in Swift 6 language mode with strict concurrency and run below.

// Sendable, so a player can be handed to tasks and actors: every stored property is a `let`
// or an `@Observed` (thread-safe, assigned once in init). Add no plain `var`.
final class Player: ObservationSubject, @unchecked Sendable {
    let registry: ObserverRegistry
    @Observed var isPlaying = false       // the channel Player#1.isPlaying: the key is the name
    @Observed var title = ""
    init(registry: ObserverRegistry) { self.registry = registry }
}

@MainActor
final class PlayerViewModel {
    private(set) var buttonTitle = "Play"
    private var tokens: [ObservationToken] = []

    init(player: Player) {
        // A main-actor callback: it updates the view model's own state, delivered on
        // the main queue (and recorded as expecting the main thread).
        tokens.append(player.$isPlaying.observeOnMain(owner: self, options: [.initial, .new]) { model, change in
            model.buttonTitle = change.new == true ? "Pause" : "Play"
        })
    }
}

/// Returns once the player plays; leaving the loop ends its registration (`streamEnded`).
@MainActor
func waitUntilPlaying(_ player: Player) async {
    for await change in player.$isPlaying.changes(options: [.initial, .new]) where change.new == true {
        return
    }
}

/// Records a run of code written against NotificationCenter's API, changed by one line.
func recordDownloads(into path: String) throws {
    let recording = try Journal.open(path: path).startSession(label: "downloads")
    // let center = NotificationCenter.default                                  // before
    let center = RecordingNotificationCenter(registry: recording.registry)      // after
    let token = center.addObserver(forName: .init("DownloadFinished"), object: nil, queue: nil) { note in
        print("finished", note.userInfo?["file"] ?? "?")
    }
    center.post(name: .init("DownloadFinished"), object: nil, userInfo: ["file": "a.zip"])
    center.removeObserver(token)
    recording.close()
}

// MARK: - Running them

@MainActor
@Test func readmeViewModelFollowsThePlayerOnTheMainActor() async throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "view model")
    let player = Player(registry: recording.registry)
    let model = PlayerViewModel(player: player)
    await mainQueueDrained()
    #expect(model.buttonTitle == "Play")
    player.isPlaying = true
    await mainQueueDrained()
    #expect(model.buttonTitle == "Pause")
    recording.close()
    #expect(try rows(scratch.path(), "select channel, owner, queue, expects_main from registration_log") == [
        "Player#1.isPlaying|PlayerViewModel#2|com.apple.main-thread|1",
    ])
    // Under `swift test` a dispatch worker drains the main queue, so `is_main` is not
    // asserted here; the callback's `MainActor.assumeIsolated` checked the queue.
    #expect(try rows(scratch.path(), "select seq, kind, new_value from event_log order by seq") == [
        "1|registered|NULL", "2|delivered|false", "3|changed|true", "4|delivered|NULL",
    ])
}

@MainActor
@Test func readmeLoopEndsWhenThePlayerPlays() async throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "loop")
    let player = Player(registry: recording.registry)
    let waiting = Task { await waitUntilPlaying(player) }
    // Set only once the loop is registered, so the test does not depend on scheduling.
    try #require(await yieldUntil("a registration") { recording.registry.statistics.registrations > 0 })
    player.isPlaying = true
    await waiting.value
    recording.close()
    #expect(try rows(scratch.path(), "select kind, channel, owner, reason from event_log where kind in ('registered', 'removed')") == [
        "registered|Player#1.isPlaying|ChangeStream#2|NULL",
        "removed|Player#1.isPlaying|ChangeStream#2|streamEnded",
    ])
    #expect(try findings(scratch.path()) == [])
}

@Test func readmeNotificationCenterSwapIsRecorded() throws {
    let scratch = try ScratchDirectory()
    try recordDownloads(into: scratch.path())
    #expect(try rows(scratch.path(), "select seq, kind, channel, owner, new_value, reason from event_log order by seq") == [
        "1|registered|*.DownloadFinished|NotificationToken#1|NULL|NULL",
        "2|changed|*.DownloadFinished|NULL|userInfo: file|NULL",
        "3|delivered|*.DownloadFinished|NotificationToken#1|NULL|NULL",
        "4|removed|*.DownloadFinished|NotificationToken#1|NULL|explicit",
    ])
    #expect(try findings(scratch.path()) == [])
}

// Issue 26 point 4: the README's `Player` crosses isolation in Swift 6 mode. Each use below
// is a compile-time check (a non-Sendable `Player` is rejected at every one of them); the
// run checks that what crossed is the same object, recorded as one subject.

/// An actor that owns playback: it receives the player from outside its isolation.
actor PlaybackEngine {
    private let player: Player
    init(player: Player) { self.player = player }

    /// Starts playback from the actor's executor.
    func play(_ title: String) {
        player.$title.set(title)
        player.isPlaying = true
    }
}

@Test func theReadmePlayerCrossesIntoTasksAndActors() async throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "sendable player")
    let player = Player(registry: recording.registry)
    let engine = PlaybackEngine(player: player)                 // into an actor
    await engine.play("Intro")
    let paused = await Task.detached { () -> Bool in            // into a detached task
        player.isPlaying = false
        return player.isPlaying
    }.value
    recording.close()
    #expect(paused == false)
    #expect(player.title == "Intro")
    #expect(try rows(scratch.path(), "select channel, new_value from event_log where kind = 'changed' order by seq") == [
        "Player#1.title|Intro", "Player#1.isPlaying|true", "Player#1.isPlaying|false",
    ])
}

// The README's Swift Observation example, verbatim.

@Observable
final class Basket: @unchecked Sendable {
    var count = 0
}

@MainActor
final class BasketBadge {
    let registry: ObserverRegistry
    let basket: Basket
    private(set) var text = ""
    init(registry: ObserverRegistry, basket: Basket) {
        self.registry = registry
        self.basket = basket
    }

    func observe() {
        registry.withObservationTracking(owner: self) {     // was: withObservationTracking {
            text = "\(basket.count)"
        } onChange: {
            // onChange runs once, before the change: arm again, after it, on the main actor.
            Task { @MainActor [weak self] in self?.observe() }
        }
    }
}

@MainActor
@Test func readmeBasketBadgeFollowsEveryChange() async throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "basket")
    let basket = Basket()
    let badge = BasketBadge(registry: recording.registry, basket: basket)
    badge.observe()
    basket.count = 1
    try #require(await yieldUntil("the badge to say 1") { badge.text == "1" })
    basket.count = 2
    try #require(await yieldUntil("the badge to say 2") { badge.text == "2" })
    recording.close()
    #expect(try rows(scratch.path(), "select kind, reason from event_log where kind != 'changed' order by seq") == [
        "registered|NULL",
        "delivered|NULL", "removed|tokenCancelled", "registered|NULL",
        "delivered|NULL", "removed|tokenCancelled", "registered|NULL",
    ])
    // The last arming is live at the end, as every re-arming tracking's is: nothing to report.
    #expect(try findings(scratch.path()) == [])
}
