import Foundation
import Observation
import ObservationJournal
import ObserverCore
import Testing
import TestSupport

// Swift Observation as apps write it, recorded by changing one line per tracking site
// (`withObservationTracking` → `registry.withObservationTracking(owner: self)`), each bug
// beside the same code done right.

@Observable
final class Scoreboard: @unchecked Sendable {
    var home = 0
    var away = 0
}

/// A view that renders the score and follows it with Swift Observation. `rearms`: its
/// onChange arms the tracking again (the correct code); otherwise only the first change
/// reaches it (the bug).
final class ScoreView: @unchecked Sendable {
    let registry: ObserverRegistry
    let board: Scoreboard
    let rearms: Bool
    private(set) var renders = 0

    init(registry: ObserverRegistry, board: Scoreboard, rearms: Bool) {
        self.registry = registry
        self.board = board
        self.rearms = rearms
    }

    func observe() {
        registry.withObservationTracking(owner: self) {
            renders += 1
            _ = "\(board.home) : \(board.away)"
        } onChange: { [weak self] in
            guard let self, self.rearms else { return }
            self.observe()
        }
    }
}

@Test func aTrackingThatIsNotArmedAgainHearsOnlyTheFirstChange() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "score, buggy")
    let board = Scoreboard()
    let view = ScoreView(registry: recording.registry, board: board, rearms: false)
    view.observe()
    board.home = 1
    board.away = 1
    board.home = 2
    recording.close()
    #expect(view.renders == 1)
    // Observation's public API tells of the first change only, and nothing of the two
    // after it: the journal has the firing, not what the view missed, so OJ014 cannot be
    // told from a tracking that was meant to fire once, and stays silent.
    #expect(try rows(scratch.path(), "select seq, kind, owner, reason, new_value from event_log order by seq") == [
        "1|registered|ScoreView#1|NULL|NULL",
        "2|changed|NULL|NULL|NULL", "3|delivered|ScoreView#1|NULL|NULL",
        "4|removed|ScoreView#1|tokenCancelled|NULL",
    ])
    #expect(try rows(scratch.path(), "select channel, options, call_site from registration_log") == [
        "ScoreView#1.withObservationTracking@ObservationTrackingTests.swift:34|prior|AdoptionTests/ObservationTrackingTests.swift:34",
    ])
    #expect(try findings(scratch.path()) == [])
}

@Test func aTrackingArmedAgainInOnChangeHearsEveryChange() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "score, fixed")
    let board = Scoreboard()
    let view = ScoreView(registry: recording.registry, board: board, rearms: true)
    view.observe()
    board.home = 1
    board.away = 1
    board.home = 2
    recording.close()
    #expect(view.renders == 4)
    #expect(try rows(scratch.path(), "select kind, reason from event_log where kind != 'changed' order by seq") == [
        "registered|NULL",
        "registered|NULL", "delivered|NULL", "removed|tokenCancelled",
        "registered|NULL", "delivered|NULL", "removed|tokenCancelled",
        "registered|NULL", "delivered|NULL", "removed|tokenCancelled",
    ])
    // Armed again inside onChange, which runs before each write: each apply read the old score.
    #expect(try findings(scratch.path()) == [
        "OJ017 tracking-rearmed-before-write: ScoreView#1's withObservationTracking at ObservationTrackingTests.swift:34 was armed again inside its own onChange, before the write that fired it was made, 3 times (first at seq 3): each time apply read the value being replaced, so what it shows is one change behind.",
    ])
}

@Test func aTrackingWhoseOwnerWentAwayMissesNothing() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "score, closed screen")
    let board = Scoreboard()
    var view: ScoreView? = ScoreView(registry: recording.registry, board: board, rearms: false)
    view?.observe()
    board.home = 1          // fires once: the screen meant it
    view = nil              // the screen closes
    board.home = 2
    board.away = 3
    recording.close()
    #expect(try findings(scratch.path()) == [])
}

// MARK: - apply that reads nothing

/// Renders a title read before the tracking: the tracked closure reads nothing observable.
final class TitleLabel: @unchecked Sendable {
    let registry: ObserverRegistry
    let board: Scoreboard
    private(set) var updates = 0

    init(registry: ObserverRegistry, board: Scoreboard) {
        self.registry = registry
        self.board = board
    }

    func observeCapturingTheValue() {
        let home = board.home           // the bug: read outside apply
        registry.withObservationTracking(owner: self) {
            _ = "Home \(home)"
        } onChange: { [weak self] in
            self?.updates += 1
        }
    }

    func observeReadingInside() {
        registry.withObservationTracking(owner: self) {
            _ = "Home \(board.home)"
        } onChange: { [weak self] in
            self?.updates += 1
        }
    }
}

