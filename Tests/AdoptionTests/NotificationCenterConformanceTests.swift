import Foundation
import ObservationJournal
import ObserverCore
import Synchronization
import Testing
import TestSupport

// The behaviours of `NotificationCenter.addObserver(forName:object:queue:using:)`, `post` and
// `removeObserver` that Foundation documents and swift-corelibs-foundation's own tests
// (Tests/Foundation/TestNotificationCenter.swift) pin down, each run as the same app code
// against Foundation's center and against the recorded drop-in. Every scenario returns what
// the app saw; the test expects exact results from Foundation and the same from the drop-in.
// docs/CONFORMANCE.md, "NotificationCenter", lists them.

/// The two centers an app can have after `let center = ...`.
enum CenterKind: String, CaseIterable, Sendable {
    case foundation, recorded
}

/// The calls the scenarios make, with Foundation's names.
protocol CenterCalls: Sendable {
    func addObserver(
        forName name: Notification.Name?, object: Any?, queue: OperationQueue?,
        using block: @escaping @Sendable (Notification) -> Void
    ) -> any NSObjectProtocol
    func post(name: Notification.Name, object: Any?, userInfo: [AnyHashable: Any]?)
    func removeObserver(_ observer: Any)
    func removeObserver(_ observer: Any, name: Notification.Name?, object: Any?)
}

extension NotificationCenter: CenterCalls {}

/// The drop-in under Foundation's names (its own `addObserver` has more, defaulted, parameters).
struct RecordedCalls: CenterCalls {
    let center: RecordingNotificationCenter

    func addObserver(
        forName name: Notification.Name?, object: Any?, queue: OperationQueue?,
        using block: @escaping @Sendable (Notification) -> Void
    ) -> any NSObjectProtocol {
        center.addObserver(forName: name, object: object, queue: queue, using: block)
    }

    func post(name: Notification.Name, object: Any?, userInfo: [AnyHashable: Any]?) {
        center.post(name: name, object: object, userInfo: userInfo)
    }

    func removeObserver(_ observer: Any) { center.removeObserver(observer) }

    func removeObserver(_ observer: Any, name: Notification.Name?, object: Any?) {
        center.removeObserver(observer, name: name, object: object)
    }
}

/// What an app reaches as `NotificationCenter.default`: one real center for the whole
/// scenario (a private one, so tests never hear each other), and for the drop-in a registry
/// recording into memory. `center()` is one function's `let center = ...`: for the drop-in,
/// a new `RecordingNotificationCenter` each time, dropped when the function returns.
final class AppCenters: Sendable {
    let kind: CenterKind
    let shared = NotificationCenter()
    let sink = InMemoryEventSink()
    let registry: ObserverRegistry

    init(_ kind: CenterKind) {
        self.kind = kind
        registry = ObserverRegistry(sink: sink)
    }

    func center() -> any CenterCalls {
        switch kind {
        case .foundation: return shared
        case .recorded: return RecordedCalls(center: RecordingNotificationCenter(registry: registry, forwardingTo: shared))
        }
    }
}

/// What a scenario saw, in order, from any thread.
final class SeenLog: Sendable {
    private let lines = Mutex<[String]>([])
    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

final class Sender: NSObject, Sendable {}

extension Notification.Name {
    static let conformance = Notification.Name("Conformance")
    static let conformanceOther = Notification.Name("ConformanceOther")
}

/// Runs `scenario` against both centers: Foundation's result must be `expected`, and the
/// drop-in's the same.
func expectSameOnBoth(
    _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation, _ scenario: (AppCenters, SeenLog) -> Void
) {
    var results: [CenterKind: [String]] = [:]
    for kind in CenterKind.allCases {
        let log = SeenLog()
        scenario(AppCenters(kind), log)
        results[kind] = log.all
    }
    #expect(results[.foundation] == expected, "Foundation", sourceLocation: sourceLocation)
    #expect(results[.recorded] == results[.foundation], "the drop-in differs from Foundation", sourceLocation: sourceLocation)
}

@Suite struct NotificationCenterConformance {
    @Test func aPostReachesTheObserverWithItsNameSenderAndUserInfo() {
        expectSameOnBoth(["Conformance from the sender, file=a.zip"]) { app, log in
            let center = app.center()
            let sender = Sender()
            let token = center.addObserver(forName: .conformance, object: sender, queue: nil) { note in
                let from = (note.object as? Sender) === sender ? "the sender" : "another"
                log.add("\(note.name.rawValue) from \(from), file=\(note.userInfo?["file"] as? String ?? "-")")
            }
            center.post(name: .conformance, object: sender, userInfo: ["file": "a.zip"])
            center.removeObserver(token)
        }
    }

