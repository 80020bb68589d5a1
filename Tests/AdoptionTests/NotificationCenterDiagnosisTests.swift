import Foundation
import ObservationJournal
import ObserverCore
import Testing
import TestSupport

// NotificationCenter code as apps write it, swapped to the recording center by one line,
// and what diagnosis says about it: each bug beside the same code done right. Every test
// but the first forwards to a private center, so tests running at once never hear each
// other's posts.

/// A private recording center for a test's own session.
private func privateCenter(_ recording: RecordingSession) -> RecordingNotificationCenter {
    RecordingNotificationCenter(registry: recording.registry, forwardingTo: NotificationCenter())
}

/// Counts what its blocks receive, from any thread.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
}

// MARK: - The one-line swap reaches NotificationCenter.default

@Test func theOneLineSwapStillHearsAndReachesNotificationCenterDefault() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "default center")
    let center = RecordingNotificationCenter(registry: recording.registry)   // was NotificationCenter.default
    let name = Notification.Name("ThemeChanged-\(UUID().uuidString)")
    let heard = Counter()
    let token = center.addObserver(forName: name, object: nil, queue: nil) { _ in heard.add() }
    // Code elsewhere in the app, not switched: it posts to and observes the default center.
    let untouched = Counter()
    let plain = NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { _ in untouched.add() }
    NotificationCenter.default.post(name: name, object: nil)
    center.post(name: name, object: nil)
    NotificationCenter.default.removeObserver(plain)
    center.removeObserver(token)
    recording.close()
    #expect(center.forwardingCenter === NotificationCenter.default)
    #expect(heard.count == 2)
    #expect(untouched.count == 2)
    // Only the post made through the recording center is a recorded change; both deliveries are.
    #expect(try rows(scratch.path(), "select kind from event_log order by seq") == [
        "registered", "delivered", "changed", "delivered", "removed",
    ])
    #expect(try findings(scratch.path()) == [])
}

// MARK: - Added on every appearance, token discarded, no owner

private let inboxChanged = Notification.Name("InboxChanged")

/// Adds its observer on every appearance and throws the token away (the most common
/// NotificationCenter bug).
private final class InboxScreen: @unchecked Sendable {
    let center: RecordingNotificationCenter
    var reloads = 0
    init(center: RecordingNotificationCenter) { self.center = center }

    func viewWillAppear() {
        _ = center.addObserver(forName: inboxChanged, object: nil, queue: nil) { [weak self] _ in
            self?.reloads += 1
        }
    }
}

/// The same screen done right: the token kept, and removed when the screen disappears.
private final class FixedInboxScreen: @unchecked Sendable {
    let center: RecordingNotificationCenter
    var reloads = 0
    var token: (any NSObjectProtocol)?
    init(center: RecordingNotificationCenter) { self.center = center }

    func viewWillAppear() {
        token = center.addObserver(forName: inboxChanged, object: nil, queue: nil) { [weak self] _ in
            self?.reloads += 1
        }
    }

    func viewWillDisappear() {
        if let token { center.removeObserver(token) }
        token = nil
    }
}

/// A row that observes once, naming itself as the owner: several rows observe from one line.
private final class InboxRow: @unchecked Sendable {
    var token: (any NSObjectProtocol)?
    init(center: RecordingNotificationCenter) {
        token = center.addObserver(forName: inboxChanged, object: nil, queue: nil, owner: self) { _ in }
    }
}

@Test func anObserverAddedOnEveryAppearanceWithoutOwnerIsADuplicate() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "inbox")
    let center = privateCenter(recording)
    let screen = InboxScreen(center: center)
    screen.viewWillAppear()
    center.post(name: inboxChanged, object: nil)
    screen.viewWillAppear()
    center.post(name: inboxChanged, object: nil)
    center.post(name: inboxChanged, object: nil)
    recording.close()
    #expect(screen.reloads == 5)
    let found = try findings(scratch.path())
    #expect(found.first == "OJ002 duplicate-registration: NotificationCenterDiagnosisTests.swift:64 added an observer of *.InboxChanged again (seq 4, NotificationToken#2) while the one it added at seq 1 (NotificationToken#1) was live, with no owner to tell them apart; the block ran twice for 2 changes.")
    #expect(try fixes(scratch.path()).first?.hasPrefix("Add the observer once") == true)
}

