import Foundation
@testable import ObservationJournal
import ObserverCore
import Testing

/// The ring's storage: every entry copied in is freed exactly once, whether the writer
/// took it, it was left in the ring at the end (also around gaps, and after a failure),
/// or the ring wrapped.
@Suite struct RingStorageTests {
    /// A value whose lifetime the test watches.
    final class Tracked: Sendable, CustomStringConvertible {
        let number: Int
        init(_ number: Int) { self.number = number }
        var description: String { "\(number)" }
    }

    static func change(_ buffer: EventBuffer, _ value: Tracked, time: UInt64) {
        buffer.recordChange(
            EventRecord(kind: .changed, flags: [], time: time, thread: 1, channel: 0, depth: 0),
            values: ChangeValues(old: nil, new: value), callSite: nil
        )
    }

    /// Entries left in a ring that wrapped, with gaps among them, are freed with the
    /// buffer; those the writer took are freed once the batch goes.
    @Test func entriesLeftAroundGapsAreFreedWithTheBuffer() throws {
        var watched: [Weak] = []
        var taken: [Int] = []
        do {
            let buffer = EventBuffer(capacity: 3, policy: .drop, gatherMilliseconds: 0)
            var spare = PendingEvents()
            var number = 0
            // Two rounds through the ring of 4 (3 places and a gap each), taken and freed.
            for _ in 0..<2 {
                for _ in 0..<5 {
                    number += 1
                    let value = Tracked(number)
                    watched.append(Weak(value))
                    Self.change(buffer, value, time: UInt64(number))
                }
                let batch = try #require(buffer.takeBatch(swapping: &spare))
                taken += batch.pending.changes.compactMap { ($0.new?.value as? Tracked)?.number }
                #expect(batch.gap?.dropped == 2)
                buffer.committed(batch)
            }
            // Left in the ring: three entries (places 8…10, at indices used twice before) and a gap.
            for _ in 0..<4 {
                number += 1
                let value = Tracked(number)
                watched.append(Weak(value))
                Self.change(buffer, value, time: UInt64(number))
            }
            #expect(buffer.counters == RecordingCounters(accepted: 9, written: 6, dropped: 5))
        }
        #expect(taken == [1, 2, 3, 6, 7, 8])
        #expect(watched.filter { $0.object != nil }.map { $0.number } == [])
    }

    /// A delivery has no detail and a change's call site is kept beside its values: each
    /// reaches the writer with its own record, in order, at indices used before; entries
    /// left in the ring (with and without a call site) are freed with the buffer.
    @Test func callSitesAndDeliveriesKeepTheirPlacesInAWrappedRing() throws {
        var watched: [Weak] = []
        var files: [String?] = []
        var kinds: [EventRecord.Kind] = []
        var values: [Int] = []
        do {
            let buffer = EventBuffer(capacity: 4, policy: .drop, gatherMilliseconds: 0)
            var spare = PendingEvents()
            var number = 0
            // Three rounds of two changes (the second with a call site) and their deliveries,
            // four places each: the first two taken, the last left in the ring.
            for round in 0..<3 {
                for _ in 0..<2 {
                    number += 1
                    let value = Tracked(number)
                    watched.append(Weak(value))
                    buffer.recordChange(
                        EventRecord(kind: .changed, flags: [], time: UInt64(number), thread: 1, channel: 0, depth: 0),
                        values: ChangeValues(old: nil, new: value),
                        callSite: number % 2 == 0 ? CallSite(file: "App/F\(number).swift", line: number, function: "f()") : nil
                    )
                    buffer.record(EventRecord(kind: .delivered, flags: [], time: UInt64(number), thread: 1, channel: 0, depth: 0))
                }
                guard round < 2 else { break }
                let batch = try #require(buffer.takeBatch(swapping: &spare))
                kinds += batch.pending.records.map(\.kind)
                files += batch.pending.changes.map { $0.callSite?.file }
                values += batch.pending.changes.compactMap { ($0.new?.value as? Tracked)?.number }
                buffer.committed(batch)
            }
            #expect(buffer.counters == RecordingCounters(accepted: 12, written: 8, dropped: 0))
        }
        #expect(kinds == [.changed, .delivered, .changed, .delivered, .changed, .delivered, .changed, .delivered])
        #expect(files == [nil, "App/F2.swift", nil, "App/F4.swift"])
        #expect(values == [1, 2, 3, 4])
        #expect(watched.filter { $0.object != nil }.map { $0.number } == [])
    }

    /// After a write failure the entries still in the ring are counted unwritten and freed
    /// with the buffer.
    @Test func entriesLeftAfterAFailureAreFreedWithTheBuffer() throws {
        var watched: [Weak] = []
        do {
            let buffer = EventBuffer(capacity: 4, policy: .wait, gatherMilliseconds: 0)
            var spare = PendingEvents()
            for number in 1...3 {
                let value = Tracked(number)
                watched.append(Weak(value))
                Self.change(buffer, value, time: UInt64(number))
            }
            let batch = try #require(buffer.takeBatch(swapping: &spare))
            for number in 4...7 {
                let value = Tracked(number)
                watched.append(Weak(value))
                Self.change(buffer, value, time: UInt64(number))
            }
            buffer.failed(batch, error: .sqlite(path: "ring", detail: "injected failure"))
            buffer.announced()
            let late = Tracked(8)
            watched.append(Weak(late))
            Self.change(buffer, late, time: 8)
            #expect(buffer.counters == RecordingCounters(accepted: 8, written: 0, unwritten: 8))
            #expect(buffer.takeBatch(swapping: &spare) == nil)
        }
        #expect(watched.filter { $0.object != nil }.map { $0.number } == [])
    }

    /// A producer still copying its entry in when writing fails: the event is counted
    /// unwritten, and its entry, written into the ring after the failure, is freed with
    /// the buffer.
    @Test func anEntryCopiedInAfterAFailureIsCountedAndFreed() throws {
        var watched: [Weak] = []
        do {
            let buffer = EventBuffer(capacity: 4, policy: .wait, gatherMilliseconds: 0)
            var spare = PendingEvents()
            let first = Tracked(1)
            watched.append(Weak(first))
            Self.change(buffer, first, time: 1)
            let stalled = try #require(claimPlace(buffer))
            let batch = try #require(buffer.takeBatch(swapping: &spare))
            #expect(batch.pending.records.map(\.time) == [1])
            buffer.failed(batch, error: .sqlite(path: "ring", detail: "injected failure"))
            buffer.announced()
            let late = Tracked(2)
            watched.append(Weak(late))
            buffer.write(
                stalled, EventRecord(kind: .changed, flags: [], time: 2, thread: 1, channel: 0, depth: 0),
                .change(ChangeValues(old: nil, new: late))
            )
            #expect(buffer.counters == RecordingCounters(accepted: 2, written: 0, unwritten: 2))
        }
        #expect(watched.filter { $0.object != nil }.map { $0.number } == [])
    }

    final class Weak {
        weak var object: Tracked?
        let number: Int
        init(_ object: Tracked) {
            self.object = object
            number = object.number
        }
    }
}
