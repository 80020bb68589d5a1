import Foundation
import Observation
import ObservationJournal
import ObserverCore
import Testing
import TestSupport

// Swift Observation shapes from apps written by others: a tracking re-armed inside its own
// onChange (one reading behind), trackings from one line told apart by what they read,
// loops started on every appearance, loops that read nothing or are left while held.

@Observable
final class Thermometer: @unchecked Sendable {
    var celsius = 18
    var humidity = 40
}

/// A weather label tracking the thermometer. `rearmsInline`: the bug, onChange calls
/// `observe()` directly; otherwise it enqueues the call on the main actor.
@MainActor
final class TemperatureLabel {
    let registry: ObserverRegistry
    let thermometer: Thermometer
    let rearmsInline: Bool
    private(set) var text = ""
    private(set) var renders = 0

    init(registry: ObserverRegistry, thermometer: Thermometer, rearmsInline: Bool) {
        self.registry = registry
        self.thermometer = thermometer
        self.rearmsInline = rearmsInline
    }

    func observe() {
        registry.withObservationTracking(owner: self) {
            renders += 1
            text = "\(thermometer.celsius)°"
        } onChange: { [rearmsInline] in
            if rearmsInline {
                MainActor.assumeIsolated { self.observe() }
            } else {
                Task { @MainActor [weak self] in self?.observe() }
            }
        }
    }
}

@MainActor
@Test func aTrackingArmedAgainInsideOnChangeShowsTheReadingBefore() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "weather, buggy")
    let thermometer = Thermometer()
    let label = TemperatureLabel(registry: recording.registry, thermometer: thermometer, rearmsInline: true)
    label.observe()
    thermometer.celsius = 19
    thermometer.celsius = 21
    recording.close()
    #expect(label.text == "19°")          // one reading behind: the thermometer says 21
    #expect(try findings(scratch.path()) == [
        "OJ017 tracking-rearmed-before-write: TemperatureLabel#1's withObservationTracking at TrackingShapesTests.swift:35 was armed again inside its own onChange, before the write that fired it was made, 2 times (first at seq 3): each time apply read the value being replaced, so what it shows is one change behind.",
    ], "\(seen(scratch.path()))")
    #expect(try fixes(scratch.path()).first?.hasPrefix("Arm the tracking again after the write") == true)
}

@MainActor
@Test func aTrackingArmedAgainAfterTheWriteShowsTheCurrentReading() async throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "weather, fixed")
    let thermometer = Thermometer()
    let label = TemperatureLabel(registry: recording.registry, thermometer: thermometer, rearmsInline: false)
    label.observe()
    thermometer.celsius = 19
    try #require(await yieldUntil("2 renders") { label.renders >= 2 })
    thermometer.celsius = 21
    try #require(await yieldUntil("3 renders") { label.renders >= 3 })
    recording.close()
    #expect(label.text == "21°")
    // The last arming is live at the end, as every re-arming tracking's is: no OJ004.
    #expect(try findings(scratch.path()) == [], "\(seen(scratch.path()))")
}

// MARK: - Trackings from one line, told apart by what they read

@Observable
final class Track: @unchecked Sendable {
    var title: String
    init(title: String) { self.title = title }
}

/// A playlist row tracking its own track, from one line for every row, with no owner.
final class TrackRow: @unchecked Sendable {
    let registry: ObserverRegistry
    let track: Track
    private(set) var title = ""
    private(set) var updates = 0

    init(registry: ObserverRegistry, track: Track) {
        self.registry = registry
        self.track = track
    }

    func observe() {
        registry.withObservationTracking {
            title = track.title
        } onChange: { [weak self] in
            self?.updates += 1
        }
    }
}

@Test func rowsTrackingTheirOwnItemsFromOneLineAreNoDuplicates() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "rows")
    let rows = ["Intro", "Verse", "Outro"].map { TrackRow(registry: recording.registry, track: Track(title: $0)) }
    for row in rows { row.observe() }
    rows[0].track.title = "Intro (live)"
    rows[2].track.title = "Outro (live)"
    recording.close()
    #expect(rows.map(\.updates) == [1, 0, 1])
    #expect(try findings(scratch.path()) == [], "\(seen(scratch.path()))")
}

@Observable
final class Profile: @unchecked Sendable {
    var name = "Ada"
    var followers = 10
}