@Test func aTrackingThatReadsNothingCanNeverFire() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "title, buggy")
    let board = Scoreboard()
    let label = TitleLabel(registry: recording.registry, board: board)
    label.observeCapturingTheValue()
    board.home = 4
    recording.close()
    #expect(label.updates == 0)
    #expect(try rows(scratch.path(), "select seq, kind, reason from event_log order by seq") == [
        "1|registered|NULL", "2|removed|tokenReleased",
    ])
    #expect(try findings(scratch.path()) == [
        "OJ015 tracking-reads-nothing: TitleLabel#1's withObservationTracking at ObservationTrackingTests.swift:121 read no observable property (once, first at seq 1): its onChange can never run.",
    ])
}

@Test func aTrackingThatReadsInsideApplyIsClean() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "title, fixed")
    let board = Scoreboard()
    let label = TitleLabel(registry: recording.registry, board: board)
    label.observeReadingInside()
    board.home = 4
    recording.close()
    #expect(label.updates == 1)
    #expect(try findings(scratch.path()) == [])
}

// MARK: - armed again on another thread than the writer's

/// A main-actor screen re-arming its tracking on the main actor after each change.
@MainActor
final class LiveScoreScreen {
    let registry: ObserverRegistry
    let board: Scoreboard
    private(set) var renders = 0

    init(registry: ObserverRegistry, board: Scoreboard) {
        self.registry = registry
        self.board = board
    }

    func observe() {
        registry.withObservationTracking(owner: self) {
            renders += 1
            _ = board.home
        } onChange: {
            Task { @MainActor [weak self] in self?.observe() }
        }
    }
}

/// Writes `value` from a background thread (a network callback in the app).
private func scoreFromTheNetwork(_ board: Scoreboard, _ value: Int) async {
    await Task.detached { board.home = value }.value
}

@MainActor
@Test func aTrackingArmedAgainOnMainAfterABackgroundWriteIsReported() async throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "live score, buggy")
    let board = Scoreboard()
    let screen = LiveScoreScreen(registry: recording.registry, board: board)
    screen.observe()
    await scoreFromTheNetwork(board, 1)
    try #require(await yieldUntil("2 renders") { screen.renders >= 2 })
    recording.close()
    let found = try findings(scratch.path())
    let offWriter = found.filter { $0.hasPrefix("OJ016") }
    #expect(offWriter.count == 1)
    // The writer's thread number depends on which threads recorded first.
    #expect(offWriter.first?.hasPrefix("OJ016 tracking-rearmed-off-writer: LiveScoreScreen#1's withObservationTracking at ObservationTrackingTests.swift:181 was fired by a write on thread ") == true, "\(found)")
    // onChange's task may arm again on main before the writer's thread has recorded the
    // firing (seq 3) or after it has (seq 5): the finding names the arming the journal has.
    let armings = try rows(scratch.path(), "select seq from event_log where kind = 'registered' order by seq")
    #expect(armings.count == 2)
    #expect(offWriter.first?.contains(" and armed again on main once (first at seq \(armings.last ?? "?")): its apply reads the state while thread ") == true, "\(found)")
}

@MainActor
@Test func aTrackingWrittenAndArmedAgainOnMainIsClean() async throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "live score, fixed")
    let board = Scoreboard()
    let screen = LiveScoreScreen(registry: recording.registry, board: board)
    screen.observe()
    board.home = 1                   // written on the main actor
    try #require(await yieldUntil("2 renders") { screen.renders >= 2 })
    board.home = 2
    try #require(await yieldUntil("3 renders") { screen.renders >= 3 })
    recording.close()
    #expect(try findings(scratch.path()) == [])
}

// MARK: - unrecorded, it is Observation's own

@Test func withoutASinkTheTrackingIsObservationsOwn() {
    let board = Scoreboard()
    let registry = ObserverRegistry()
    let fired = FiringCount()
    let score = registry.withObservationTracking { board.home } onChange: { fired.add() }
    board.home = 1
    board.home = 2
    #expect(score == 0)
    #expect(fired.count == 1)
}

/// Counts firings from any thread.
private final class FiringCount: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
}

// MARK: - Observations, recorded like changes()

/// What a loop has seen, from any thread.
private final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int] = []
    func add(_ value: Int) { lock.withLock { values.append(value) } }
    var all: [Int] { lock.withLock { values } }
}

