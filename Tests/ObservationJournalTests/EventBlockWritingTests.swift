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
}

