import Foundation
@testable import ObserverCore
import Testing

// A thread keeps, while a post's delivery loop runs, the change's number, its clock reading
// and its main-queue answer, so the loop's deliveries need not ask again. Change numbers are
// per registry: an answer left behind after the post would serve a delivery of another
// registry's change with the same number, run later on the same thread (a queue's worker).
// A NotificationCenter post recorded through `RecordingNotificationCenter` once left its
// answers behind: a trivial callback of another registry, delivered on a worker thread
// shared with a main-queue post, was reported blocking the main thread for 90 ms.

/// A record sink that keeps nothing: the registry records through it as through a journal's.
private final class DiscardingRecordSink: RecordSink, @unchecked Sendable {
    func define(_ info: ChannelInfo) {}
    func define(_ info: RegistrationInfo) {}
    func recordChange(_ record: EventRecord, values: consuming ChangeValues, callSite: CallSite?) {}
    func record(_ record: EventRecord) {}
    func record(_ event: ObserverEvent) {}
}

@Test func aRecordedNotificationPostLeavesNoAnswerForTheNextDeliveryOnItsThread() {
    let registry = ObserverRegistry(sink: DiscardingRecordSink())
    let center = RecordingNotificationCenter(registry: registry, forwardingTo: NotificationCenter())
    // The registry's first change: number 1, as the first change of any other registry.
    center.post(name: Notification.Name("DownloadFinished"), object: nil)
    let afterPost = monotonicNanoseconds()
    let context = ThreadContext.current
    // A delivery of some change 1 starting now starts now, not at the post's reading.
    #expect(context.time(delivering: 1) >= afterPost)
    #expect(context.queueChange == 0)
}

@Test func aPostLeavesNoAnswerForTheNextDeliveryOnItsThread() {
    let registry = ObserverRegistry(sink: DiscardingRecordSink())
    let player = Player()
    let screen = Screen("player")
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let token = volume.observe(owner: screen) { _, _ in }
    volume.value = 1
    let afterPost = monotonicNanoseconds()
    let context = ThreadContext.current
    #expect(context.time(delivering: 1) >= afterPost)
    #expect(context.queueChange == 0)
    withExtendedLifetime(token) {}
}