// On the main actor, as apps iterate: each value is computed there after the write's stretch
// of code, so the values are exactly the writes'.
@MainActor
@Test func anObservationsLoopIsRecordedAtItsLineAndEndsAsStreamEnded() async throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "observations")
    let board = Scoreboard()
    let seen = Seen()
    let registry = recording.registry
    let loop = Task {
        for await home in registry.observations({ board.home }) {    // was: Observations { board.home }
            seen.add(home)
            if home == 2 { break }
        }
    }
    try #require(await yieldUntil("a value") { !seen.all.isEmpty })
    board.home = 1
    try #require(await yieldUntil("2 values") { seen.all.count >= 2 })
    board.home = 2
    await loop.value
    board.home = 3                                                  // after the loop: nobody
    recording.close()
    #expect(seen.all == [0, 1, 2])
    // The first value is the registration's initial delivery; each later one a change and
    // its delivery.
    let log = try rows(scratch.path(), "select seq, kind, owner, new_value, reason from event_log order by seq")
    #expect(log == [
        "1|registered|ChangeStream#1|NULL|NULL", "2|delivered|ChangeStream#1|0|NULL",
        "3|changed|NULL|1|NULL", "4|delivered|ChangeStream#1|NULL|NULL",
        "5|changed|NULL|2|NULL", "6|delivered|ChangeStream#1|NULL|NULL",
        "7|removed|ChangeStream#1|NULL|streamEnded",
    ])
    #expect(try rows(scratch.path(), "select channel, options, call_site from registration_log") == [
        "*.Observations@ObservationTrackingTests.swift:273|initial,new|AdoptionTests/ObservationTrackingTests.swift:273",
    ])
    #expect(try findings(scratch.path()) == [])
}

// MARK: - main-actor models, scopes

/// The usual Swift 6 model: main-actor isolated, read from main-actor code.
@MainActor @Observable
final class TrackedCart {
    var items: [String] = []
    var total: Int { items.count * 3 }
}

@MainActor
@Test func aMainActorModelIsFollowedFromMainActorCode() async throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "cart")
    let cart = TrackedCart()
    let registry = recording.registry
    var totals: [Int] = []
    Task { cart.items = ["mug", "tea"] }            // one stretch of main-actor code: one value
    for await total in registry.observations({ cart.total }) {
        totals.append(total)
        if total == 6 { break }
    }
    recording.close()
    #expect(totals == [0, 6])
    #expect(try rows(scratch.path(), "select seq, kind, new_value, reason from event_log order by seq") == [
        "1|registered|NULL|NULL", "2|delivered|0|NULL", "3|changed|6|NULL", "4|delivered|NULL|NULL",
        "5|removed|NULL|streamEnded",
    ])
}

@MainActor
@Test func eachLoopOverOneSequenceIsARegistrationOfItsOwn() async throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "two loops")
    let cart = TrackedCart()
    let totals = recording.registry.observations { cart.total }
    var first = totals.makeAsyncIterator()
    var second = totals.makeAsyncIterator()
    #expect(await first.next() == 0)
    #expect(await second.next() == 0)
    cart.items = ["mug"]
    #expect(await first.next() == 3)
    #expect(await second.next() == 3)
    recording.close()
    #expect(try rows(scratch.path(), "select owner, registered_seq, removed_seq from registration_log order by id") == [
        "ChangeStream#1|1|NULL", "ChangeStream#2|3|NULL",
    ])
}

/// A screen whose tracking and loop are declared for the time it is visible.
@MainActor
final class BasketScreen {
    let registry: ObserverRegistry
    let cart: TrackedCart
    let visible: ObservationScope
    var badge = ""

    init(registry: ObserverRegistry, cart: TrackedCart) {
        self.registry = registry
        self.cart = cart
        visible = registry.beginScope("BasketScreen visible")
    }

    func track() {
        registry.withObservationTracking(owner: self, scope: visible) {
            badge = "\(cart.items.count)"
        } onChange: {}
    }
}

@MainActor
@Test func aTrackingStillArmedWhenItsScreenIsGoneIsALeak() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "scoped tracking")
    let screen = BasketScreen(registry: recording.registry, cart: TrackedCart())
    screen.track()
    screen.visible.end()
    recording.close()
    let found = try findings(scratch.path())
    #expect(found.count == 1)
    #expect(found.first?.hasPrefix("OJ004 leaked-registration: BasketScreen#1's tracking on BasketScreen#1.withObservationTracking@ObservationTrackingTests.swift:") == true, "\(found)")
    #expect(found.first?.contains("BasketScreen visible") == true, "\(found)")
}

@MainActor
@Test func aLoopStillWaitingWhenItsScreenIsGoneIsALeak() async throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "scoped loop")
    let cart = TrackedCart()
    let visible = recording.registry.beginScope("BasketScreen visible")
    var loop = recording.registry.observations(scope: visible) { cart.total }.makeAsyncIterator()
    #expect(await loop.next() == 0)
    visible.end()
    recording.close()
    let found = try findings(scratch.path())
    #expect(found.count == 1)
    #expect(found.first?.hasPrefix("OJ004 leaked-registration: The for await loop (ChangeStream#1) on *.Observations@ObservationTrackingTests.swift:") == true, "\(found)")
    #expect(found.first?.contains("BasketScreen visible") == true, "\(found)")
}
