import Foundation
@testable import ObservationJournal
import ObserverCore
import Testing
import TestSupport

@Suite struct BufferTests {
    func event(_ thread: UInt64, at time: UInt64) -> ObserverEvent {
        ObserverEvent(kind: .scopeBegan, time: time, thread: thread, isMainThread: false, scope: ScopeInfo(id: time, name: "s"))
    }

    /// Any capacity an app passes gives a ring that exists: below 1 one place, above the
    /// maximum the maximum (the ring is reserved whole when the session starts).
    @Test func capacityIsClampedToWhatARingCanHave() {
        #expect(EventBuffer.places(forCapacity: -5) == 1)
        #expect(EventBuffer.places(forCapacity: 0) == 1)
        #expect(EventBuffer.places(forCapacity: 16_384) == 16_384)
        #expect(EventBuffer.places(forCapacity: 1 << 22) == 4_194_304)
        #expect(EventBuffer.places(forCapacity: (1 << 62) + 1) == 4_194_304)
        #expect(EventBuffer.places(forCapacity: .max) == 4_194_304)
        #expect(EventBuffer(capacity: 0, policy: .wait, gatherMilliseconds: 0).capacity == 1)
    }

    /// With the drop policy, a full buffer drops events and the place of the drop becomes
    /// one gap numbered right after the events that fitted.
    @Test func fullBufferDropsIntoOneNumberedGap() throws {
        let buffer = EventBuffer(capacity: 4, policy: .drop, gatherMilliseconds: 0)
        for time in 1...10 { buffer.record(event(7, at: UInt64(time))) }
        var spare = PendingEvents()
        let first = try #require(buffer.takeBatch(swapping: &spare))
        #expect(first.firstSeq == 1)
        #expect(first.pending.records.map(\.time) == [1, 2, 3, 4])
        let gap = try #require(first.gap)
        #expect(gap.seq == 5 && gap.dropped == 6 && gap.time == 5 && gap.thread == 7)
        #expect(first.lastSeq == 5)

        for time in 11...12 { buffer.record(event(7, at: UInt64(time))) }
        let second = try #require(buffer.takeBatch(swapping: &spare))
        #expect(second.firstSeq == 6)
        #expect(second.pending.records.map(\.time) == [11, 12])
        #expect(second.gap == nil)
        #expect(buffer.counters == RecordingCounters(accepted: 6, written: 0, dropped: 6, unwritten: 0))
        buffer.committed(first)
        buffer.committed(second)
        #expect(buffer.counters == RecordingCounters(accepted: 6, written: 6, dropped: 6, unwritten: 0))
    }

    /// The buffer is a ring of places reused round after round; a gap takes a number (a
    /// place) but no room. With a capacity that is not a power of two, over rounds that
    /// start at different places of the ring, each batch still holds exactly the events
    /// that fitted, numbered on from the last gap, with their values and events, and the
    /// counters add up exactly.
    @Test func placesAreReusedRoundAfterRoundWithGapsNumberedBetween() throws {
        let buffer = EventBuffer(capacity: 5, policy: .drop, gatherMilliseconds: 0)
        var spare = PendingEvents()
        // 6 places a round in a ring of 8: each round starts at another index.
        for round in 0..<7 {
            let base = UInt64(round * 10)
            buffer.recordChange(
                EventRecord(kind: .changed, flags: [], time: base + 1, thread: 1, channel: 0, depth: 0),
                values: ChangeValues(old: round, new: round + 1), callSite: nil
            )
            buffer.record(event(2, at: base + 2))
            for time in 3...5 {
                buffer.record(EventRecord(kind: .skipped, flags: [], time: base + UInt64(time), thread: 3, channel: 0, depth: 0))
            }
            for extra in 6...8 { buffer.record(event(4, at: base + UInt64(extra))) }
            let batch = try #require(buffer.takeBatch(swapping: &spare))
            #expect(batch.firstSeq == Int64(round * 6 + 1))
            #expect(batch.pending.records.map(\.time) == [base + 1, base + 2, base + 3, base + 4, base + 5])
            #expect(batch.pending.records.map(\.kind) == [.changed, .event, .skipped, .skipped, .skipped])
            #expect(batch.pending.changes.map { $0.new?.description } == ["\(round + 1)"])
            #expect(batch.pending.events.map(\.time) == [base + 2])
            let gap = try #require(batch.gap)
            #expect(gap.seq == Int64(round * 6 + 6) && gap.dropped == 3 && gap.time == base + 6 && gap.thread == 4)
            buffer.committed(batch)
        }
        #expect(buffer.counters == RecordingCounters(accepted: 35, written: 35, dropped: 21, unwritten: 0))
    }

    /// Through the journal: a writer held up by another connection's write lock makes a
    /// small buffer overflow; the journal records each gap with its count, the numbering
    /// stays gap-free, and nothing is lost silently.
    @Test func droppedEventsAreRecordedAsGaps() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let journal = try Journal.open(path: path, options: .init(
            bufferCapacity: 8, whenBufferFull: .drop, batchDelayMilliseconds: 0))
        let recording = try journal.startSession(label: "drops")
        let blocker = try SQLiteDatabase(path: path, mode: .readWrite)
        try blocker.execute("BEGIN IMMEDIATE")
        let registry = recording.registry
        for index in 0..<10_000 { registry.beginScope("scope \(index)").end() }
        try blocker.execute("COMMIT")
        recording.close()

