import JournalAnalysis
import JournalFixtures
import JournalStore
import Testing

// Which change a delivery or skip belongs to. The journal does not link them; the
// tracker infers it, and silent-change, redundant-change, replay and the deliveries
// export all rest on that inference.

/// Events of one session: registrations and changes on channel 1, receipts of them.
private func event(
    _ seq: Int64, _ kind: EventKind, thread: Int64 = 1, registration: Int64? = nil, live: Int64? = nil,
    change: Int64? = nil
) -> EventRow {
    var row = StoredEvent(
        sessionID: 1, seq: seq, timeNs: seq, kind: kind.code, thread: thread,
        flags: EventFlags.encode(isMain: thread == 1, isPrior: false, isMainQueue: nil, depth: 0)
    )
    row.channelID = 1
    row.registrationID = registration
    row.liveCount = kind == .changed ? live : nil
    row.changeBack = change.map { seq - $0 }
    return EventRow(row)
}

/// Feeds `events`; returns, per change seq, the seqs of its receipts.
private func attribution(_ events: [EventRow]) -> [Int64: [Int64]] {
    var tracker = DispatchTracker()
    var completed: [DispatchTracker.CompletedChange] = []
    for event in events {
        completed += tracker.feed(event)
    }
    completed += tracker.finish()
    var result: [Int64: [Int64]] = [:]
    for change in completed { result[change.event.seq] = change.receipts.map(\.seq) }
    return result
}

@Test func aQueuedDeliveryBelongsToTheChangeItCameFromNotToAnEarlierOneItSkipped() {
    // The video toolbar's fixed variant: registration 1 is delivered on the main queue.
    let found = attribution([
        event(1, .registered, registration: 1),
        event(2, .changed, live: 1),  // on main, unchanged
        event(3, .skipped, registration: 1),
        event(4, .changed, thread: 3, live: 1),  // the timer's thread
        event(5, .delivered, registration: 1),  // on main, through the queue
    ])
    #expect(found == [2: [3], 4: [5]])
}

@Test func queuedDeliveriesOfChangesFromSeveralThreadsAreAttributedInPostingOrder() {
    let found = attribution([
        event(1, .registered, registration: 1),
        event(2, .changed, thread: 3, live: 1),
        event(3, .changed, thread: 4, live: 1),
        event(4, .delivered, registration: 1),  // the main queue runs its blocks in order
        event(5, .delivered, registration: 1),
    ])
    #expect(found == [2: [4], 3: [5]])
}

/// Schema 4 records which change a delivery is for: two queues that ran their blocks out of
/// posting order are attributed as recorded, not in posting order.
@Test func aRecordedChangeSeqDecidesOverPostingOrder() {
    let found = attribution([
        event(1, .registered, registration: 1),
        event(2, .changed, thread: 3, live: 1),
        event(3, .changed, thread: 4, live: 1),
        event(4, .delivered, registration: 1, change: 3),
        event(5, .delivered, registration: 1, change: 2),
    ])
    #expect(found == [2: [5], 3: [4]])
}

@Test func aChangePostedBeforeTheRegistrationNeverTakesItsDeliveries() {
    let found = attribution([
        event(1, .registered, registration: 2),
        event(2, .changed, thread: 3, live: 1),  // registration 2's owner is gone: no receipt
        event(3, .registered, registration: 1),
        event(4, .changed, thread: 4, live: 2),
        event(5, .delivered, registration: 1),  // through a queue, on main
    ])
    #expect(found == [2: [], 4: [5]])
}

@Test func aSynchronousDeliveryBelongsToTheLatestChangeOnItsThread() {
    let found = attribution([
        event(1, .registered, registration: 1),
        event(2, .registered, registration: 2),
        event(3, .changed, thread: 3, live: 2),  // still being delivered on thread 3
        event(4, .changed, live: 2),
        event(5, .delivered, registration: 1),
        event(6, .delivered, registration: 2),
        event(7, .delivered, thread: 3, registration: 1),
    ])
    #expect(found == [3: [7], 4: [5, 6]])
}

