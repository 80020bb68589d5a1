import CSQLite
import Foundation
@testable import ObservationJournal
import ObserverCore
import Synchronization
import Testing
import TestSupport

@Suite struct FaultInjectionTests {
    /// Collects what the error callback was given.
    final class Errors: Sendable {
        let received = Mutex<[JournalError]>([])
    }

    /// Records 5 events and flushes them (one block), then makes the block insert of the
    /// next batch fail (and every later call at that site). The app keeps running and receiving
    /// changes; the journal keeps the first batch, whole and consistent.
    @Test(arguments: [SQLITE_FULL, SQLITE_IOERR, SQLITE_BUSY, SQLITE_NOMEM])
    func writeFailureMidSessionStopsRecordingNotTheApp(code: Int32) throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        var options = Journal.Options(batchDelayMilliseconds: 60_000)
        options.faults = SQLiteFaultPlan(failing: 2, at: .step, sqlContains: "INSERT INTO events", with: code, persists: true)
        let errors = Errors()
        let recording = try Journal.open(path: path, options: options)
            .startSession(label: "failing") { error in errors.received.withLock { $0.append(error) } }
        let subject = Player()
        let owner = Screen("app")
        let value = ObservableValue(0, subject: subject, key: "count", registry: recording.registry)
        let delivered = Atomic<Int>(0)
        let token = value.observe(owner: owner) { _, _ in delivered.add(1, ordering: .relaxed) }
        value.value = 1
        value.value = 2
        recording.flush()
        #expect(recording.counters == RecordingCounters(accepted: 5, written: 5))

        for number in 3...6 { value.value = number }
        recording.flush()
        for number in 7...8 { value.value = number }
        recording.flush()
        #expect(delivered.load(ordering: .relaxed) == 8)
        #expect(recording.counters == RecordingCounters(accepted: 17, written: 5, dropped: 0, unwritten: 12))
        #expect(!recording.isRecording)
        let error = try #require(recording.lastError)
        let name = SQLiteError(code: code, message: "").codeName
        let message = String(cString: sqlite3_errstr(code))
        guard case let .sqlite(errorPath, detail) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(errorPath == path)
        #expect(detail.hasPrefix("\(name) (\(code)): \(message) [INSERT INTO events"))
        #expect(errors.received.withLock { $0 } == [error])