    @Test func anObserverForOneSenderHearsOnlyThatSender() {
        expectSameOnBoth(["posted by 1"]) { app, log in
            let center = app.center()
            let first = Sender(), second = Sender()
            let token = center.addObserver(forName: .conformance, object: first, queue: nil) { note in
                log.add("posted by \(note.userInfo?["by"] as? Int ?? 0)")
            }
            center.post(name: .conformance, object: second, userInfo: ["by": 2])
            center.post(name: .conformance, object: nil, userInfo: ["by": 0])
            center.post(name: .conformance, object: first, userInfo: ["by": 1])
            center.removeObserver(token)
        }
    }

    @Test func everyObserverOfANameIsCalledOncePerPostAndARemovedOneNotAtAll() {
        expectSameOnBoth(["A", "C"]) { app, log in
            let center = app.center()
            let seen = SeenLog()
            let tokens = ["A", "B", "C"].map { label in
                center.addObserver(forName: .conformance, object: nil, queue: nil) { _ in seen.add(label) }
            }
            center.removeObserver(tokens[1])
            center.post(name: .conformance, object: nil, userInfo: nil)
            // Foundation does not document the order among observers.
            for label in seen.all.sorted() { log.add(label) }
            for token in tokens { center.removeObserver(token) }
        }
    }

    @Test func anObserverForNoNameHearsEveryNameAndAnotherNamesObserverNothing() {
        expectSameOnBoth(["any name: Conformance", "any name: ConformanceOther", "named: Conformance"]) { app, log in
            let center = app.center()
            let seen = SeenLog()
            let named = center.addObserver(forName: .conformance, object: nil, queue: nil) { note in
                seen.add("named: \(note.name.rawValue)")
            }
            let other = center.addObserver(forName: Notification.Name("ConformanceNeverPosted"), object: nil, queue: nil) { note in
                seen.add("never: \(note.name.rawValue)")
            }
            let any = center.addObserver(forName: nil, object: nil, queue: nil) { note in
                seen.add("any name: \(note.name.rawValue)")
            }
            center.post(name: .conformance, object: nil, userInfo: nil)
            center.post(name: .conformanceOther, object: nil, userInfo: nil)
            for token in [named, other, any] { center.removeObserver(token) }
            // Foundation does not document the order among observers.
            for line in seen.all.sorted() { log.add(line) }
        }
    }

    @Test func anObserverRemovedBeforeThePostIsNotCalled() {
        expectSameOnBoth(["posted"]) { app, log in
            let center = app.center()
            let token = center.addObserver(forName: .conformance, object: nil, queue: nil) { _ in log.add("called") }
            center.removeObserver(token)
            center.post(name: .conformance, object: nil, userInfo: nil)
            log.add("posted")
        }
    }

    @Test func withNoQueueTheBlockRunsOnThePostingQueueBeforePostReturns() {
        expectSameOnBoth(["block on the posting queue", "post returned"]) { app, log in
            let center = app.center()
            let posting = OperationQueue()
            let token = center.addObserver(forName: .conformance, object: nil, queue: nil) { _ in
                log.add(OperationQueue.current === posting ? "block on the posting queue" : "block elsewhere")
            }
            posting.addOperation {
                center.post(name: .conformance, object: nil, userInfo: nil)
                log.add("post returned")
            }
            posting.waitUntilAllOperationsAreFinished()
            center.removeObserver(token)
        }
    }

    @Test func withAQueueTheBlockRunsOnItAndPostWaitsForIt() {
        expectSameOnBoth(["block on the observer's queue", "post returned"]) { app, log in
            let center = app.center()
            let observing = OperationQueue(), posting = OperationQueue()
            let token = center.addObserver(forName: .conformance, object: nil, queue: observing) { _ in
                log.add(OperationQueue.current === observing ? "block on the observer's queue" : "block elsewhere")
            }
            posting.addOperation {
                center.post(name: .conformance, object: nil, userInfo: nil)
                log.add("post returned")
            }
            posting.waitUntilAllOperationsAreFinished()
            center.removeObserver(token)
        }
    }

    @Test func postingFromTheObserversOwnQueueRunsTheBlockThereWithoutDeadlock() {
        expectSameOnBoth(["block on the observer's queue", "post returned"]) { app, log in
            let center = app.center()
            let observing = OperationQueue()
            let token = center.addObserver(forName: .conformance, object: nil, queue: observing) { _ in
                log.add(OperationQueue.current === observing ? "block on the observer's queue" : "block elsewhere")
            }
            observing.addOperation {
                center.post(name: .conformance, object: nil, userInfo: nil)
                log.add("post returned")
            }
            observing.waitUntilAllOperationsAreFinished()
            center.removeObserver(token)
        }
    }

