import Foundation
import ObservationJournal
import ObserverCore
import Testing
import TestSupport

// NotificationCenter shapes from apps written by others: an observer added twice from two
// places, a sender filter naming the wrong object, removals that reach nothing. Each bug
// beside the same code done right; every test forwards to a private center.

/// A private recording center for a test's own session.
private func privateCenter(_ recording: RecordingSession) -> RecordingNotificationCenter {
    RecordingNotificationCenter(registry: recording.registry, forwardingTo: NotificationCenter())
}

// MARK: - The same observer added in init and again in viewDidLoad

private let libraryChanged = Notification.Name("LibraryChanged")

/// A library screen that observes changes to reload its list. `addsInInit`: the bug, the
/// observer is added in init and again in viewDidLoad.
private final class LibraryScreen: @unchecked Sendable {
    let center: RecordingNotificationCenter
    var reloads = 0
    var tokens: [any NSObjectProtocol] = []

    init(center: RecordingNotificationCenter, addsInInit: Bool) {
        self.center = center
        if addsInInit {
            tokens.append(center.addObserver(forName: libraryChanged, object: nil, queue: nil, owner: self) { [weak self] _ in
                self?.reloads += 1
            })
        }
    }

    func viewDidLoad() {
        tokens.append(center.addObserver(forName: libraryChanged, object: nil, queue: nil, owner: self) { [weak self] _ in
            self?.reloads += 1
        })
    }
}

/// A form that follows the keyboard with two different observers set up together.
private final class CommentForm: @unchecked Sendable {
    let center: RecordingNotificationCenter
    var insets = 0
    var scrolls = 0
    var tokens: [any NSObjectProtocol] = []

    init(center: RecordingNotificationCenter) { self.center = center }

    func viewDidLoad() {
        tokens.append(center.addObserver(forName: libraryChanged, object: nil, queue: nil, owner: self) { [weak self] _ in
            self?.insets += 1
        })
        tokens.append(center.addObserver(forName: libraryChanged, object: nil, queue: nil, owner: self) { [weak self] _ in
            self?.scrolls += 1
        })
    }
}

@Test func theSameObserverAddedInInitAndInViewDidLoadIsADuplicate() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "library, buggy")
    let center = privateCenter(recording)
    let screen = LibraryScreen(center: center, addsInInit: true)
    screen.viewDidLoad()
    center.post(name: libraryChanged, object: nil)
    center.post(name: libraryChanged, object: nil)
    for token in screen.tokens { center.removeObserver(token) }
    recording.close()
    #expect(screen.reloads == 4)
    #expect(try findings(scratch.path()) == [
        "OJ002 duplicate-registration: LibraryScreen#1 registered *.LibraryChanged from two places, NotificationShapesTests.swift:30 in init(center:addsInInit:) (seq 1) and NotificationShapesTests.swift:37 in viewDidLoad() (seq 2), both live: its observer ran twice for 2 changes, once per registration.",
    ], "\(seen(scratch.path()))")
    #expect(try fixes(scratch.path()).first?.hasPrefix("Add the observer in one place") == true)
}

@Test func anObserverAddedOnceAndTwoCallbacksSetUpTogetherAreNoDuplicates() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "library, fixed")
    let center = privateCenter(recording)
    let screen = LibraryScreen(center: center, addsInInit: false)
    screen.viewDidLoad()
    let form = CommentForm(center: center)
    form.viewDidLoad()
    center.post(name: libraryChanged, object: nil)
    center.post(name: libraryChanged, object: nil)
    for token in screen.tokens + form.tokens { center.removeObserver(token) }
    recording.close()
    #expect(screen.reloads == 2)
    #expect(form.insets == 2 && form.scrolls == 2)
    #expect(try findings(scratch.path()) == [], "\(seen(scratch.path()))")
}

// MARK: - A sender filter that names the wrong object

private let itemDidPlayToEnd = Notification.Name("ItemDidPlayToEnd")

/// The player (AVPlayer's stand-in): it never posts the end notification.
private final class VideoPlayer: @unchecked Sendable {
    let item = VideoItem()
}

/// The player's item (AVPlayerItem's stand-in): it posts when playback reaches the end.
private final class VideoItem: @unchecked Sendable {}

/// Shows "replay" when the video ends. `filtersOnPlayer`: the bug, `object: player`.
private final class VideoScreen: @unchecked Sendable {
    var endings = 0
    var token: (any NSObjectProtocol)?

    init(center: RecordingNotificationCenter, player: VideoPlayer, filtersOnPlayer: Bool) {
        let sender: AnyObject = filtersOnPlayer ? player : player.item
        token = center.addObserver(forName: itemDidPlayToEnd, object: sender, queue: nil, owner: self) { [weak self] _ in
            self?.endings += 1
        }
    }
}