        recording.close()
        _ = token
        #expect(recording.counters == RecordingCounters(accepted: 17, written: 5, dropped: 0, unwritten: 12))
        #expect(try rows(path, "PRAGMA integrity_check") == ["ok"])
        #expect(try rows(path, "SELECT e.seq, k.name FROM events e JOIN event_kinds k ON k.code = e.kind ORDER BY e.seq")
            == ["1|registered", "2|changed", "3|delivered", "4|changed", "5|delivered"])
        #expect(try rows(path, "SELECT clean_end, ended_at FROM sessions") == ["0|NULL"])

        // The journal is still good for new sessions.
        let next = try Journal.open(path: path).startSession(label: "after")
        next.registry.beginScope("s").end()
        next.close()
        #expect(try rows(path, "SELECT label, events, clean_end FROM session_summary ORDER BY id")
            == ["failing|5|0", "after|2|1"])
        #expect(try eventsAreGapFree(path))
    }

    /// Whichever statement of a batch fails, the batch is rolled back whole.
    @Test(arguments: ["BEGIN IMMEDIATE", "INSERT INTO strings", "INSERT INTO objects", "INSERT INTO channels",
                      "INSERT INTO registrations", "INSERT INTO call_sites", "COMMIT"])
    func failureAtAnyStatementOfABatchRollsItBack(statement: String) throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        var options = Journal.Options(batchDelayMilliseconds: 60_000)
        // The migration and the session row use some of these statements before recording:
        // count only from the first batch on by matching the writer's exact statements.
        // One transaction per migration, one for the session row, then the first batch.
        let nth = statement == "BEGIN IMMEDIATE" || statement == "COMMIT" ? JournalSchema.embeddedMigrations.count + 2 : 1
        options.faults = SQLiteFaultPlan(failing: nth, at: .step, sqlContains: statement, with: SQLITE_FULL, persists: true)
        let journal = try Journal.open(path: path, options: options)
        let recording = try journal.startSession(label: "batch")
        let subject = Player()
        let value = ObservableValue(0, subject: subject, key: "count", registry: recording.registry)
        let owner = Screen("app")
        let token = value.observe(owner: owner) { _, _ in }
        value.value = 1
        recording.flush()
        #expect(recording.counters == RecordingCounters(accepted: 3, written: 0, dropped: 0, unwritten: 3))
        #expect(recording.lastError != nil)
        recording.close()
        _ = token
        #expect(try rows(path, "PRAGMA integrity_check") == ["ok"])
        #expect(try rows(path, """
            SELECT (SELECT count(*) FROM events), (SELECT count(*) FROM objects), (SELECT count(*) FROM channels),
                   (SELECT count(*) FROM registrations), (SELECT count(*) FROM call_sites)
            """) == ["0|0|0|0|0"])
        #expect(try rows(path, "SELECT clean_end FROM sessions") == ["0"])
    }

    /// Failing to start a session is an error to the caller, not a crash.
    @Test func sessionThatCannotStartThrows() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        var options = Journal.Options()
        options.faults = SQLiteFaultPlan(failing: 1, at: .step, sqlContains: "INSERT INTO sessions", with: SQLITE_FULL)
        let journal = try Journal.open(path: path, options: options)
        #expect(throws: JournalError.self) { try journal.startSession(label: "no room") }
        #expect(try scalar(path, "SELECT count(*) FROM sessions") == 0)
    }

    /// The fault plan counts per rule and fails only the chosen call.
    @Test func faultPlanFailsOnlyTheNthMatchingCall() throws {
        let plan = SQLiteFaultPlan([
            .init(site: .step, sqlContains: "SELECT 2", nth: 2, code: SQLITE_IOERR),
            .init(site: .prepare, nth: 4, code: SQLITE_NOMEM),
        ])
        let database = try SQLiteDatabase(path: ":memory:", mode: .readWriteCreate, faults: plan)
        #expect(try database.scalarInt("SELECT 1") == 1)          // prepare 1
        #expect(try database.scalarInt("SELECT 2") == 2)          // prepare 2, step 1 of SELECT 2
        #expect(throws: SQLiteError(code: SQLITE_IOERR, message: "disk I/O error", sql: "SELECT 2")) {
            try database.scalarInt("SELECT 2")                     // prepare 3, step 2 of SELECT 2
        }
        #expect(throws: SQLiteError(code: SQLITE_NOMEM, message: "out of memory", sql: "SELECT 3")) {
            try database.scalarInt("SELECT 3")                     // prepare 4
        }
        #expect(try database.scalarInt("SELECT 2") == 2)          // not persistent
        #expect(plan.injectedCount == 2)
    }
}

extension FaultInjectionTests {
    /// Holds the session so the error callback can close it.
    final class Holder: Sendable {
        let recording = Mutex<RecordingSession?>(nil)
    }

    /// Closing the session from its own error callback neither deadlocks nor crashes.
    @Test func errorCallbackMayCloseTheSession() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        var options = Journal.Options()
        options.faults = SQLiteFaultPlan(failing: 1, at: .step, sqlContains: "INSERT INTO events", with: SQLITE_FULL)
        let holder = Holder()
        let recording = try Journal.open(path: path, options: options).startSession(label: "close on error") { _ in
            holder.recording.withLock { $0 }?.close()
        }
        holder.recording.withLock { $0 = recording }
        recording.registry.beginScope("s").end()
        recording.flush()
        recording.close()
        #expect(recording.counters == RecordingCounters(accepted: 2, written: 0, dropped: 0, unwritten: 2))
        #expect(try rows(path, "SELECT count(*) FROM events") == ["0"])
        holder.recording.withLock { $0 = nil }
    }
}