        let counters = recording.counters
        #expect(counters.dropped > 0)
        #expect(counters.accepted + counters.dropped == 20_000)
        #expect(counters.written == counters.accepted)
        #expect(try eventsAreGapFree(path))
        let gaps = try rows(path, "SELECT reason, detail FROM event_log WHERE kind = 'gap'")
        #expect(!gaps.isEmpty)
        #expect(gaps.allSatisfy { $0.hasPrefix("bufferFull|dropped=") })
        let dropped = gaps.compactMap { Int($0.split(separator: "=").last!) }.reduce(0, +)
        #expect(dropped == counters.dropped)
        #expect(try scalar(path, "SELECT count(*) FROM events WHERE kind != (SELECT code FROM event_kinds WHERE name = 'gap')") == Int64(counters.accepted))
        // A gap sits between the events before and after it: never two gaps in a row.
        #expect(try scalar(path, """
            SELECT count(*) FROM events a JOIN events b ON b.session_id = a.session_id AND b.seq = a.seq + 1
            WHERE a.kind = (SELECT code FROM event_kinds WHERE name = 'gap') AND b.kind = a.kind
            """) == 0)
    }

    /// The buffer hands the writer the registry's compact records with the values and the
    /// channels and registrations they name; a record dropped for room takes its values
    /// with it, but definitions are never dropped, so a kept record after a drop still
    /// names its registration.
    @Test func recordsReachTheWriterAndDefinitionsSurviveDrops() throws {
        let buffer = EventBuffer(capacity: 2, policy: .drop, gatherMilliseconds: 0)
        let subject = ObjectRef(id: 1, typeName: "Player")
        let channel = ChannelInfo(id: 3, subject: subject, key: "volume", policy: .multicast)
        buffer.define(channel)
        let change = EventRecord(
            kind: .changed, flags: [.mainThread, .prior], time: 10, thread: 1, channel: 3, depth: 0, liveCount: 1,
            changeNumber: 1
        )
        buffer.recordChange(change, values: ChangeValues(old: 4, new: 5), callSite: nil)
        // Full from here on: the registration made now is still defined, its event dropped.
        buffer.record(EventRecord(kind: .skipped, flags: [], time: 11, thread: 2, channel: 3, depth: 0))
        let registration = RegistrationInfo(
            id: 9, channelID: 3, owner: ObjectRef(id: 2, typeName: "Meter"),
            callSite: CallSite(file: "App/Meter.swift", line: 12, function: "start()"), options: []
        )
        buffer.define(registration)
        buffer.recordChange(change, values: ChangeValues(new: EventValue(6)), callSite: nil)
        var spare = PendingEvents()
        let first = try #require(buffer.takeBatch(swapping: &spare))
        #expect(first.pending.records.map(\.kind) == [.changed, .skipped])
        #expect(first.pending.records.map(\.time) == [10, 11])
        #expect(first.gap?.dropped == 1)
        // The kept change's values, not the dropped one's.
        #expect(first.pending.changes.count == 1)
        #expect(first.pending.changes[0].old?.description == "4" && first.pending.changes[0].new?.description == "5")
        #expect(first.pending.channels == [channel])
        #expect(first.pending.registrations == [registration])

        let delivery = EventRecord(
            kind: .delivered, flags: [.mainQueue, .countedWaits], time: 20, thread: 2, channel: 3, depth: 1,
            registration: 9, duration: 70_000, cpu: 60_000, waits: 2, changeNumber: 1
        )
        buffer.record(delivery)
        // `spare` now holds the first batch's storage, as the writer hands it back.
        var next = PendingEvents()
        let second = try #require(buffer.takeBatch(swapping: &next))
        #expect(second.gap == nil)
        let kept = try #require(second.pending.records.first)
        #expect(second.pending.records.count == 1)
        #expect(kept.kind == .delivered && kept.time == 20 && kept.depth == 1 && kept.changeNumber == 1)
        #expect(kept.duration == 70_000 && kept.cpu == 60_000 && kept.waits == 2)
        // The writer names the delivery's registration from the first batch's definitions.
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        _ = try Journal.open(path: path)
        let writer = try SessionWriter(
            database: try SQLiteDatabase(path: path, mode: .readWrite), label: "drops", values: ValueRecording()
        )
        try writer.write(first)
        try writer.write(second)
        #expect(try rows(path, "SELECT seq, kind, channel, registration_id FROM event_log ORDER BY seq") == [
            "1|changed|Player#1.volume|NULL", "2|skipped|Player#1.volume|NULL", "3|gap|NULL|NULL",
            "4|delivered|Player#1.volume|9",
        ])
        #expect(try rows(path, "SELECT id, channel, owner, call_site FROM registration_log") == [
            "9|Player#1.volume|Meter#2|App/Meter.swift:12",
        ])
    }

    /// The default policy waits for room: a tiny buffer loses nothing.
    @Test func waitingPolicyLosesNothing() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let recording = try Journal.open(path: path, options: .init(bufferCapacity: 2)).startSession(label: "wait")
        for index in 0..<3_000 { recording.registry.beginScope("scope \(index)").end() }
        recording.close()
        #expect(recording.counters == RecordingCounters(accepted: 6_000, written: 6_000))
        #expect(try scalar(path, "SELECT count(*) FROM events") == 6_000)
        #expect(try eventsAreGapFree(path))
    }
}
