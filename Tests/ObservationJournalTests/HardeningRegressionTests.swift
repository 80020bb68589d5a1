import CSQLite
import Dispatch
import Foundation
@testable import ObservationJournal
import ObserverCore
import Testing
import TestSupport

/// One small test per bug the reliability harnesses found (see RELIABILITY.md), so each fix
/// stays fixed even if the harness that found it changes.
@Suite struct HardeningRegressionTests {
    /// Found by the fault matrix: a statement that failed to prepare after the session's
    /// row was committed made `startSession` throw but left an empty session behind, never
    /// ended, which `diagnose` then reported as an unclean session.
    @Test(arguments: ["UPDATE sessions SET ended_at", "INSERT INTO events", "INSERT INTO event_details", "SELECT id FROM strings"])
    func sessionThatFailsToStartLeavesNoRow(statement: String) throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        var options = Journal.Options()
        options.faults = SQLiteFaultPlan(failing: 1, at: .prepare, sqlContains: statement, with: SQLITE_NOMEM)
        let journal = try Journal.open(path: path, options: options)
        #expect(throws: JournalError.self) { try journal.startSession(label: "no memory") }
        #expect(try scalar(path, "SELECT count(*) FROM sessions") == 0)
    }
}

extension HardeningRegressionTests {
    /// Found by the hostile-value test: text was bound as a C string, so everything after
    /// a NUL was lost: `"a\0b"` was stored as `"a"`, and two keys differing after a NUL
    /// were interned as one string, so their channels looked like one.
    @Test func textWithNULIsStoredWhole() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let recording = try Journal.open(path: path).startSession(label: "nul\0label")
        let subject = Player()
        let first = ObservableValue("", subject: subject, key: "key\0one", registry: recording.registry)
        let second = ObservableValue("", subject: subject, key: "key\0two", registry: recording.registry)
        first.value = "value\0one"
        second.value = "value\0two"
        recording.close()
        #expect(try rows(path, "SELECT hex(label) FROM sessions") == ["6E756C006C6162656C"])
        #expect(try rows(path, "SELECT hex(value) FROM strings WHERE hex(value) LIKE '6B657900%' ORDER BY id")
            == ["6B6579006F6E65", "6B65790074776F"])
        #expect(try rows(path, "SELECT hex(old_value), hex(new_value) FROM events WHERE kind = (SELECT code FROM event_kinds WHERE name = 'changed') ORDER BY seq")
            == ["|76616C7565006F6E65", "|76616C75650074776F"])
    }
}

extension HardeningRegressionTests {
    /// Found by the two-process test under ThreadSanitizer (where everything runs ten times
    /// slower): another writer held the journal's write lock for longer than one busy
    /// timeout, `BEGIN IMMEDIATE` failed with `SQLITE_BUSY`, and recording stopped, losing
    /// every later event. Nothing has been written when BEGIN fails, so it is tried again
    /// (up to `SQLiteDatabase.busyRetries` more busy timeouts).
    @Test func writerOutlastsAnotherWriterHoldingTheLockLongerThanOneTimeout() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let journal = try Journal.open(path: path, options: .init(busyTimeoutMilliseconds: 50, batchDelayMilliseconds: 60_000))
        let recording = try journal.startSession(label: "patient")
        let holder = try SQLiteDatabase(path: path, mode: .readWrite)
        try holder.execute("BEGIN IMMEDIATE")
        let flushed = DispatchSemaphore(value: 0)
        Thread {
            recording.registry.beginScope("waits").end()
            recording.flush()
            flushed.signal()
        }.start()
        // Four busy timeouts of the recording session.
        usleep(200_000)
        try holder.execute("COMMIT")
        flushed.wait()
        recording.close()
        #expect(recording.lastError == nil)
        #expect(recording.counters == RecordingCounters(accepted: 2, written: 2))
        #expect(try rows(path, "SELECT events, clean_end FROM session_summary") == ["2|1"])
    }

    /// A lock that is never released still ends in an error the app hears of.
    @Test func writerGivesUpOnALockThatIsNeverReleased() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        var options = Journal.Options(batchDelayMilliseconds: 60_000)
        // The first write transaction after one per migration and the session's own row.
        let firstBatch = JournalSchema.embeddedMigrations.count + 2
        options.faults = SQLiteFaultPlan(failing: firstBatch, at: .step, sqlContains: "BEGIN IMMEDIATE", with: SQLITE_BUSY, persists: true)
        let recording = try Journal.open(path: path, options: options).startSession(label: "busy")
        recording.registry.beginScope("never").end()
        recording.flush()
        recording.close()
        #expect(recording.lastError?.description.contains("SQLITE_BUSY") == true)
        #expect(recording.counters == RecordingCounters(accepted: 2, written: 0, dropped: 0, unwritten: 2))
    }
}
