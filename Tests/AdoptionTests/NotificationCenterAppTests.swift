import Foundation
import ObservationJournal
import ObserverCore
import Testing
import TestSupport

// A small app written only against NotificationCenter's block-based API, switched to the
// recording center by the one line below. It has the classic bugs: an observer added on
// every appearance and never removed, a misspelled name, a token removed twice, and the
// removal of an object that never observed. The findings name the app's lines.

typealias AppNotificationCenter = RecordingNotificationCenter   // the one line; was NotificationCenter

extension Notification.Name {
    static let downloadFinished = Notification.Name("DownloadFinished")
}

final class DownloadManager {
    let center: AppNotificationCenter
    init(center: AppNotificationCenter) { self.center = center }

    func finish(_ file: String) {
        center.post(name: .downloadFinished, object: self, userInfo: ["file": file, "bytes": 1024])
    }
}

final class DownloadsScreen: @unchecked Sendable {
    let center: AppNotificationCenter
    var finished: [String] = []
    var observers: [any NSObjectProtocol] = []
    init(center: AppNotificationCenter) { self.center = center }

    func viewWillAppear() {
        // Bug: added on every appearance, never removed.
        observers.append(center.addObserver(forName: .downloadFinished, object: nil, queue: nil) { [weak self] note in
            self?.finished.append(note.userInfo?["file"] as? String ?? "?")
        })
    }
}

final class BadgeView: @unchecked Sendable {
    let center: AppNotificationCenter
    var token: (any NSObjectProtocol)?
    var badge = 0
    init(center: AppNotificationCenter) { self.center = center }

    func start() {
        // Bug: misspelled, so it never fires.
        token = center.addObserver(forName: Notification.Name("DownlaodFinished"), object: nil, queue: nil) { [weak self] _ in
            self?.badge += 1
        }
    }

    func stop() {
        if let token { center.removeObserver(token) }
    }

    func tearDown() {
        stop()                        // Bug: stop() already removed it.
        center.removeObserver(self)   // Bug: self never observed (only its token did).
    }
}

@Test func theRecordedNotificationAppIsDiagnosedAtItsOwnCallSites() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "downloads app")
    let center = AppNotificationCenter(registry: recording.registry, forwardingTo: NotificationCenter())
    let manager = DownloadManager(center: center)
    let screen = DownloadsScreen(center: center)
    let badge = BadgeView(center: center)
    screen.viewWillAppear()
    badge.start()
    manager.finish("a.zip")
    screen.viewWillAppear()
    manager.finish("b.zip")
    badge.stop()
    badge.tearDown()
    recording.close()

    // Foundation delivered as always: the second observer doubles every later delivery.
    #expect(screen.finished == ["a.zip", "b.zip", "b.zip"])
    #expect(badge.badge == 0)
    #expect(try findings(scratch.path()) == [
        "OJ002 duplicate-registration: NotificationCenterAppTests.swift:35 added an observer of *.DownloadFinished again (seq 5, NotificationToken#4) while the one it added at seq 1 (NotificationToken#1) was live, with no owner to tell them apart; the block ran twice for 1 change.",
        "OJ004 leaked-registration: 2 registrations on *.DownloadFinished from NotificationCenterAppTests.swift:35 were still registered when the session ended.",
        "OJ003 remove-unregistered: Removal at NotificationCenterAppTests.swift:55 in stop() (seq 10) matched no live registration: NotificationToken#2's last registration (on *.DownlaodFinished) was already removed at seq 9 (explicit, at NotificationCenterAppTests.swift:55 in stop()).",
        "OJ005 never-posted-key: NotificationToken#2 observed *.DownlaodFinished (NotificationCenterAppTests.swift:49), which was never posted; notification posted \"DownloadFinished\", 2 edits away: a typo?",
        "OJ003 remove-unregistered: Removal at NotificationCenterAppTests.swift:60 in tearDown() (seq 11) matched no live registration: BadgeView#5 had never registered anything.",
    ])
    // Posts carry the sender as an object and the userInfo keys.
    #expect(try rows(scratch.path(), "select seq, kind, channel, owner, new_value, reason, call_site from event_log where kind != 'delivered' order by seq") == [
        "1|registered|*.DownloadFinished|NotificationToken#1|NULL|NULL|AdoptionTests/NotificationCenterAppTests.swift:35",
        "2|registered|*.DownlaodFinished|NotificationToken#2|NULL|NULL|AdoptionTests/NotificationCenterAppTests.swift:49",
        "3|changed|*.DownloadFinished|NULL|object: DownloadManager#3; userInfo: bytes, file|NULL|AdoptionTests/NotificationCenterAppTests.swift:23",
        "5|registered|*.DownloadFinished|NotificationToken#4|NULL|NULL|AdoptionTests/NotificationCenterAppTests.swift:35",
        "6|changed|*.DownloadFinished|NULL|object: DownloadManager#3; userInfo: bytes, file|NULL|AdoptionTests/NotificationCenterAppTests.swift:23",
        "9|removed|*.DownlaodFinished|NotificationToken#2|NULL|explicit|AdoptionTests/NotificationCenterAppTests.swift:55",
        "10|removeUnregistered|NULL|NotificationToken#2|NULL|NULL|AdoptionTests/NotificationCenterAppTests.swift:55",
        "11|removeUnregistered|NULL|BadgeView#5|NULL|NULL|AdoptionTests/NotificationCenterAppTests.swift:60",
    ])
    // Each delivery follows its post, in the order Foundation calls its observers (which
    // it does not specify: compared as a set per post).
    #expect(try rows(scratch.path(), "select seq, owner from event_log where kind = 'delivered' and seq < 7") == ["4|NotificationToken#1"])
    #expect(Set(try rows(scratch.path(), "select owner from event_log where kind = 'delivered' and seq between 7 and 8")) == [
        "NotificationToken#1", "NotificationToken#4",
    ])
}

