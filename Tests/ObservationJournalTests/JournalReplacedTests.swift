import Foundation
@testable import ObservationJournal
import ObserverCore
import Synchronization
import Testing
import TestSupport

/// The journal's file is deleted, or replaced by another file, while a session records
/// into it: recording must stop with an error the app hears of (not go on writing into a
/// file nobody can read), the registry must keep delivering, the counters must say how
/// much was lost, and a replacement file must be left exactly as it was.
@Suite struct JournalReplacedTests {
    /// What the error callback was given.
    final class Reported: Sendable {
        let errors = Locked<[JournalError]>([])
    }

    /// Records `count` changes on `value` (a change and a delivery each).
    func change(_ value: ObservableValue<Int>, _ range: ClosedRange<Int>) {
        for number in range { value.value = number }
    }

    @Test func deletedJournalStopsRecordingWithAnError() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let reported = Reported()
        let recording = try Journal.open(path: path, options: .init(batchDelayMilliseconds: 60_000))
            .startSession(label: "deleted") { error in reported.errors.withLock { $0.append(error) } }
        let subject = Player()
        let value = ObservableValue(0, subject: subject, key: "count", registry: recording.registry)
        let owner = Screen("app")
        let delivered = Atomic<Int>(0)
        let token = value.observe(owner: owner) { _, _ in delivered.add(1, ordering: .relaxed) }
        change(value, 1...10)
        recording.flush()
        #expect(recording.counters == RecordingCounters(accepted: 21, written: 21))

        // `rm journal.sqlite`: the side files stay.
        unlink(path)
        change(value, 11...20)
        recording.flush()
        change(value, 21...25)
        recording.close()
        _ = (token, subject)

        #expect(delivered.load(ordering: .relaxed) == 25)
        #expect(!recording.isRecording)
        // The batch after the deletion and everything after it: 2 × 10 + 2 × 5 events.
        #expect(recording.counters == RecordingCounters(accepted: 51, written: 21, dropped: 0, unwritten: 30))
        let error = try #require(recording.lastError)
        #expect(error.description.hasPrefix("\(path): "))
        #expect(error.description.contains("removed or replaced"))
        #expect(reported.errors.withLock { $0 } == [error])
        // Nothing was written back to the path, and the stale WAL went with the session.
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        // A new journal made at the path holds only its own session.
        let next = try Journal.open(path: path).startSession(label: "new")
        next.registry.beginScope("s").end()
        next.close()
        #expect(try rows(path, "PRAGMA integrity_check") == ["ok"])
        #expect(try rows(path, "SELECT label, events, clean_end FROM session_summary") == ["new|2|1"])
    }

    @Test func replacedJournalStopsRecordingAndTheNewFileIsLeftAlone() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let recording = try Journal.open(path: path, options: .init(batchDelayMilliseconds: 60_000))
            .startSession(label: "replaced")
        let subject = Player()
        let value = ObservableValue(0, subject: subject, key: "count", registry: recording.registry)
        let owner = Screen("app")
        let delivered = Atomic<Int>(0)
        let token = value.observe(owner: owner) { _, _ in delivered.add(1, ordering: .relaxed) }
        change(value, 1...10)
        recording.flush()

        // Another journal, complete and closed, is moved over the path.
        let other = scratch.path("other.sqlite")
        let replacement = try Journal.open(path: other).startSession(label: "replacement")
        replacement.registry.beginScope("s").end()
        replacement.close()
        let before = try #require(bytes(other))
        #expect(rename(other, path) == 0)

        change(value, 11...20)
        recording.flush()
        recording.close()
        _ = (token, subject)

        #expect(delivered.load(ordering: .relaxed) == 20)
        #expect(recording.counters == RecordingCounters(accepted: 41, written: 21, dropped: 0, unwritten: 20))
        #expect(recording.lastError?.description.contains("removed or replaced") == true)
        // The replacement is byte for byte what was moved there, with no stale side files
        // that a reader would apply to it.
        #expect(bytes(path) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(try rows(path, "PRAGMA integrity_check") == ["ok"])
        #expect(try rows(path, "SELECT label, events, clean_end FROM session_summary") == ["replacement|2|1"])
    }
}