/// A profile header with a small helper that tracks one property and renders it.
final class ProfileHeader: @unchecked Sendable {
    let registry: ObserverRegistry
    let profile: Profile
    private(set) var rendered: [String] = []

    init(registry: ObserverRegistry, profile: Profile) {
        self.registry = registry
        self.profile = profile
    }

    func track<Value>(_ read: @escaping () -> Value, render: @escaping (Value) -> Void) {
        registry.withObservationTracking(owner: self) {
            render(read())
        } onChange: {}
    }

    func bind() {
        track({ self.profile.name }) { self.rendered.append($0) }
        track({ self.profile.followers }) { self.rendered.append("\($0) followers") }
    }

}

@Test func aTrackingHelperUsedForTwoPropertiesIsNoDuplicate() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "helper")
    let profile = Profile()
    let header = ProfileHeader(registry: recording.registry, profile: profile)
    header.bind()
    profile.name = "Ada L."
    profile.followers = 11
    recording.close()
    #expect(header.rendered == ["Ada", "10 followers"])
    #expect(try findings(scratch.path()) == [], "\(seen(scratch.path()))")
}

@Test func aRowTrackingArmedTwiceBeforeItFiredIsADuplicateForTheWriteThatReachedBoth() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "row observed twice")
    let row = TrackRow(registry: recording.registry, track: Track(title: "Intro"))
    row.observe()
    row.observe()                       // the bug: observed again on the next appearance
    row.track.title = "Intro (live)"
    recording.close()
    #expect(row.updates == 2)
    #expect(try findings(scratch.path()) == [
        "OJ002 duplicate-registration: TrackingShapesTests.swift:103 started a withObservationTracking on *.withObservationTracking@TrackingShapesTests.swift:103 again (seq 2, ObservationArm#2) while the one it started at seq 1 (ObservationArm#1) was live: 1 write reached both, each updating twice.",
    ], "\(seen(scratch.path()))")
}

// MARK: - Nested trackings (swiftlang/swift's "recursive tracking outer then inner")

@Observable
final class RecursiveInner: @unchecked Sendable {
    var value = "prefix"
}

@Observable
final class RecursiveOuter: @unchecked Sendable {
    var inner = RecursiveInner()
    var value = "prefix"
    @ObservationIgnored var innerEventCount = 0
    @ObservationIgnored var outerEventCount = 0
    @ObservationIgnored var registry: ObserverRegistry?

    func recursiveTrackingCalls() {
        guard let registry else { return }
        registry.withObservationTracking({
            let _ = value
            _ = registry.withObservationTracking({
                inner.value
            }, onChange: {
                self.innerEventCount += 1
            })
        }, onChange: {
            self.outerEventCount += 1
        })
    }
}

@Test(arguments: 0..<8) func nestedTrackingsOuterThenInnerMissNoChange(_ run: Int) throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "recursive \(run)")
    let obj = RecursiveOuter()
    obj.registry = recording.registry
    obj.recursiveTrackingCalls()
    obj.value = "test"
    obj.recursiveTrackingCalls()
    obj.inner.value = "test"
    recording.close()
    #expect(obj.innerEventCount == 2)
    #expect(obj.outerEventCount == 2)
    // The inner tracking armed twice before it fired: one write ran its onChange twice.
    let found = try findings(scratch.path())
    #expect(found.filter { $0.hasPrefix("OJ014") } == [], "\(found)")
}

// MARK: - Observations loops started on every appearance

@Observable
final class Till: @unchecked Sendable {
    var total = 0
}

/// A till screen that follows the total with an `observations` loop from `onAppear`.
/// `cancelsOnDisappear`: the correct twin keeps the loop's task and cancels it.
@MainActor
final class TillScreen {
    let registry: ObserverRegistry
    let till: Till
    let cancelsOnDisappear: Bool
    private var loops: [Task<Void, Never>] = []
    private(set) var updates = 0

    init(registry: ObserverRegistry, till: Till, cancelsOnDisappear: Bool) {
        self.registry = registry
        self.till = till
        self.cancelsOnDisappear = cancelsOnDisappear
    }

    func onAppear() {
        let till = till, registry = registry
        loops.append(Task { [weak self] in
            for await _ in registry.observations({ till.total }) {
                self?.updates += 1
            }
        })
    }

    func onDisappear() {
        if cancelsOnDisappear { for loop in loops { loop.cancel() } }
    }

    func close() async {
        for loop in loops { loop.cancel() }
        for loop in loops { await loop.value }
    }
}