/// A screen that names itself as the owner of its observers (`owner:`, the recording
/// center's one addition to the API).
final class OwnedScreen: @unchecked Sendable {
    let center: RecordingNotificationCenter
    var tokens: [any NSObjectProtocol] = []
    init(center: RecordingNotificationCenter) { self.center = center }

    func viewWillAppear() {
        tokens.append(center.addObserver(forName: .downloadFinished, object: nil, queue: nil, owner: self) { _ in })
    }

    func viewDidDisappear() {
        for token in tokens { center.removeObserver(token) }
        tokens = []
    }
}

@Test func anOwnerAddingTheSameObserverOnEveryAppearanceIsADuplicateRegistration() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "owned")
    let center = RecordingNotificationCenter(registry: recording.registry, forwardingTo: NotificationCenter())
    let screen = OwnedScreen(center: center)
    screen.viewWillAppear()
    screen.viewWillAppear()
    center.post(name: .downloadFinished, object: nil)
    screen.viewDidDisappear()
    recording.close()
    #expect(try findings(scratch.path()) == [
        "OJ002 duplicate-registration: OwnedScreen#1 registered *.DownloadFinished twice from NotificationCenterAppTests.swift:117 (seq 1 and seq 2); its callback ran twice for 1 change.",
    ])
}

@Test func anOwnerThatAppearsOnceAndRemovesItsObserverIsClean() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "owned, fixed")
    let center = RecordingNotificationCenter(registry: recording.registry, forwardingTo: NotificationCenter())
    let screen = OwnedScreen(center: center)
    screen.viewWillAppear()
    center.post(name: .downloadFinished, object: nil)
    screen.viewDidDisappear()
    screen.viewWillAppear()
    center.post(name: .downloadFinished, object: nil)
    screen.viewDidDisappear()
    recording.close()
    #expect(try findings(scratch.path()) == [])
}

@Test func aLoopOverNotificationsIsRecordedAtItsLineAndEndsAsStreamEnded() async throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "notification loop")
    let center = RecordingNotificationCenter(registry: recording.registry, forwardingTo: NotificationCenter())
    let waiting = Task {
        var files: [String] = []
        for await note in center.notifications(named: .downloadFinished) {
            files.append(note.userInfo?["file"] as? String ?? "?")
            if files.count == 2 { break }
        }
        return files
    }
    try #require(await yieldUntil("a registration") { recording.registry.statistics.registrations > 0 })
    center.post(name: .downloadFinished, object: nil, userInfo: ["file": "a.zip"])
    center.post(name: .downloadFinished, object: nil, userInfo: ["file": "b.zip"])
    #expect(await waiting.value == ["a.zip", "b.zip"])
    center.post(name: .downloadFinished, object: nil, userInfo: ["file": "c.zip"])
    recording.close()
    #expect(try rows(scratch.path(), "select seq, kind, owner, reason from event_log order by seq") == [
        "1|registered|ChangeStream#1|NULL",
        "2|changed|NULL|NULL", "3|delivered|ChangeStream#1|NULL",
        "4|changed|NULL|NULL", "5|delivered|ChangeStream#1|NULL",
        "6|removed|ChangeStream#1|streamEnded",
        "7|changed|NULL|NULL",
    ])
    #expect(try rows(scratch.path(), "select call_site from registration_log") == [
        "AdoptionTests/NotificationCenterAppTests.swift:162",
    ])
    #expect(try findings(scratch.path()) == [])
}

// A name the registry already uses for its own notifications (another payload type) is
// recorded beside it, never mixed with it.
@Test func aNameTheRegistryAlreadyUsesIsRecordedOnItsOwnChannel() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let listener = OwnedScreen(center: RecordingNotificationCenter(registry: registry, forwardingTo: NotificationCenter()))
    let own = registry.observe(notification: "DownloadFinished", owner: listener) { _, _ in }
    let center = RecordingNotificationCenter(registry: registry, forwardingTo: NotificationCenter())
    let token = center.addObserver(forName: .downloadFinished, object: nil, queue: nil) { _ in }
    center.post(name: .downloadFinished, object: nil)
    registry.post(notification: "DownloadFinished")
    #expect(sink.events.map { "\($0.kind) \($0.channel?.description ?? "-")" } == [
        "registered *.DownloadFinished",
        "registered *.NotificationCenter:DownloadFinished",
        "changed *.NotificationCenter:DownloadFinished",
        "delivered *.NotificationCenter:DownloadFinished",
        "changed *.DownloadFinished",
        "delivered *.DownloadFinished",
    ])
    center.removeObserver(token)
    withExtendedLifetime(own) {}
}

// Many threads adding, posting and removing at once: every observer added is removed
// once, every post is recorded, and nothing is reported as removed twice.
@Test func theRecordingCenterIsSafeFromManyThreads() {
    let sink = InMemoryEventSink()
    let center = RecordingNotificationCenter(registry: ObserverRegistry(sink: sink), forwardingTo: NotificationCenter())
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
        for round in 0..<50 {
            let name = Notification.Name("n\((thread + round) % 3)")
            let token = center.addObserver(forName: name, object: nil, queue: nil) { _ in }
            center.post(name: name, object: nil, userInfo: ["round": round])
            center.removeObserver(token)
        }
    }
    #expect(sink.events.filter { $0.kind == .registered }.count == 400)
    #expect(sink.events.filter { $0.kind == .removed }.count == 400)
    #expect(sink.events.filter { $0.kind == .changed }.count == 400)
    #expect(sink.events.filter { $0.kind == .removeUnregistered }.isEmpty)
}
