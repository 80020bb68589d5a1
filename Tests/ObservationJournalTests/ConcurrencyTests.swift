import Dispatch
import Foundation
@testable import ObservationJournal
import ObserverCore
import Synchronization
import Testing
import TestSupport

@Suite struct ConcurrencyTests {
    /// Many threads dropping into a full buffer while the writer, held up at first by
    /// another connection's write lock, drains it again: every event is either written or
    /// counted in exactly one gap, the numbers stay gap-free, and no two gaps are adjacent.
    @Test func manyThreadsDroppingWhileTheWriterDrainsCountEveryEventOnce() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let journal = try Journal.open(path: path, options: .init(
            bufferCapacity: 16, whenBufferFull: .drop, batchDelayMilliseconds: 0))
        let recording = try journal.startSession(label: "drops from threads")
        nonisolated(unsafe) let blocker = try SQLiteDatabase(path: path, mode: .readWrite)
        try blocker.execute("BEGIN IMMEDIATE")
        let registry = recording.registry
        let threads = 6
        let scopes = 1_500
        let begun = Atomic<Int>(0)
        // One more iteration lets the writer go once a third of the scopes were begun, so
        // producers drop while it is held up and claim room again while it drains.
        DispatchQueue.concurrentPerform(iterations: threads + 1) { index in
            if index == threads {
                while begun.load(ordering: .relaxed) < threads * scopes / 3 { usleep(100) }
                try? blocker.execute("COMMIT")
                return
            }
            for number in 0..<scopes {
                registry.beginScope("scope \(index).\(number)").end()
                begun.add(1, ordering: .relaxed)
            }
        }
        recording.close()