@Test func anObserverRemovedBeforeItIsAddedAgainAndRowsNamingTheirOwnerAreNoDuplicates() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "inbox, fixed")
    let center = privateCenter(recording)
    let screen = FixedInboxScreen(center: center)
    screen.viewWillAppear()
    center.post(name: inboxChanged, object: nil)
    screen.viewWillDisappear()
    screen.viewWillAppear()
    center.post(name: inboxChanged, object: nil)
    screen.viewWillDisappear()
    var rows = (0..<3).map { _ in InboxRow(center: center) }
    center.post(name: inboxChanged, object: nil)
    for row in rows { center.removeObserver(row.token!) }
    rows = []
    recording.close()
    #expect(screen.reloads == 2)
    #expect(try findings(scratch.path()) == [])
}

// MARK: - removeObserver on the wrong center

private let uploadDone = Notification.Name("UploadDone")

@Test func removingATokenFromAnotherCenterIsRecordedAsRemovingNothing() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "two centers")
    let uploads = privateCenter(recording)      // the center the observer was added to
    let app = privateCenter(recording)          // another center the app also has
    let heard = Counter()
    let token = uploads.addObserver(forName: uploadDone, object: nil, queue: nil) { _ in heard.add() }
    app.removeObserver(token)                   // the bug: the wrong center
    uploads.post(name: uploadDone, object: nil)
    uploads.post(name: uploadDone, object: nil)
    recording.close()
    // Foundation kept the block: it ran for both posts, and the journal says so.
    #expect(heard.count == 2)
    #expect(try rows(scratch.path(), "select seq, kind, owner, reason from event_log order by seq") == [
        "1|registered|NotificationToken#1|NULL",
        "2|removeUnregistered|NotificationToken#1|NULL",
        "3|changed|NULL|NULL", "4|delivered|NotificationToken#1|NULL",
        "5|changed|NULL|NULL", "6|delivered|NotificationToken#1|NULL",
    ])
    #expect(try findings(scratch.path()) == [
        "OJ003 remove-unregistered: Removal at NotificationCenterDiagnosisTests.swift:145 in removingATokenFromAnotherCenterIsRecordedAsRemovingNothing() (seq 2) matched no live registration: NotificationToken#1's registration on *.UploadDone (NotificationCenterDiagnosisTests.swift:144) was live and stayed live (removed from another center than the one that added it?): its block ran 2 times more, to the end of the session.",
        "OJ004 leaked-registration: NotificationToken#1's registration on *.UploadDone (NotificationCenterDiagnosisTests.swift:144) was still registered when the session ended.",
    ])
    #expect(try fixes(scratch.path()).first?.hasPrefix("Call removeObserver(token) on the center whose addObserver returned the token") == true)
}

@Test func removingATokenFromItsOwnCenterOrOneSharingItsRealCenterRemovesIt() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "right center")
    let real = NotificationCenter()
    let uploads = RecordingNotificationCenter(registry: recording.registry, forwardingTo: real)
    let sameRealCenter = RecordingNotificationCenter(registry: recording.registry, forwardingTo: real)
    let heard = Counter()
    let first = uploads.addObserver(forName: uploadDone, object: nil, queue: nil) { _ in heard.add() }
    let second = uploads.addObserver(forName: uploadDone, object: nil, queue: nil, owner: heard) { _ in heard.add() }
    uploads.removeObserver(first)
    sameRealCenter.removeObserver(second)       // the same Foundation center: a real removal
    uploads.post(name: uploadDone, object: nil)
    recording.close()
    #expect(heard.count == 0)
    #expect(try rows(scratch.path(), "select kind, reason from event_log where kind in ('removed', 'removeUnregistered') order by seq") == [
        "removed|explicit", "removed|explicit",
    ])
    #expect(try findings(scratch.path()) == [])
}

// MARK: - A block that expects main, posted from a background thread

private let sessionRenewed = Notification.Name("SessionRenewed")

/// A header that updates main-thread state in its block: it says so.
@MainActor
private final class AccountHeader {
    var token: (any NSObjectProtocol)?