@Test func aSenderFilterOnAnObjectThatNeverPostsIsReported() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "video end, buggy")
    let center = privateCenter(recording)
    let player = VideoPlayer()
    let screen = VideoScreen(center: center, player: player, filtersOnPlayer: true)
    center.post(name: itemDidPlayToEnd, object: player.item)
    center.post(name: itemDidPlayToEnd, object: player.item)
    center.removeObserver(screen.token!)
    recording.close()
    #expect(screen.endings == 0)
    #expect(try findings(scratch.path()) == [
        "OJ018 sender-filter-never-matched: VideoScreen#1's observer of *.ItemDidPlayToEnd (NotificationShapesTests.swift:115) filters on sender VideoPlayer#2 and never ran, though *.ItemDidPlayToEnd was posted 2 times while it was live: it was posted by VideoItem#3, never a VideoPlayer.",
    ], "\(seen(scratch.path()))")
}

@Test func aSenderFilterOnThePostingObjectOrOnePerSenderIsClean() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "video end, fixed")
    let center = privateCenter(recording)
    let player = VideoPlayer()
    let screen = VideoScreen(center: center, player: player, filtersOnPlayer: false)
    // One observer per item, as a playlist does: only the first item ends in this session.
    let other = VideoPlayer()
    let waiting = VideoScreen(center: center, player: other, filtersOnPlayer: false)
    center.post(name: itemDidPlayToEnd, object: player.item)
    center.removeObserver(screen.token!)
    center.removeObserver(waiting.token!)
    recording.close()
    #expect(screen.endings == 1)
    #expect(waiting.endings == 0)
    #expect(try findings(scratch.path()) == [], "\(seen(scratch.path()))")
}

// MARK: - Removals that reach nothing

private let syncDone = Notification.Name("SyncDone")

/// A status bar observing sync completion for itself, with a block observer.
private final class SyncStatusBar: @unchecked Sendable {
    var updates = 0
    var token: (any NSObjectProtocol)?
    init(center: RecordingNotificationCenter) {
        token = center.addObserver(forName: syncDone, object: nil, queue: nil, owner: self) { [weak self] _ in
            self?.updates += 1
        }
    }
}

@Test func aTokenRemovedFromTheWrongCenterIsReportedEvenWhenItsOwnerLaterRemovesIt() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "wrong center, then gone")
    let sync = privateCenter(recording)
    let app = privateCenter(recording)
    var bar: SyncStatusBar? = SyncStatusBar(center: sync)
    app.removeObserver(bar!.token!)             // the bug: the wrong center
    sync.post(name: syncDone, object: nil)      // still delivered
    bar = nil                                   // the bar goes: its observer is removed with it
    sync.post(name: syncDone, object: nil)
    recording.close()
    let log = try rows(scratch.path(), "select seq, kind, owner, reason from event_log order by seq")
    #expect(log == [
        "1|registered|SyncStatusBar#1|NULL", "2|removeUnregistered|SyncStatusBar#1|NULL",
        "3|changed|NULL|NULL", "4|delivered|SyncStatusBar#1|NULL",
        "5|changed|NULL|NULL", "6|delivered|SyncStatusBar#1|NULL",
        "7|removed|SyncStatusBar#1|ownerDeallocated",
    ], "\(log)")
    // The automatic removal at the end does not hide the removal that reached nothing.
    #expect(try findings(scratch.path()) == [
        "OJ003 remove-unregistered: Removal at NotificationShapesTests.swift:176 in aTokenRemovedFromTheWrongCenterIsReportedEvenWhenItsOwnerLaterRemovesIt() (seq 2) matched no live registration: SyncStatusBar#1's registration on *.SyncDone (NotificationShapesTests.swift:164) was live and stayed live (removed from another center than the one that added it?): its block ran 2 times more, until it was removed at seq 7.",
    ], "\(seen(scratch.path()))")
}

@Test func removingTheOwnerInsteadOfTheTokenOfALiveBlockObserverSaysWhatWasLive() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "remove self")
    let center = privateCenter(recording)
    let bar = SyncStatusBar(center: center)
    center.removeObserver(bar)                  // the bug: the block observer's token is what removes it
    center.post(name: syncDone, object: nil)
    center.removeObserver(bar.token!)
    recording.close()
    #expect(bar.updates == 1)
    #expect(try findings(scratch.path()) == [
        "OJ003 remove-unregistered: Removal at NotificationShapesTests.swift:199 in removingTheOwnerInsteadOfTheTokenOfALiveBlockObserverSaysWhatWasLive() (seq 2) matched no live registration: SyncStatusBar#1 owned a live registration (on *.SyncDone, added at NotificationShapesTests.swift:164) that a removal of the owner does not reach: a block observer is removed only through its token.",
    ], "\(seen(scratch.path()))")
    #expect(try fixes(scratch.path()).first?.hasPrefix("Keep the token addObserver(forName:object:queue:using:) returned") == true)
}

/// The findings of a journal as a failed expectation prints them.
func seen(_ path: String) -> String {
    (try? findings(path)).map { "\($0)" } ?? "(unreadable)"
}