@MainActor
private func waitForRegistrations(
    _ registry: ObserverRegistry, _ count: Int, sourceLocation: SourceLocation = #_sourceLocation
) async -> Bool {
    await yieldUntil("\(count) live registrations", sourceLocation: sourceLocation) {
        registry.statistics.registrations == count
    }
}

@MainActor
private func waitForUpdates(_ screen: TillScreen, _ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
    await yieldUntil("\(count) updates", sourceLocation: sourceLocation) { screen.updates == count }
}

/// The loops run on the main actor, whose jobs a dispatch worker runs under `swift test`:
/// the three updates of one write may run on different threads (the rule once took that
/// for loops reading different things, and found nothing).
@MainActor
@Test func anObservationsLoopStartedOnEveryAppearanceIsADuplicate() async throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "till, buggy")
    let till = Till()
    let screen = TillScreen(registry: recording.registry, till: till, cancelsOnDisappear: false)
    for _ in 1...3 {
        screen.onAppear()
        screen.onDisappear()
    }
    try #require(await waitForRegistrations(recording.registry, 3))
    // Each loop gets the first value, then every write once all three took the previous
    // one (writes in a row, before the loops run, would be one value to them).
    try #require(await waitForUpdates(screen, 3))
    for total in 1...3 {
        till.total = total
        try #require(await waitForUpdates(screen, 3 + 3 * total))
    }
    await screen.close()
    recording.close()
    let found = try findings(scratch.path())
    #expect(found.count == 2, "\(found)")
    #expect(found.allSatisfy { $0.hasPrefix("OJ002 duplicate-registration: TrackingShapesTests.swift:253 started a for await loop on *.Observations@TrackingShapesTests.swift:253 again (seq ") && $0.hasSuffix("was live: 3 writes reached both, each updating twice.") }, "\(found)")
}

@MainActor
@Test func anObservationsLoopCancelledOnDisappearIsClean() async throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "till, fixed")
    let till = Till()
    let screen = TillScreen(registry: recording.registry, till: till, cancelsOnDisappear: true)
    for round in 1...3 {
        screen.onAppear()
        try #require(await waitForRegistrations(recording.registry, 1))
        till.total = round
        screen.onDisappear()
        try #require(await waitForRegistrations(recording.registry, 0))
    }
    await screen.close()
    recording.close()
    #expect(try findings(scratch.path()) == [], "\(seen(scratch.path()))")
}

// MARK: - Loops that read nothing, or are left while their sequence is held

@MainActor
@Test func anObservationsLoopThatReadsNothingIsNotCalledATypo() async throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "captured total")
    let till = Till()
    let registry = recording.registry
    let total = till.total                      // the bug: read before the closure
    let loop = Task {
        for await _ in registry.observations({ total }) {}
    }
    try #require(await waitForRegistrations(registry, 1))
    till.total = 5
    loop.cancel()
    await loop.value
    recording.close()
    let found = try findings(scratch.path())
    // The loop took its first value and no change: the journal cannot tell a closure that
    // reads nothing from a loop that ended before taking a write, so nothing is said, and
    // above all no spelling advice on the loop's line.
    #expect(found == [], "\(found)")
}

/// Keeps a sequence it was handed (a view model's published stream).
private final class StreamHolder: @unchecked Sendable {
    var stream: AsyncStream<ValueChange<Int>>?
}

private final class Counter {}

@Test func aChangesLoopLeftWithReturnWhileItsSequenceIsHeldGetsNoBreakAdvice() async throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "held stream")
    let subject = Counter()
    let value = ObservableValue(0, subject: subject, key: "count", registry: recording.registry)
    let holder = StreamHolder()
    holder.stream = value.changes()
    let stream = holder.stream!
    let loop = Task {
        for await change in stream where change.new == 1 { return }
    }
    value.set(1)
    await loop.value
    value.set(2)
    recording.close()
    let found = try findings(scratch.path())
    #expect(found.count == 1 && found[0].hasPrefix("OJ004 leaked-registration: "), "\(found)")
    let fix = try #require(try fixes(scratch.path()).first)
    #expect(!fix.contains("break out of the loop"))
    #expect(fix.contains("Leaving the loop (return or break) ends the registration only when nothing else holds the sequence"))
    withExtendedLifetime(subject) {}
    withExtendedLifetime(holder) {}
}