    func start(center: RecordingNotificationCenter) {
        token = center.addObserver(forName: sessionRenewed, object: nil, queue: nil, expectsMainThread: true) { _ in }
    }
}

/// Posts from wherever it is called: a background refresh, or the main actor.
private func renewSession(on center: RecordingNotificationCenter) {
    center.post(name: sessionRenewed, object: nil)
}

@MainActor
@Test func aBlockDeclaredForMainAndPostedFromTheBackgroundIsOffMain() async throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "renewal")
    let center = privateCenter(recording)
    let header = AccountHeader()
    header.start(center: center)
    await Task.detached { renewSession(on: center) }.value      // the bug: a background post
    center.removeObserver(header.token!)
    recording.close()
    let found = try findings(scratch.path())
    #expect(found.count == 1)
    #expect(found.first?.hasPrefix("OJ008 off-main-delivery: NotificationToken#1's callback on *.SessionRenewed (NotificationCenterDiagnosisTests.swift:194) expects the main thread but ran once on thread") == true)
}

@MainActor
@Test func aBlockDeclaredForMainAndPostedOnMainIsClean() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "renewal, fixed")
    let center = privateCenter(recording)
    let header = AccountHeader()
    header.start(center: center)
    renewSession(on: center)                                     // on the main actor
    center.removeObserver(header.token!)
    recording.close()
    #expect(try findings(scratch.path()) == [])
}

@Test func queueMainIsRecordedAsExpectingMain() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "queue main")
    let center = privateCenter(recording)
    let onMain = center.addObserver(forName: sessionRenewed, object: nil, queue: .main) { _ in }
    let anywhere = center.addObserver(forName: sessionRenewed, object: nil, queue: nil) { _ in }
    center.removeObserver(onMain)
    center.removeObserver(anywhere)
    recording.close()
    #expect(try rows(scratch.path(), "select owner, expects_main from registration_log order by id") == [
        "NotificationToken#1|1", "NotificationToken#2|0",
    ])
}

// MARK: - scope: a block or a loop that outlives its screen

private let cartChanged = Notification.Name("CartChanged")

@Test func aBlockThatOutlivesItsScreensScopeIsAWarningWithTheRemoveObserverFix() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "cart")
    let center = privateCenter(recording)
    let visible = recording.registry.beginScope("CartScreen visible")
    let token = center.addObserver(forName: cartChanged, object: nil, queue: nil, scope: visible) { _ in }
    visible.end()                                 // the screen went; the block stayed
    center.post(name: cartChanged, object: nil)
    recording.close()
    withExtendedLifetime(token) {}
    #expect(try findings(scratch.path()) == [
        "OJ004 leaked-registration: NotificationToken#1's registration on *.CartChanged (NotificationCenterDiagnosisTests.swift:254) outlived scope \"CartScreen visible\" (ended at seq 3) and was delivered once after it.",
    ])
    #expect(try fixes(scratch.path()) == [
        "Keep the token addObserver returned and pass it to removeObserver(_:) when the scope ends (viewWillDisappear, deinit).",
    ])
}

@Test func aBlockRemovedWhenItsScopeEndsIsClean() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "cart, fixed")
    let center = privateCenter(recording)
    let visible = recording.registry.beginScope("CartScreen visible")
    let token = center.addObserver(forName: cartChanged, object: nil, queue: nil, scope: visible) { _ in }
    center.post(name: cartChanged, object: nil)
    center.removeObserver(token)
    visible.end()
    center.post(name: cartChanged, object: nil)
    recording.close()
    #expect(try findings(scratch.path()) == [])
}

/// A cart total that screens follow with `for await`.
private final class Cart: ObservationSubject, @unchecked Sendable {
    let registry: ObserverRegistry
    @Observed var total = 0
    init(registry: ObserverRegistry) { self.registry = registry }
}

/// Follows the cart's total in a loop declared for `scope`, until its task is cancelled.
private func followTotal(_ cart: Cart, scope: ObservationScope) -> Task<Void, Never> {
    Task {
        for await _ in cart.$total.changes(scope: scope) {}
    }
}

