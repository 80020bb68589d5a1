import CSQLite
import Dispatch
import Foundation
@testable import JournalStore
@testable import ObservationJournal
import ObserverCore
import Synchronization
import Testing
import TestSupport

/// Fails every distinct SQLite call of the writer in turn, with each of `SQLITE_FULL`,
/// `SQLITE_IOERR`, `SQLITE_BUSY` and `SQLITE_NOMEM`, in each phase of a session: start,
/// batch commit, close.
///
/// A traced clean run lists the calls (site and SQL) each phase makes; then one run per
/// (phase, distinct call, code) fails the first such call of that phase. Every run must
/// end with: no crash or hang, the error reported to the app (thrown by `startSession`, or
/// `lastError` plus exactly one `onError`), the registry still delivering every change,
/// `unwritten` equal to the events accepted but not in the file, and a journal that passes
/// `integrity_check` and holds the gap-free prefix of the session that was committed.
/// (A busy `BEGIN IMMEDIATE` is the exception: it is waited out, and nothing is lost.)
@Suite(.skippedWhenQuick, .tags(.slow)) struct FaultMatrixTests {
    enum Phase: String, CaseIterable, Sendable {
        case start, batch, close
    }

    /// One injected failure: the `nth` call matching (site, SQL) fails with `code`.
    struct Fault: Sendable, CustomStringConvertible {
        var phase: Phase
        var call: SQLiteFaultPlan.Call
        var nth: Int
        var code: Int32

        var description: String {
            let sql = call.sql.map { String($0.prefix(60)).replacingOccurrences(of: "\n", with: " ") } ?? "-"
            return "\(phase) \(call.site) #\(nth) [\(sql)] \(SQLiteError(code: code, message: "").codeName)"
        }
    }

    /// What a run of the workload produced.
    struct Outcome: Sendable {
        var counters: RecordingCounters
        var delivered: Int
        var sessionID: Int64
        var lastError: JournalError?
        var reported: [JournalError]
        /// Events in the journal after the batch phase (clean run only).
        var eventsAfterBatch: Int
    }

    static let codes: [Int32] = [SQLITE_FULL, SQLITE_IOERR, SQLITE_BUSY, SQLITE_NOMEM]

    @Test func everyWriterCallFailingInEveryPhaseLeavesAppAndJournalWhole() throws {
        let scratch = try ScratchDirectory()
        let template = scratch.path("template.sqlite")
        _ = try Journal.open(path: template)

        // The clean, traced run: what each phase calls, and what a whole session yields.
        let tracePath = scratch.path("trace.sqlite")
        try FileManager.default.copyItem(atPath: template, toPath: tracePath)
        let tracer = SQLiteFaultPlan([], tracing: true)
        let marks = Mutex<[Phase: Int]>([:])
        let clean = try #require(try Self.runWorkload(path: tracePath, plan: tracer) { phase in
            marks.withLock { $0[phase] = tracer.calls.count }
        })
        #expect(clean.counters.written == clean.counters.accepted)
        #expect(clean.counters.unwritten == 0)
        #expect(try rows(tracePath, "SELECT events, clean_end FROM session_summary") == ["\(clean.counters.accepted)|1"])

        let faults = Self.faults(calls: tracer.calls, marks: marks.withLock { $0 })
        // Every phase has calls to fail, and the batch reaches both event tables: the rows of
        // `events` and the details of the rare events that have them.
        for phase in Phase.allCases {
            #expect(faults.contains { $0.phase == phase }, "no calls traced in \(phase)")
        }
        let inserts = Set(faults.compactMap { $0.phase == .batch ? $0.call.sql?.prefix(25) : nil }.filter { $0.hasPrefix("INSERT INTO event") })
        #expect(inserts == ["INSERT INTO events (sessi", "INSERT INTO event_details"])

        var injected = 0
        for (index, fault) in faults.enumerated() {
            let path = scratch.path("case-\(index).sqlite")
            try FileManager.default.copyItem(atPath: template, toPath: path)
            injected += try check(fault, path: path, clean: clean)
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        #expect(injected == faults.count)
        if ProcessInfo.processInfo.environment["RELIABILITY_FIGURES"] != nil {
            let calls = Set(faults.map { "\($0.phase) \($0.call)" }).count
            let phases = Phase.allCases.map { phase in
                "\(phase) \(Set(faults.filter { $0.phase == phase }.map { "\($0.call)" }).count)"
            }.joined(separator: ", ")
            print("fault matrix: \(calls) distinct (phase, call site) pairs (\(phases)) × \(Self.codes.count) codes = \(faults.count) runs, \(injected) faults injected, 0 events lost")
        }
    }

    /// One fault per (phase, distinct call, code): the first call of its kind in that phase.
    static func faults(calls: [SQLiteFaultPlan.Call], marks: [Phase: Int]) -> [Fault] {
        let bounds: [(Phase, Range<Int>)] = [
            (.start, marks[.start]!..<marks[.batch]!),
            (.batch, marks[.batch]!..<marks[.close]!),
            (.close, marks[.close]!..<calls.count),
        ]
        var result: [Fault] = []
        for (phase, range) in bounds {
            var seen = Set<SQLiteFaultPlan.Call>()
            for index in range where seen.insert(calls[index]).inserted {
                let call = calls[index]
                let rule = SQLiteFaultPlan.Rule(site: call.site, sqlContains: call.sql, nth: 1, code: 0)
                // The plan counts every call its rule matches, from the very first one.
                let nth = calls[...index].filter { rule.matches($0.site, sql: $0.sql) }.count
                for code in codes { result.append(Fault(phase: phase, call: call, nth: nth, code: code)) }
            }
        }
        return result
    }

    /// Runs one fault; returns how many calls the plan made fail (1).
    func check(_ fault: Fault, path: String, clean: Outcome) throws -> Int {
        let plan = SQLiteFaultPlan([
            .init(site: fault.call.site, sqlContains: fault.call.sql, nth: fault.nth, code: fault.code)
        ])
        let name = SQLiteError(code: fault.code, message: "").codeName
        let comment = Comment(rawValue: fault.description)
        if fault.code == SQLITE_BUSY && fault.call.sql == "BEGIN IMMEDIATE" {
            // Nothing is done before BEGIN succeeds, so a busy database is waited out
            // (`SQLiteDatabase.busyRetries`): the session records everything.
            let outcome = try #require(try Self.runWorkload(path: path, plan: plan), comment)
            #expect(outcome.lastError == nil, comment)
            #expect(outcome.counters == clean.counters, comment)
            #expect(outcome.delivered == clean.delivered, comment)
            #expect(try rows(path, "SELECT events, clean_end FROM session_summary") == ["\(clean.counters.accepted)|1"], comment)
            #expect(plan.injectedCount == 1, comment)
            return plan.injectedCount
        }
        switch fault.phase {
        case .start:
            var thrown: JournalError?
            do {
                _ = try Self.runWorkload(path: path, plan: plan)
            } catch let error as JournalError {
                thrown = error
            }
            guard case let .sqlite(errorPath, detail)? = thrown else {
                Issue.record(Comment(rawValue: "startSession did not throw the failure: \(String(describing: thrown)); \(fault)"))
                return plan.injectedCount
            }
            #expect(errorPath == path, comment)
            #expect(detail.hasPrefix(name) || detail.contains(name), comment)
            #expect(try rows(path, "PRAGMA integrity_check") == ["ok"], comment)
            // A session that could not start leaves no trace in the journal.
            #expect(try scalar(path, "SELECT count(*) FROM sessions") == 0, comment)
            // Nothing is left locked or half-done: the next session records everything.
            let retry = try #require(try Self.runWorkload(path: path, plan: plan), comment)
            #expect(retry.counters == clean.counters, comment)
            #expect(try rows(path, "SELECT events, clean_end FROM session_summary")
                == ["\(clean.counters.accepted)|1"], comment)
        case .batch, .close:
            let outcome = try #require(try Self.runWorkload(path: path, plan: plan), comment)
            // The app went on: every change reached every observer.
            #expect(outcome.delivered == clean.delivered, comment)
            #expect(outcome.counters.accepted == clean.counters.accepted, comment)
            // The first batch fails in the batch phase; the close phase fails the last one.
            let committed = fault.phase == .batch ? 0 : clean.eventsAfterBatch
            #expect(outcome.counters == RecordingCounters(
                accepted: clean.counters.accepted, written: committed, dropped: 0,
                unwritten: clean.counters.accepted - committed
            ), comment)
            guard case let .sqlite(errorPath, detail)? = outcome.lastError else {
                Issue.record(Comment(rawValue: "no error reached the app: \(String(describing: outcome.lastError)); \(fault)"))
                return plan.injectedCount
            }
            #expect(errorPath == path, comment)
            #expect(detail.hasPrefix(name), comment)
            #expect(outcome.reported == [outcome.lastError!], comment)
            #expect(try rows(path, "PRAGMA integrity_check") == ["ok"], comment)
            #expect(try rows(path, """
                SELECT (SELECT count(*) FROM events), (SELECT coalesce(max(seq), 0) FROM events), clean_end FROM sessions
                """) == ["\(committed)|\(committed)|0"], comment)
            #expect(try eventsAreGapFree(path), comment)
        }
        #expect(plan.injectedCount == 1, comment)
        return plan.injectedCount
    }

    /// Records the workload into `path` with `plan`, calling `mark` as each phase begins;
    /// `nil` only if the workload hung (recorded as an issue).
    static func runWorkload(
        path: String, plan: SQLiteFaultPlan, mark: (@Sendable (Phase) -> Void)? = nil
    ) throws -> Outcome? {
        let result = Mutex<Result<Outcome, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        // On a thread of its own, so that a hang fails this run instead of the whole suite.
        Thread {
            result.withLock { $0 = Result { try workload(path: path, plan: plan, mark: mark) } }
            done.signal()
        }.start()
        guard done.wait(timeout: .now() + 60) == .success else {
            Issue.record("the workload did not finish within 60 s")
            return nil
        }
        return try result.withLock { $0 }!.get()
    }

    /// The workload: makes every kind of event and every kind of row, in two batches.
    private static func workload(path: String, plan: SQLiteFaultPlan, mark: (@Sendable (Phase) -> Void)?) throws -> Outcome {
        var options = Journal.Options(creation: .openExisting, batchDelayMilliseconds: 60_000)
        options.faults = plan
        let journal = try Journal.open(path: path, options: options)
        let reported = Mutex<[JournalError]>([])
        mark?(.start)
        let recording = try journal.startSession(label: "matrix") { error in reported.withLock { $0.append(error) } }
        mark?(.batch)
        let registry = recording.registry
        let delivered = Atomic<Int>(0)
        let count: @Sendable (AnyObject, Any) -> Void = { _, _ in delivered.add(1, ordering: .relaxed) }
        let player = Player()
        var a: Screen? = Screen("a")
        let b = Screen("b")
        let value = ObservableValue(0, subject: player, key: "count", registry: registry)
        let scope = registry.beginScope("screen")
        let tokenA = value.observe(owner: a!, options: [.new, .onlyWhenChanged], scope: scope) { count($0, $1) }
        let tokenB = value.observe(owner: b, options: [.initial, .new]) { count($0, $1) }
        let queue = DispatchQueue(label: "matrix.queue")
        let queued = value.observe(owner: b, queue: queue) { count($0, $1) }
        for number in 1...12 { value.value = number }
        value.value = 12
        queue.sync {}
        queued.cancel()
        let slot = CallbackProperty<Int>(subject: player, key: "progress", registry: registry)
        slot.assign(owner: a!) { count($0, $1) }
        slot.assign(owner: b) { count($0, $1) }
        slot.call(1)
        let tick = registry.observe(notification: "tick", sender: player, owner: b, queue: nil) { count($0, $1) }
        registry.post(notification: "tick", payload: 1)
        registry.post(notification: "tick", sender: player, payload: 2)
        tokenB.cancel()
        tokenB.cancel()
        registry.removeObservers(owner: b, subject: player, key: "cuont")
        scope.end()
        var gone: Player? = Player()
        let goneValue = ObservableValue("x", subject: gone!, key: "name", registry: registry)
        let goneToken = goneValue.observe(owner: b) { count($0, $1) }
        goneValue.value = "y\0z"
        recording.flush()
        let eventsAfterBatch = recording.counters.written

        mark?(.close)
        value.value = 100
        a = nil
        gone = nil
        // Sweep now rather than in close(), so every run accepts the same events whether
        // or not recording has stopped by then.
        registry.sweep()
        recording.close()
        _ = (tokenA, tick, goneToken, goneValue)
        return Outcome(
            counters: recording.counters, delivered: delivered.load(ordering: .relaxed),
            sessionID: recording.sessionID, lastError: recording.lastError,
            reported: reported.withLock { $0 }, eventsAfterBatch: eventsAfterBatch
        )
    }
}
