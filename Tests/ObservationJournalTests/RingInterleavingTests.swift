import Dispatch
import Foundation
@testable import ObservationJournal
import ObserverCore
import Synchronization
import Testing
import TestSupport

/// The event buffer's lock-free ring under the interleavings its design has to survive:
/// producers claiming while the writer drains, goes idle, gathers or fails; `flush` and
/// `close` racing producers; `.drop` merging runs into gaps while other threads claim;
/// `channelEnded` against records still in flight; rings of capacity 1 and of a capacity
/// that is not a power of two (indices wrap at another place each round). The buffer is
/// driven directly by a writer thread that only keeps what each batch held, so the rounds
/// are fast enough to repeat under ThreadSanitizer; every assertion is an exact count or
/// list, whatever the interleaving was. The narrow windows (a producer between its claim
/// and its copy) are also held open on purpose, by claiming a place as producers do
/// (`claimPlace`) and writing it later (`write`), so those tests check one exact
/// interleaving. A lost wake-up shows as a hang: the time limit
/// turns it into a failure.
@Suite(.timeLimit(.minutes(1))) struct RingInterleavingTests {
    /// What the writer saw of one record: who recorded it, its number on that thread, its
    /// channel and its sequence number.
    struct Seen: Equatable {
        var thread: UInt64
        var time: UInt64
        var channel: UInt64
        var seq: Int64
    }

    /// What the writer thread collected, batch after batch (read after it finished).
    final class Collected: @unchecked Sendable {
        var records: [Seen] = []
        /// `(seq, dropped)` of each gap.
        var gaps: [(seq: Int64, dropped: Int)] = []
        /// The expected `firstSeq` of the next batch; batches must follow without holes.
        var nextSeq: Int64 = 1
        var holes = 0
        var batches = 0
        /// Records in the batches committed (not in a failed one).
        var committed = 0
        var endedSession = 0
        var batchesAfterEnd = 0
        /// Channels handed over as ended, with how many of their records had come before.
        var ended: [(id: UInt64, recordsBefore: Int)] = []
        /// Records naming a channel after it was handed over as ended.
        var recordsAfterEnd = 0
        var perChannel: [UInt64: Int] = [:]
        var endedIDs: Set<UInt64> = []
    }

    /// Drives `buffer` like `RecordingSession.drain`: takes batches and commits them, or
    /// fails the batch numbered `failAt` (1-based); returns when `takeBatch` says it is over.
    final class FakeWriter: @unchecked Sendable {
        let buffer: EventBuffer
        let collected = Collected()
        let failAt: Int?
        private let finished = DispatchSemaphore(value: 0)
        /// Keys of the records committed so far, read from any thread (for `flush` checks);
        /// `Locked`, which ThreadSanitizer sees, not `Synchronization.Mutex`.
        private let committedKeys = Locked<Set<UInt64>>([])

        func hasCommitted(_ key: UInt64) -> Bool { committedKeys.withLock { $0.contains(key) } }
        var allCommitted: Set<UInt64> { committedKeys.withLock { $0 } }

        init(_ buffer: EventBuffer, failAt: Int? = nil) {
            self.buffer = buffer
            self.failAt = failAt
            let thread = Thread { [self] in run() }
            thread.stackSize = 1 << 20
            thread.start()
        }

        /// A key naming one record: its thread and its number on that thread.
        static func key(thread: UInt64, time: UInt64) -> UInt64 { thread << 40 | time }

        private func run() {
            buffer.writerStarted()
            var spare = PendingEvents()
            let out = collected
            while let batch = buffer.takeBatch(swapping: &spare) {
                out.batches += 1
                if out.endedSession > 0 { out.batchesAfterEnd += 1 }
                if batch.firstSeq != out.nextSeq { out.holes += 1 }
                out.nextSeq = batch.lastSeq + 1
                var keys: [UInt64] = []
                for (offset, record) in batch.pending.records.enumerated() {
                    let seen = Seen(thread: record.thread, time: record.time, channel: record.channel, seq: batch.firstSeq + Int64(offset))
                    out.records.append(seen)
                    keys.append(Self.key(thread: record.thread, time: record.time))
                    if record.channel != 0 {
                        if out.endedIDs.contains(record.channel) { out.recordsAfterEnd += 1 }
                        out.perChannel[record.channel, default: 0] += 1
                    }
                }
                if let gap = batch.gap { out.gaps.append((gap.seq, gap.dropped)) }
                for id in batch.pending.endedChannels {
                    out.ended.append((id, out.perChannel[id, default: 0]))
                    out.endedIDs.insert(id)
                }
                if out.batches == failAt {
                    buffer.failed(batch, error: .sqlite(path: "ring", detail: "injected failure"))
                    buffer.announced()
                    break
                }
                if batch.endsSession { out.endedSession += 1 }
                out.committed += batch.pending.count
                committedKeys.withLock { $0.formUnion(keys) }
                buffer.committed(batch)
            }
            finished.signal()
        }

        /// Waits until the writer thread has returned; then `collected` is stable.
        func join() { finished.wait() }
    }

    /// `threads` producers each record `each` events into a new ring of `capacity`, then
    /// the buffer is closed; returns it and what the writer took once it has finished.
    static func recordAndClose(
        threads: Int, each: Int, capacity: Int, policy: Journal.BufferFullPolicy, gatherMilliseconds: Int = 0
    ) -> (EventBuffer, Collected) {
        let buffer = EventBuffer(capacity: capacity, policy: policy, gatherMilliseconds: gatherMilliseconds)
        let writer = FakeWriter(buffer)
        produce(threads: threads) { thread in
            for time in 1...UInt64(each) { record(buffer, thread: thread, time: time) }
        }
        buffer.close()
        writer.join()
        return (buffer, writer.collected)
    }

    /// Runs `threads` producers at once, each calling `body(thread)` with its number 1…n.
    static func produce(threads: Int, _ body: @escaping @Sendable (UInt64) -> Void) {
        let group = DispatchGroup()
        for thread in 1...threads {
            group.enter()
            Thread {
                body(UInt64(thread))
                group.leave()
            }.start()
        }
        group.wait()
    }

    /// Records event number `time` of producer `thread`: mostly plain records, every third
    /// a change with values and, unless a channel is named, every seventh a boxed
    /// `ObserverEvent`, so all three kinds of entry are moved through the ring.
    static func record(_ buffer: EventBuffer, thread: UInt64, time: UInt64, channel: UInt64 = 0) {
        if time % 7 == 0 && channel == 0 {
            buffer.record(ObserverEvent(
                kind: .scopeBegan, time: time, thread: thread, isMainThread: false, scope: ScopeInfo(id: time, name: "s")
            ))
        } else if time % 3 == 0 {
            buffer.recordChange(
                EventRecord(kind: .changed, flags: [], time: time, thread: thread, channel: channel, depth: 0),
                values: ChangeValues(old: "\(time - 1)", new: "\(time)"), callSite: nil
            )
        } else {
            buffer.record(EventRecord(kind: .skipped, flags: [], time: time, thread: thread, channel: channel, depth: 0))
        }
    }

    /// Whether each producer's records came in the order it made them, 1…n with none
    /// missing or repeated.
    static func perThreadInOrder(_ records: [Seen], threads: Int, each: Int) -> Bool {
        (1...threads).allSatisfy { thread in
            records.filter { $0.thread == UInt64(thread) }.map(\.time) == (1...UInt64(each)).map { $0 }
        }
    }

    /// With the waiting policy, rings of capacity 1, 3 (indices wrap inside a ring of 4)
    /// and 5, and a writer that gathers or goes idle between batches: every event is
    /// written once, numbered 1…n without holes in claim order, each producer's in order.
    @Test(arguments: [(1, 0), (3, 1), (5, 0), (5, 1)])
    func waitingProducersOnTinyRingsLoseNothingAndStayInOrder(capacity: Int, gatherMilliseconds: Int) {
        let threads = 4
        let each = 1_500
        let (buffer, out) = Self.recordAndClose(
            threads: threads, each: each, capacity: capacity, policy: .wait, gatherMilliseconds: gatherMilliseconds
        )
        let total = threads * each
        #expect(out.holes == 0 && out.gaps.isEmpty)
        #expect(out.records.map(\.seq) == (1...Int64(total)).map { $0 })
        #expect(Self.perThreadInOrder(out.records, threads: threads, each: each))
        #expect(out.endedSession == 1 && out.batchesAfterEnd == 0)
        #expect(buffer.counters == RecordingCounters(accepted: total, written: total))
        #expect(buffer.currentPhase == .closed)
    }

    /// With `.drop`, producers racing each other and the writer on a ring of 3: each event
    /// is either written or counted in exactly one gap; gaps take numbers between events,
    /// never two in a row (a drop merges into the last gap only while no event was claimed
    /// after it), and what each thread kept is in its order.
    @Test(arguments: [1, 3])
    func droppingProducersCountEveryEventInExactlyOneGap(capacity: Int) {
        let threads = 4
        let each = 3_000
        let (buffer, out) = Self.recordAndClose(threads: threads, each: each, capacity: capacity, policy: .drop)
        let total = threads * each
        let dropped = out.gaps.map(\.dropped).reduce(0, +)
        #expect(out.holes == 0)
        #expect(out.records.count + dropped == total)
        // Events and gaps together are numbered 1…n, each number once.
        let numbers = (out.records.map(\.seq) + out.gaps.map(\.seq)).sorted()
        #expect(numbers == (1...Int64(numbers.count)).map { $0 })
        let gapSeqs = Set(out.gaps.map(\.seq))
        #expect(out.gaps.filter { gapSeqs.contains($0.seq + 1) }.isEmpty)
        #expect(out.gaps.allSatisfy { $0.dropped > 0 })
        #expect((1...threads).allSatisfy { thread in
            let times = out.records.filter { $0.thread == UInt64(thread) }.map(\.time)
            return times == times.sorted() && Set(times).count == times.count
        })
        #expect(buffer.counters == RecordingCounters(
            accepted: out.records.count, written: out.records.count, dropped: dropped
        ))
    }

    /// `flush()` returns only once every event its thread recorded before calling it is
    /// committed, even while other threads keep claiming places (some still being copied
    /// in when the flush's target is taken).
    @Test func flushCoversEveryEventRecordedBeforeIt() {
        let threads = 4
        let each = 600
        let buffer = EventBuffer(capacity: 8, policy: .wait, gatherMilliseconds: 1)
        let writer = FakeWriter(buffer)
        let missing = Atomic<Int>(0)
        Self.produce(threads: threads) { thread in
            for time in 1...UInt64(each) {
                Self.record(buffer, thread: thread, time: time)
                if time % 20 == 0 {
                    buffer.flush()
                    let key = FakeWriter.key(thread: thread, time: time)
                    if !writer.hasCommitted(key) { missing.add(1, ordering: .relaxed) }
                }
            }
        }
        buffer.close()
        writer.join()
        #expect(missing.load(ordering: .relaxed) == 0)
        #expect(buffer.counters == RecordingCounters(accepted: threads * each, written: threads * each))
    }

    /// `close()` while producers are claiming: the session ends after every event accepted
    /// before it (a producer that claimed just before the ring closed is written before
    /// the end), nothing after; those refused are not counted. Repeated, so the close
    /// lands at different points of the producers' claims.
    @Test func closeRacingProducersEndsAfterEveryAcceptedEvent() {
        for round in 0..<20 {
            let buffer = EventBuffer(capacity: round % 2 == 0 ? 3 : 16, policy: .wait, gatherMilliseconds: round % 3 == 0 ? 1 : 0)
            let writer = FakeWriter(buffer)
            let started = Atomic<Int>(0)
            let threads = 3
            let closer = DispatchSemaphore(value: 0)
            Thread {
                while started.load(ordering: .relaxed) < 50 + round * 20 { sched_yield() }
                buffer.close()
                closer.signal()
            }.start()
            Self.produce(threads: threads) { thread in
                for time in 1...UInt64(1_000) {
                    Self.record(buffer, thread: thread, time: time)
                    started.add(1, ordering: .relaxed)
                }
            }
            closer.wait()
            writer.join()
            let out = writer.collected
            let counters = buffer.counters
            #expect(out.holes == 0 && out.gaps.isEmpty)
            #expect(out.endedSession == 1 && out.batchesAfterEnd == 0)
            #expect(out.records.map(\.seq) == (1...Int64(out.records.count)).map { $0 })
            #expect(counters == RecordingCounters(accepted: out.records.count, written: out.records.count))
            // What each thread got in is a prefix of what it recorded: refused events
            // come only after the close, never between accepted ones.
            #expect((1...threads).allSatisfy { thread in
                let times = out.records.filter { $0.thread == UInt64(thread) }.map(\.time)
                return times == (0..<UInt64(times.count)).map { $0 + 1 }
            })
            #expect(buffer.currentPhase == .closed)
        }
    }

    /// A channel's end is handed to the writer only with or after the last record naming
    /// it, even while other records are still being copied in when it ends, and no record
    /// names it afterwards.
    @Test func channelEndComesAfterEveryRecordNamingIt() {
        let threads = 4
        let channels = 150
        let perChannel = 5
        let buffer = EventBuffer(capacity: 4, policy: .wait, gatherMilliseconds: 0)
        let writer = FakeWriter(buffer)
        Self.produce(threads: threads) { thread in
            var time: UInt64 = 0
            for number in 1...UInt64(channels) {
                let channel = thread << 32 | number
                for _ in 0..<perChannel {
                    time += 1
                    Self.record(buffer, thread: thread, time: time, channel: channel)
                }
                buffer.channelEnded(channel)
            }
        }
        buffer.close()
        writer.join()
        let out = writer.collected
        #expect(out.ended.count == threads * channels)
        #expect(out.ended.filter { $0.recordsBefore != perChannel }.count == 0)
        #expect(out.recordsAfterEnd == 0)
        #expect(buffer.counters == RecordingCounters(accepted: threads * channels * perChannel, written: threads * channels * perChannel))
    }

    /// A write failure while producers are claiming and copying in: every accepted event
    /// is counted written or unwritten, nothing is dropped, `flush` and `close` return,
    /// and producers that were waiting for room return.
    @Test(arguments: [1, 3])
    func failureWhileProducersFillCountsEveryEventOnce(failAt: Int) {
        let threads = 4
        let each = 2_000
        let buffer = EventBuffer(capacity: 5, policy: .wait, gatherMilliseconds: 0)
        let writer = FakeWriter(buffer, failAt: failAt)
        Self.produce(threads: threads) { thread in
            for time in 1...UInt64(each) {
                Self.record(buffer, thread: thread, time: time)
                if time % 500 == 0 { buffer.flush() }
            }
        }
        buffer.flush()
        buffer.close()
        writer.join()
        let out = writer.collected
        let counters = buffer.counters
        #expect(out.batches == failAt)
        #expect(buffer.currentPhase == .failed)
        #expect(buffer.lastError != nil)
        #expect(counters.accepted == threads * each)
        #expect(counters.dropped == 0)
        #expect(counters.written + counters.unwritten == counters.accepted)
        // Only the batches before the failed one count as written; the failed one held
        // at least one event.
        #expect(counters.written == out.committed)
        #expect(counters.unwritten > 0)
    }

    /// The writer going idle just as an event is claimed: it either sees the claim or
    /// the producer sees it idle and wakes it, so each event is written without a flush
    /// or a later event to push it (a lost wake-up would hang here until the time limit).
    @Test func anEventRecordedAsTheWriterGoesIdleIsWrittenWithoutAFlush() {
        let buffer = EventBuffer(capacity: 4, policy: .wait, gatherMilliseconds: 0)
        let writer = FakeWriter(buffer)
        let events: UInt64 = 3_000
        for time in 1...events {
            buffer.record(Self.plain(time))
            let key = FakeWriter.key(thread: 1, time: time)
            while !writer.hasCommitted(key) { sched_yield() }
        }
        buffer.close()
        writer.join()
        #expect(writer.collected.records.map(\.time) == (1...events).map { $0 })
        #expect(buffer.counters == RecordingCounters(accepted: Int(events), written: Int(events)))
    }

    // MARK: A producer held between its claim and its copy

    static func plain(_ time: UInt64, channel: UInt64 = 0) -> EventRecord {
        EventRecord(kind: .skipped, flags: [], time: time, thread: 1, channel: channel, depth: 0)
    }

    /// A drop merges into the last gap only while nothing was claimed after it: here the
    /// writer took the events before a stalled place, an event was claimed lock-free
    /// behind the gap, and the next drop opens a gap of its own after that event.
    @Test func dropAfterAnEventClaimedBehindAGapOpensANewGap() throws {
        let buffer = EventBuffer(capacity: 3, policy: .drop, gatherMilliseconds: 0)
        var spare = PendingEvents()
        buffer.record(Self.plain(1))
        buffer.record(Self.plain(2))
        let stalled = try #require(claimPlace(buffer))
        #expect(stalled == 2)
        buffer.record(Self.plain(4))
        let first = try #require(buffer.takeBatch(swapping: &spare))
        #expect(first.firstSeq == 1 && first.pending.records.map(\.time) == [1, 2] && first.gap == nil)
        buffer.committed(first)
        // Room for one again (two taken): claimed behind the gap, then full again.
        buffer.record(Self.plain(5))
        buffer.record(Self.plain(6))
        buffer.write(stalled, Self.plain(3), .none)
        let second = try #require(buffer.takeBatch(swapping: &spare))
        #expect(second.firstSeq == 3 && second.pending.records.map(\.time) == [3])
        #expect(second.gap.map { [$0.seq, Int64($0.dropped), Int64($0.time)] } == [4, 1, 4])
        buffer.committed(second)
        let third = try #require(buffer.takeBatch(swapping: &spare))
        #expect(third.firstSeq == 5 && third.pending.records.map(\.time) == [5])
        #expect(third.gap.map { [$0.seq, Int64($0.dropped), Int64($0.time)] } == [6, 1, 6])
        buffer.committed(third)
        #expect(buffer.counters == RecordingCounters(accepted: 4, written: 4, dropped: 2))
    }

    /// A channel that ends while a place before its records is still being copied in is
    /// handed over with the batch that holds its last record, not with the one before.
    @Test func channelEndWaitsForRecordsBehindAStalledPlace() throws {
        let buffer = EventBuffer(capacity: 4, policy: .wait, gatherMilliseconds: 0)
        var spare = PendingEvents()
        buffer.record(Self.plain(1))
        let stalled = try #require(claimPlace(buffer))
        buffer.record(Self.plain(3, channel: 7))
        buffer.channelEnded(7)
        let first = try #require(buffer.takeBatch(swapping: &spare))
        #expect(first.pending.records.map(\.time) == [1])
        #expect(first.pending.endedChannels == [])
        buffer.committed(first)
        buffer.write(stalled, Self.plain(2), .none)
        let second = try #require(buffer.takeBatch(swapping: &spare))
        #expect(second.firstSeq == 2 && second.pending.records.map(\.time) == [2, 3])
        #expect(second.pending.endedChannels == [7])
    }

    /// `flush()` waits for a place claimed before it even while its entry is still being
    /// copied in (its target counts claims, not written entries), and returns once that
    /// event is committed.
    @Test func flushWaitsForAPlaceClaimedBeforeIt() throws {
        let buffer = EventBuffer(capacity: 4, policy: .wait, gatherMilliseconds: 0)
        let writer = FakeWriter(buffer)
        let stalled = try #require(claimPlace(buffer))
        let flushed = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        Thread {
            buffer.flush()
            flushed.store(true, ordering: .sequentiallyConsistent)
            done.signal()
        }.start()
        usleep(20_000)
        // Returning now would be the bug; not having returned yet proves nothing more.
        let returnedEarly = flushed.load(ordering: .sequentiallyConsistent)
        #expect(!returnedEarly)
        buffer.write(stalled, Self.plain(1), .none)
        done.wait()
        #expect(writer.allCommitted == [FakeWriter.key(thread: 1, time: 1)])
        buffer.close()
        writer.join()
        #expect(buffer.counters == RecordingCounters(accepted: 1, written: 1))
    }

    /// A producer that claimed its place just before `close()` set the ring's closed bit is
    /// written before the session ends, even when it finishes its copy after; an event
    /// recorded after the close is refused and not counted.
    @Test func closeWritesAPlaceClaimedJustBeforeIt() throws {
        let buffer = EventBuffer(capacity: 4, policy: .wait, gatherMilliseconds: 0)
        let writer = FakeWriter(buffer)
        buffer.record(Self.plain(1))
        let stalled = try #require(claimPlace(buffer))
        let closed = Self.startClosing(buffer)
        buffer.record(Self.plain(9))
        #expect(claimPlace(buffer) == nil)
        buffer.write(stalled, Self.plain(2), .none)
        closed.wait()
        writer.join()
        let out = writer.collected
        #expect(out.records.map(\.time) == [1, 2])
        #expect(out.records.map(\.seq) == [1, 2])
        #expect(out.endedSession == 1 && out.batchesAfterEnd == 0 && out.holes == 0)
        #expect(buffer.counters == RecordingCounters(accepted: 2, written: 2))
        #expect(buffer.currentPhase == .closed)
    }

    /// Fills `buffer` (capacity 1) with event 1, starts a producer of event 2 and waits
    /// until it waits for room, then starts `close()` and waits until the close has begun;
    /// the producer's `join()` returns after its `record`, the semaphore is signalled when
    /// `close()` returns.
    static func closeWhileAProducerWaitsForRoom(_ buffer: EventBuffer) -> (producer: SleepingThread, closed: DispatchSemaphore) {
        buffer.record(plain(1))
        let producer = SleepingThread { buffer.record(plain(2)) }
        producer.waitUntilAsleep()
        return (producer, startClosing(buffer))
    }

    /// Starts `close()` on a thread of its own and waits until the close has begun; the
    /// semaphore is signalled when `close()` returns.
    static func startClosing(_ buffer: EventBuffer) -> DispatchSemaphore {
        let closed = DispatchSemaphore(value: 0)
        Thread {
            buffer.close()
            closed.signal()
        }.start()
        while buffer.currentPhase == .recording { usleep(100) }
        return closed
    }

    /// A producer waiting for room in a full ring (`.wait`) when `close()` begins handed its
    /// event over before the close: it is written before the session ends, numbered after
    /// every event claimed before the close, and counted as accepted and written; an event
    /// recorded after the close began is refused and not counted.
    @Test func aProducerWaitingForRoomWhenCloseBeginsIsWrittenBeforeTheEnd() throws {
        let buffer = EventBuffer(capacity: 1, policy: .wait, gatherMilliseconds: 0)
        var spare = PendingEvents()
        let (producer, closed) = Self.closeWhileAProducerWaitsForRoom(buffer)
        buffer.record(Self.plain(9))
        // The writer, on this thread: batches until the buffer says the session is over.
        var taken: [(seq: Int64, times: [UInt64], ends: Bool)] = []
        while let batch = buffer.takeBatch(swapping: &spare) {
            taken.append((batch.firstSeq, batch.pending.records.map(\.time), batch.endsSession))
            buffer.committed(batch)
            spare = PendingEvents()
        }
        producer.join()
        closed.wait()
        #expect(taken.map(\.seq) == [1, 2])
        #expect(taken.map(\.times) == [[1], [2]])
        #expect(taken.map(\.ends) == [false, true])
        #expect(buffer.counters == RecordingCounters(accepted: 2, written: 2))
        #expect(buffer.currentPhase == .closed)
    }

    /// A write failure after `close()` began, with a producer still owed its place: its
    /// event is counted as accepted and unwritten, like every other event the failure cut
    /// off, and `close()` returns once the failure was announced.
    @Test func aProducerWaitingForRoomWhenCloseBeginsIsCountedUnwrittenIfWritingFails() throws {
        let buffer = EventBuffer(capacity: 1, policy: .wait, gatherMilliseconds: 0)
        var spare = PendingEvents()
        let (producer, closed) = Self.closeWhileAProducerWaitsForRoom(buffer)
        let batch = try #require(buffer.takeBatch(swapping: &spare))
        #expect(batch.pending.records.map(\.time) == [1] && !batch.endsSession)
        buffer.failed(batch, error: .sqlite(path: "ring", detail: "injected failure"))
        buffer.announced()
        producer.join()
        closed.wait()
        #expect(buffer.takeBatch(swapping: &spare) == nil)
        #expect(buffer.counters == RecordingCounters(accepted: 2, unwritten: 2))
        #expect(buffer.currentPhase == .failed)
    }
}