        let counters = recording.counters
        #expect(recording.lastError == nil)
        #expect(counters.dropped > 0)
        #expect(counters.accepted + counters.dropped == 2 * threads * scopes)
        #expect(counters.written == counters.accepted && counters.unwritten == 0)
        #expect(try eventsAreGapFree(path))
        let gap = "(SELECT code FROM event_kinds WHERE name = 'gap')"
        let dropped = try rows(path, "SELECT detail FROM event_log WHERE kind = 'gap'")
            .compactMap { Int($0.split(separator: "=").last!) }.reduce(0, +)
        #expect(dropped == counters.dropped)
        #expect(try scalar(path, "SELECT count(*) FROM events WHERE kind != \(gap)") == Int64(counters.accepted))
        #expect(try scalar(path, """
            SELECT count(*) FROM events a JOIN events b ON b.session_id = a.session_id AND b.seq = a.seq + 1
            WHERE a.kind = \(gap) AND b.kind = a.kind
            """) == 0)
    }

    /// Many threads recording at once: every event is there, numbered 1…k, and each
    /// channel's changes are in the order they were made.
    @Test func manyThreadsRecordIntoOneSessionGapFreeAndInOrder() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        // A small buffer, so threads also wait for room.
        let journal = try Journal.open(path: path, options: .init(bufferCapacity: 64))
        let recording = try journal.startSession(label: "threads")
        let registry = recording.registry
        let threads = 8
        let changes = 500
        let sharedSubject = Player()
        let shared = ObservableValue(0, subject: sharedSubject, key: "shared", registry: registry)
        let sharedOwner = Screen("shared")
        let sharedToken = shared.observe(owner: sharedOwner) { _, _ in }
        let delivered = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: threads) { index in
            let player = Player()
            let owner = Screen("\(index)")
            let value = ObservableValue(0, subject: player, key: "value\(index)", registry: registry)
            let token = value.observe(owner: owner) { _, _ in delivered.add(1, ordering: .relaxed) }
            for number in 1...changes {
                value.value = number
                if number % 10 == 0 { shared.value = number }
            }
            token.cancel()
        }
        _ = sharedToken
        recording.close()
        _ = sharedSubject

        let sharedChanges = threads * changes / 10
        let expected = 1 + threads * (1 + 2 * changes + 1) + 2 * sharedChanges
        #expect(delivered.load(ordering: .relaxed) == threads * changes)
        #expect(recording.counters == RecordingCounters(accepted: expected, written: expected))
        #expect(try scalar(path, "SELECT count(*) FROM events") == Int64(expected))
        #expect(try eventsAreGapFree(path))
        // Per channel: registered, then changed/delivered pairs with values 1…n, then removed.
        for index in 0..<threads {
            let kinds = try rows(path, """
                SELECT k.name || coalesce(':' || e.new_value, '') FROM events e JOIN channel_names c
                ON c.session_id = e.session_id AND c.id = e.channel_id JOIN event_kinds k ON k.code = e.kind
                WHERE c.key = 'value\(index)' ORDER BY e.seq
                """)
            let pairs = (1...changes).flatMap { ["changed:\($0)", "delivered"] }
            #expect(kinds == ["registered"] + pairs + ["removed"])
        }
        // The shared channel saw every thread's changes, each followed by its delivery.
        let sharedKinds = try rows(path, """
            SELECT k.name FROM events e JOIN channel_names c ON c.session_id = e.session_id AND c.id = e.channel_id
            JOIN event_kinds k ON k.code = e.kind WHERE c.key = 'shared' AND k.name IN ('changed', 'delivered') ORDER BY e.seq
            """)
        #expect(sharedKinds.filter { $0 == "changed" }.count == sharedChanges)
        #expect(sharedKinds.filter { $0 == "delivered" }.count == sharedChanges)
    }

    /// A separate read-only connection, and another process (the sqlite3 shell), see what
    /// the writer committed while the session is still recording.
    @Test(.tags(.childProcess)) func readersSeeCommittedEventsWhileRecording() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let journal = try Journal.open(path: path)
        let recording = try journal.startSession(label: "live")
        let value = ObservableValue(0, subject: Player(), key: "count", registry: recording.registry)
        let owner = Screen("reader")
        let token = value.observe(owner: owner) { _, _ in }
        for number in 1...10 { value.value = number }
        recording.flush()

        let reader = try JournalFile.openForReading(path: path)
        // The reader's hardened connection runs no views: it counts the tables.
        #expect(try reader.scalarInt("SELECT count(*) FROM events") == 21)
        #expect(try run("/usr/bin/env", ["sqlite3", "-readonly", path, "SELECT count(*), max(seq) FROM events"]) == "21|21\n")
        #expect(try reader.scalarInt("SELECT clean_end FROM sessions WHERE ended_at IS NULL") == 0)

        let before = try reader.scalarInt("PRAGMA data_version")
        for number in 11...20 { value.value = number }
        recording.flush()
        #expect(try reader.scalarInt("PRAGMA data_version") != before)
        #expect(try reader.scalarInt("SELECT count(*) FROM events") == 41)
        #expect(try run("/usr/bin/env", ["sqlite3", "-readonly", path, "SELECT count(*), max(seq) FROM events"]) == "41|41\n")
        _ = token
        recording.close()
        #expect(try reader.scalarInt("SELECT clean_end FROM sessions") == 1)
    }

    /// Two sessions recording into one file at once, each numbered on its own.
    @Test func twoSessionsRecordIntoOneFileAtOnce() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let journal = try Journal.open(path: path)
        let sessions = [try journal.startSession(label: "one"), try journal.startSession(label: "two")]
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let subject = Player()
            let value = ObservableValue(0, subject: subject, key: "k", registry: sessions[index].registry)
            let owner = Screen("s")
            let token = value.observe(owner: owner) { _, _ in }
            for number in 1...(300 * (index + 1)) { value.value = number }
            token.cancel()
        }
        sessions.forEach { $0.close() }
        #expect(try rows(path, "SELECT label, events, clean_end FROM session_summary ORDER BY id")
            == ["one|602|1", "two|1202|1"])
        #expect(try eventsAreGapFree(path))
        // Interned strings are shared, not duplicated.
        #expect(try scalar(path, "SELECT count(*) FROM strings WHERE value = 'k'") == 1)
    }
}
