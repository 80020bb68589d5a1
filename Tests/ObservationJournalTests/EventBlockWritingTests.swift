import Foundation
@testable import JournalStore
@testable import ObservationJournal
import ObserverCore
import Testing
import TestSupport

/// How the writer cuts a session's events into `event_packs` rows (docs/EVENT-BLOCKS.md): at 256
/// events, before the body would pass 4 MiB, before every COMMIT; and which events go to
/// `event_rows` instead. The `events` view reads them all back, merged by seq.
@Suite struct EventBlockWritingTests {
    static let blocks = "SELECT first_seq, first_seq + event_count - 1, event_count FROM event_packs ORDER BY first_seq"

    @Test func blocksCloseAt256EventsAndAtEveryCommit() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let recording = try Journal.open(path: path, options: .init(batchDelayMilliseconds: 60_000)).startSession(label: "blocks")
        let value = ObservableValue(0, subject: Player(), key: "count", registry: recording.registry)
        let owner = Screen("app")
        let token = value.observe(owner: owner) { _, _ in }
        // 1 registration, then a change and its delivery each: 601 events in one commit.
        for number in 1...300 { value.value = number }
        recording.flush()
        #expect(try rows(path, Self.blocks) == ["1|256|256", "257|512|256", "513|601|89"])
        value.value = 301
        recording.flush()
        #expect(try rows(path, Self.blocks).last == "602|603|2")
        recording.close()
        _ = token
        #expect(try rows(path, "SELECT count(*) FROM event_rows") == ["0"])
        // Closing wrote one more event (the registration's removal).
        #expect(try rows(path, "SELECT count(*), min(seq), max(seq), count(DISTINCT seq) FROM events") == ["604|1|604|604"])
        #expect(try rows(path, "SELECT new_value FROM events WHERE seq = 602") == ["301"])
    }

    @Test func anEventWithANULGoesToEventRowsBetweenBlocks() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let recording = try Journal.open(path: path, options: .init(batchDelayMilliseconds: 60_000)).startSession(label: "nul")
        let value = ObservableValue("", subject: Player(), key: "name", registry: recording.registry)
        let owner = Screen("app")
        let token = value.observe(owner: owner) { _, _ in }
        for text in ["a", "b\0c", "d"] { value.value = text }
        recording.close()
        _ = token
        // Change 6 has the NUL too, as its old value; event 8 is the removal at close.
        #expect(try rows(path, Self.blocks) == ["1|3|3", "5|5|1", "7|8|2"])
        #expect(try rows(path, "SELECT seq, hex(old_value), hex(new_value) FROM event_rows") == ["4|61|620063", "6|620063|64"])
        #expect(try rows(path, "SELECT seq, hex(new_value) FROM events WHERE new_value IS NOT NULL ORDER BY seq")
            == ["2|61", "4|620063", "6|64"])
    }

    @Test func blocksStayUnder4MiBAndAnEventLargerGoesToEventRows() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let options = Journal.Options(values: ValueRecording(maxLength: 8 << 20), batchDelayMilliseconds: 60_000)
        let recording = try Journal.open(path: path, options: options).startSession(label: "large")
        let value = ObservableValue("", subject: Player(), key: "text", registry: recording.registry)
        let owner = Screen("app")
        let token = value.observe(owner: owner) { _, _ in }
        let mebibyte = 1 << 20
        value.value = String(repeating: "x", count: 5 * mebibyte)
        for letter in ["a", "b", "c"] { value.value = String(repeating: letter, count: mebibyte + mebibyte / 2) }
        recording.close()
        _ = token
        // Change 4 holds the 5 MiB text as its old value; changes 6 and 8 hold 3 MiB each,
        // so two do not fit one block; event 10 is the removal at close.
        #expect(try rows(path, "SELECT seq, length(old_value), length(new_value) FROM event_rows")
            == ["2|0|\(5 * mebibyte)", "4|\(5 * mebibyte)|\(mebibyte + mebibyte / 2)"])
        let sizes = try rows(path, "SELECT first_seq, first_seq + event_count - 1, event_count, length(body) <= \(EventBlock.maxBodyBytes) FROM event_packs ORDER BY first_seq")
        #expect(sizes == ["1|1|1|1", "3|3|1|1", "5|7|3|1", "8|10|3|1"])
        #expect(try rows(path, "SELECT seq, length(new_value) FROM events WHERE kind = 4 ORDER BY seq")
            == ["2|\(5 * mebibyte)", "4|\(mebibyte + mebibyte / 2)", "6|\(mebibyte + mebibyte / 2)", "8|\(mebibyte + mebibyte / 2)"])
    }

    /// A change, delivery or skip appended in one call (`appendChange`, `appendDelivery`:
    /// the writer's frequent events) is the bytes `append` writes for its `Row`, for every
    /// digit count and sign of each column, NULL or not, texts to escape, quoted numbers and
    /// bools; and an event the block refuses is taken back out as `append` takes it.
    @Test func frequentEventsAreTheBytesOfTheirRows() {
        let integers: [Int64] = [0, 1, 7, 9, 10, 99, 100, 12_345, 1_000_000_007, -1, -10, .max, .min]
        let texts: [ValueText?] = [nil, .integer(0), .integer(-42), .integer(.min), .bool(true), .bool(false), .text(""), .text("say \"hi\"\n"), .text("é 😀")]
        let start: UInt64 = 1_000
        var viaRows = EventBlockEncoder()
        var direct = EventBlockEncoder()
        var seq: Int64 = 1
        for (index, integer) in integers.enumerated() {
            let other = integers[(index + 5) % integers.count]
            let maybe: Int64? = index % 3 == 0 ? nil : other
            let time = start &+ UInt64(truncatingIfNeeded: integer.magnitude % 1_000_000_000)
            let depth = Int(integer % 50)
            // A change.
            var change = SessionWriter.Row(
                seq: seq, time: time, kind: .changed, thread: integer.magnitude, isMain: index % 2 == 0,
                isMainQueue: index % 3 == 1, depth: depth, isPrior: index % 4 == 0
            )
            change.channel = maybe
            change.callSite = index % 2 == 0 ? other : nil
            change.liveCount = other
            change.new = texts[index % texts.count]
            change.old = texts[(index + 4) % texts.count]
            _ = SessionWriter.append(change, start: start, to: &viaRows)
            let changed = direct.appendChange(
                seq: seq, timeNs: Int64(bitPattern: time &- start), thread: Int64(bitPattern: integer.magnitude),
                isMain: change.isMain, isMainQueue: index % 3 == 1, channel: maybe, callSite: change.callSite,
                liveCount: other, new: change.new, old: change.old, depth: depth == 0 ? nil : Int64(depth),
                isPrior: change.isPrior
            )
            #expect(changed == .added)
            seq += 1
            // A delivery, then a skip.
            for delivered in [true, false] {
                var delivery = SessionWriter.Row(
                    seq: seq, time: time &+ 5, kind: delivered ? .delivered : .skipped, thread: other.magnitude,
                    isMain: index % 2 == 1, isMainQueue: index % 3 == 0, depth: depth, isPrior: false
                )
                delivery.channel = other
                delivery.registration = maybe
                delivery.owner = integer
                if delivered {
                    delivery.duration = integer
                    delivery.cpu = maybe
                    delivery.waits = index % 2 == 0 ? other : nil
                } else {
                    delivery.reason = JournalSkipReason.senderMismatch.name
                }
                delivery.changeSeq = index % 2 == 0 ? seq - 1 : nil
                _ = SessionWriter.append(delivery, start: start, to: &viaRows)
                let appended = direct.appendDelivery(
                    seq: seq, timeNs: Int64(bitPattern: time &+ 5 &- start), kind: delivery.kind,
                    thread: Int64(bitPattern: other.magnitude), isMain: delivery.isMain, isMainQueue: index % 3 == 0,
                    channel: other, registration: maybe, owner: integer, duration: delivery.duration, cpu: delivery.cpu,
                    changeSeqDelta: delivery.changeSeq.map { seq - $0 }, reason: delivery.reason, waits: delivery.waits,
                    depth: depth == 0 ? nil : Int64(depth)
                )
                #expect(appended == .added)
                seq += 1
            }
        }
        #expect(direct.body == viaRows.body)
        #expect(direct.count == viaRows.count)
        // A text with U+0000: refused, and the block is as it was.
        let before = direct.body
        let refused = direct.appendChange(
            seq: seq, timeNs: 0, thread: 1, isMain: true, isMainQueue: true, channel: 1, callSite: nil, liveCount: 1,
            new: .text("a\u{0}b"), old: nil, depth: nil, isPrior: false
        )
        #expect(refused == .refused)
        #expect(direct.body == before)
        #expect(direct.lastSeq == seq - 1)
    }
}