    /// The README's one-line swap in a function that discards the token: Foundation keeps
    /// a block observer until `removeObserver`, whoever holds the token or the center value.
    @Test func aBlockObserverWhoseTokenIsDiscardedKeepsBeingCalled() {
        expectSameOnBoth(["called 1", "called 2"]) { app, log in
            let count = Mutex(0)
            func startListening() {
                let center = app.center()
                _ = center.addObserver(forName: .conformance, object: nil, queue: nil) { _ in
                    log.add("called \(count.withLock { value in value += 1; return value })")
                }
            }
            startListening()
            app.center().post(name: .conformance, object: nil, userInfo: nil)
            app.center().post(name: .conformance, object: nil, userInfo: nil)
        }
    }

    /// A token kept by the app, its center value gone: another function's center (the same
    /// real center) removes it.
    @Test func aTokenIsRemovedThroughAnyHolderOfTheSameCenter() {
        expectSameOnBoth(["called 1", "removed", "posted"]) { app, log in
            let count = Mutex(0)
            func startListening() -> any NSObjectProtocol {
                let center = app.center()
                return center.addObserver(forName: .conformance, object: nil, queue: nil) { _ in
                    log.add("called \(count.withLock { value in value += 1; return value })")
                }
            }
            let token = startListening()
            app.center().post(name: .conformance, object: nil, userInfo: nil)
            app.center().removeObserver(token)
            log.add("removed")
            app.center().post(name: .conformance, object: nil, userInfo: nil)
            log.add("posted")
        }
    }

    @Test func removingWithAnotherNameOrSenderLeavesTheObserverAndWithItsOwnRemovesIt() {
        expectSameOnBoth(["after other name: 1", "after other sender: 2", "after own name and sender: 2"]) { app, log in
            let center = app.center()
            let sender = Sender(), stranger = Sender()
            let count = Mutex(0)
            let token = center.addObserver(forName: .conformance, object: sender, queue: nil) { _ in
                count.withLock { $0 += 1 }
            }
            func post() { center.post(name: .conformance, object: sender, userInfo: nil) }
            center.removeObserver(token, name: .conformanceOther, object: nil)
            post()
            log.add("after other name: \(count.withLock { $0 })")
            center.removeObserver(token, name: nil, object: stranger)
            post()
            log.add("after other sender: \(count.withLock { $0 })")
            center.removeObserver(token, name: .conformance, object: sender)
            post()
            log.add("after own name and sender: \(count.withLock { $0 })")
        }
    }

    @Test func removingTwiceOrRemovingAStrangerChangesNothingElse() {
        expectSameOnBoth(["kept: 1"]) { app, log in
            let center = app.center()
            let count = Mutex(0)
            let removed = center.addObserver(forName: .conformance, object: nil, queue: nil) { _ in log.add("removed one called") }
            let kept = center.addObserver(forName: .conformance, object: nil, queue: nil) { _ in count.withLock { $0 += 1 } }
            center.removeObserver(removed)
            center.removeObserver(removed)
            center.removeObserver(Sender())
            center.post(name: .conformance, object: nil, userInfo: nil)
            log.add("kept: \(count.withLock { $0 })")
            center.removeObserver(kept)
        }
    }

    @Test func aCenterDeliversOnlyItsOwnPosts() {
        expectSameOnBoth(["own post"]) { app, log in
            let center = app.center()
            let token = center.addObserver(forName: .conformance, object: nil, queue: nil) { note in
                log.add(note.userInfo?["which"] as? String ?? "?")
            }
            NotificationCenter().post(name: .conformance, object: nil, userInfo: ["which": "another center's post"])
            center.post(name: .conformance, object: nil, userInfo: ["which": "own post"])
            center.removeObserver(token)
        }
    }
}

/// The discarded-token observer in a journal: live, its deliveries recorded, and leaked
/// at the end of the session (nothing else, nothing false).
@Test func aDiscardedTokensObserverIsJournaledLiveWithItsDeliveriesAndLeakedAtTheEnd() throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "discarded token")
    let shared = NotificationCenter()
    let count = Mutex(0)
    func startListening() {
        let center = RecordingNotificationCenter(registry: recording.registry, forwardingTo: shared)
        _ = center.addObserver(forName: .conformance, object: nil, queue: nil) { _ in count.withLock { $0 += 1 } }
    }
    func post() { RecordingNotificationCenter(registry: recording.registry, forwardingTo: shared).post(name: .conformance, object: nil) }
    startListening()
    post()
    post()
    recording.close()
    #expect(count.withLock { $0 } == 2)
    #expect(try rows(scratch.path(), "select seq, kind, owner from event_log order by seq") == [
        "1|registered|NotificationToken#1",
        "2|changed|NULL",
        "3|delivered|NotificationToken#1",
        "4|changed|NULL",
        "5|delivered|NotificationToken#1",
    ])
    #expect(try findings(scratch.path()) == [
        "OJ004 leaked-registration: NotificationToken#1's registration on *.Conformance (NotificationCenterConformanceTests.swift:324) was still registered when the session ended.",
    ])
}