@Test func aChangesLoopThatOutlivesItsScopeIsAWarningWithTheLoopFix() async throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "cart loop")
    let cart = Cart(registry: recording.registry)
    let visible = recording.registry.beginScope("CartScreen visible")
    let loop = followTotal(cart, scope: visible)
    try #require(await yieldUntil("a registration") { recording.registry.statistics.registrations > 0 })
    visible.end()                                 // the bug: the loop's task is not cancelled
    cart.$total.set(3)
    loop.cancel()
    await loop.value
    recording.close()
    #expect(try findings(scratch.path()) == [
        "OJ004 leaked-registration: The for await loop (ChangeStream#2) on Cart#1.total (NotificationCenterDiagnosisTests.swift:291) outlived scope \"CartScreen visible\" (ended at seq 3) and was delivered once after it.",
    ])
    #expect(try fixes(scratch.path()).first?.hasPrefix("End the for await loop when its scope ends") == true)
}

@Test func aChangesLoopCancelledWhenItsScopeEndsIsClean() async throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "cart loop, fixed")
    let cart = Cart(registry: recording.registry)
    let visible = recording.registry.beginScope("CartScreen visible")
    let loop = followTotal(cart, scope: visible)
    try #require(await yieldUntil("a registration") { recording.registry.statistics.registrations > 0 })
    loop.cancel()
    await loop.value
    visible.end()
    cart.$total.set(3)
    recording.close()
    #expect(try findings(scratch.path()) == [])
}

// MARK: - A feedback loop through two owners

/// A volume slider bound both ways to a player model: each side copies the other's value.
private final class VolumeModel: ObservationSubject, @unchecked Sendable {
    let registry: ObserverRegistry
    @Observed var volume = 0.5
    init(registry: ObserverRegistry) { self.registry = registry }
}

private final class VolumeSlider: ObservationSubject, @unchecked Sendable {
    let registry: ObserverRegistry
    @Observed var position = 0.5
    var tokens: [ObservationToken] = []
    init(registry: ObserverRegistry) { self.registry = registry }

    /// Binds the slider to the model and back. `echoing`: the model side copies without
    /// comparing (the bug); otherwise both sides set only a different value.
    func bind(to model: VolumeModel, echoing: Bool) {
        tokens.append(model.$volume.observe(owner: self) { slider, change in
            if let new = change.new, slider.position != new { slider.$position.set(new) }
        })
        tokens.append(observePosition(model: model, echoing: echoing))
    }

    private func observePosition(model: VolumeModel, echoing: Bool) -> ObservationToken {
        $position.observe(owner: model) { model, change in
            if let new = change.new, echoing || model.volume != new { model.$volume.set(new) }
        }
    }

    /// Ends the binding (the screen went away).
    func unbind() { tokens.removeAll() }
}

@Test func aViewModelBindingThatEchoesNamesBothOwnersAndCallSites() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "binding")
    let model = VolumeModel(registry: recording.registry)
    let slider = VolumeSlider(registry: recording.registry)
    slider.bind(to: model, echoing: true)
    model.$volume.set(0.8)
    slider.unbind()
    recording.close()
    #expect(slider.position == 0.8)
    #expect(try findings(scratch.path()) == [
        "OJ007 redundant-change: VolumeModel#1.volume was set to the value it already had once (\"0.8\" → \"0.8\") and these changes were delivered once (first at seq 5, posted at NotificationCenterDiagnosisTests.swift:354).",
        "OJ009 feedback-loop: VolumeModel#1.volume was changed again from inside its own delivery once, up to depth 2 (chain VolumeModel#1.volume → VolumeSlider#2.position → VolumeModel#1.volume; first at seq 5, posted at NotificationCenterDiagnosisTests.swift:354, through VolumeSlider#2's callback (NotificationCenterDiagnosisTests.swift:346) → VolumeModel#1's callback (NotificationCenterDiagnosisTests.swift:353)).",
    ])
}

@Test func aBindingThatSetsOnlyDifferentValuesHasNoLoop() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "binding, fixed")
    let model = VolumeModel(registry: recording.registry)
    let slider = VolumeSlider(registry: recording.registry)
    slider.bind(to: model, echoing: false)
    model.$volume.set(0.8)
    slider.$position.set(0.3)
    slider.unbind()
    recording.close()
    #expect(model.volume == 0.3)
    #expect(try findings(scratch.path()) == [])
}