@Test func theVideoToolbarsQueuedDeliveryIsNeitherRedundantNorSilent() throws {
    let (reader, session) = try journal { s in
        let toolbar = try s.object("ToolbarContainer")
        let screen = try s.object("VideoPlayerScreen")
        let hidden = try s.channel(toolbar, "hidden")
        let registration = try s.register(
            hidden, owner: screen, at: "VideoPlayerScreen.swift:30", options: "old,new,onlyWhenChanged",
            queue: "com.apple.main-thread", expectsMain: true
        )  // seq 1
        try s.change(hidden, old: "false", new: "false")  // seq 2: a layout pass, on main
        try s.skip(registration)  // seq 3
        try s.inThread(3) { try s.change(hidden, old: "false", new: "true") }  // seq 4: the auto-hide timer
        try s.deliver(registration)  // seq 5: on main, through the main queue
        try s.remove(registration, reason: .tokenCancelled)  // seq 6
    }
    #expect(try Diagnoser.diagnose(reader, session: session).isEmpty)
}

@Test func aChangeCompletesWithTheLastReceiptItsLiveCountExpects() {
    var tracker = DispatchTracker()
    #expect(tracker.feed(event(1, .registered, registration: 1)).isEmpty)
    #expect(tracker.feed(event(2, .registered, registration: 2)).isEmpty)
    #expect(tracker.feed(event(3, .changed, thread: 3, live: 2)).isEmpty)
    #expect(tracker.feed(event(4, .delivered, thread: 3, registration: 1)).isEmpty)
    #expect(tracker.openChanges == 1)
    let done = tracker.feed(event(5, .skipped, thread: 3, registration: 2))
    #expect(done.map(\.event.seq) == [3])
    #expect(done.first?.receipts.map(\.seq) == [4, 5])
    #expect(tracker.openChanges == 0)
    #expect(tracker.finish().isEmpty)
}

@Test func aChangeNobodyWasLiveForCompletesAtTheNextEvent() {
    var tracker = DispatchTracker()
    // Not at its own event: rules see the change before its completion.
    #expect(tracker.feed(event(1, .changed, thread: 3, live: 0)).isEmpty)
    #expect(tracker.openChanges == 1)
    let done = tracker.feed(event(2, .registered, registration: 1))
    #expect(done.map(\.event.seq) == [1])
    #expect(done.first?.receipts == [])
    #expect(tracker.openChanges == 0)
    // At the end of the stream when nothing follows.
    #expect(tracker.feed(event(3, .changed, live: 0)).isEmpty)
    #expect(tracker.finish().map(\.event.seq) == [3])
}

@Test func aDeadOwnersRemovalInTheDispatchAnswersForItsRegistration() {
    var tracker = DispatchTracker()
    let removal = { (seq: Int64, registration: Int64, reason: String) -> EventRow in
        var row = StoredEvent(sessionID: 1, seq: seq, timeNs: seq, kind: EventKind.removed.code, thread: 3, flags: 0)
        row.channelID = 1
        row.registrationID = registration
        row.reason = reason
        return EventRow(row)
    }
    #expect(tracker.feed(event(1, .registered, registration: 1)).isEmpty)
    #expect(tracker.feed(event(2, .registered, registration: 2)).isEmpty)
    #expect(tracker.feed(event(3, .registered, registration: 3)).isEmpty)
    // Live 3: registration 1 is called, 2 and 3 are found with their owners gone and
    // removed after the loop; the change waits for no receipt from them.
    #expect(tracker.feed(event(4, .changed, thread: 3, live: 3)).isEmpty)
    #expect(tracker.feed(event(5, .delivered, thread: 3, registration: 1)).isEmpty)
    #expect(tracker.feed(removal(6, 2, "ownerDeallocated")).isEmpty)
    #expect(tracker.openChanges == 1)
    let done = tracker.feed(removal(7, 3, "ownerDeallocated"))
    #expect(done.map(\.event.seq) == [4])
    #expect(done.first?.receipts.map(\.seq) == [5])
    #expect(tracker.openChanges == 0)

    // A removal the owner asked for is no answer: the change stays open until the end.
    #expect(tracker.feed(event(8, .registered, registration: 4)).isEmpty)
    #expect(tracker.feed(event(9, .registered, registration: 5)).isEmpty)
    #expect(tracker.feed(event(10, .changed, thread: 3, live: 3)).isEmpty)
    #expect(tracker.feed(event(11, .delivered, thread: 3, registration: 4)).isEmpty)
    #expect(tracker.feed(removal(12, 5, "explicit")).isEmpty)
    #expect(tracker.openChanges == 1)
    #expect(tracker.finish().map(\.event.seq) == [10])
}
