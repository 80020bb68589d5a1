import Foundation
@testable import ObservationJournal
import ObserverCore
import Testing
import TestSupport

/// SIGKILLs a process recording a busy workload at random moments; after each kill the
/// journal must be whole: it opens, passes `integrity_check`, every session is a gap-free
/// prefix 1…k whose rows refer only to rows that exist, the killed session is not marked
/// clean, and a new session can be appended.
///
/// 20 trials by default; set `JOURNAL_CRASH_TRIALS` for longer runs.
@Suite(.skippedWhenQuick, .tags(.slow)) struct CrashSafetyTests {
    /// `JournalCrashHelper` (or another tool this test target depends on), built by
    /// `swift test` because of that dependency, sits next to the test bundle in the build
    /// directory.
    static func helperPath(_ name: String = "JournalCrashHelper") throws -> String {
        try ChildProcess.built(name).path
    }

    @Test(.tags(.childProcess)) func killedRecorderLeavesAConsistentJournal() throws {
        let trials = ProcessInfo.processInfo.environment["JOURNAL_CRASH_TRIALS"].flatMap(Int.init) ?? 20
        let helper = try Self.helperPath()
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        var generator = SystemRandomNumberGenerator()
        for trial in 1...trials {
            let session = try runAndKill(helper, path: path, label: "trial \(trial)",
                                         afterMilliseconds: Int.random(in: 0...150, using: &generator))
            try check(path, killedSession: session, trial: trial)
        }
        #expect(try scalar(path, "SELECT count(*) FROM sessions WHERE label LIKE 'trial %'") == Int64(trials))
        // Each trial checked the session it killed; every session, once more, at the end.
        #expect(try eventsAreGapFree(path))
        #expect(try danglingReferences(path, session: nil) == [])
        // The kills landed while events were being written, not only before the first.
        #expect(try scalar(path, "SELECT count(*) FROM session_summary WHERE label LIKE 'trial %' AND events > 0") > 0)
        if ProcessInfo.processInfo.environment["RELIABILITY_FIGURES"] != nil {
            let figures = try rows(path, """
                SELECT count(*), sum(events > 0), sum(events), max(events) FROM session_summary WHERE label LIKE 'trial %'
                """)[0].split(separator: "|")
            print("crash: \(figures[0]) SIGKILLs, \(figures[1]) with events written, \(figures[2]) events kept (max \(figures[3]) in one session), every journal whole")
        }
    }

    /// The helper, run to completion, closes its session cleanly (the baseline the kills
    /// are compared with).
    @Test(.tags(.childProcess)) func helperThatFinishesEndsItsSessionCleanly() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let output = try run(try Self.helperPath(), [path, "complete", "100"])
        #expect(output == "ready 1\nclosed\n")
        #expect(try rows(path, "SELECT label, clean_end, ended_at IS NOT NULL FROM sessions") == ["complete|1|1"])
        #expect(try eventsAreGapFree(path))
    }

    /// Starts the helper, waits until it records, lets it run, SIGKILLs it; returns its
    /// session id.
    func runAndKill(_ helper: String, path: String, label: String, afterMilliseconds delay: Int) throws -> Int64 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: helper)
        process.arguments = [path, label]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // Read the "ready N" line byte by byte: nothing else is written before the kill.
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        usleep(useconds_t(delay * 1_000))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("ready "), let session = Int64(text.dropFirst(6)) else {
            throw HelperNotReady(said: text)
        }
        return session
    }

    func check(_ path: String, killedSession: Int64, trial: Int) throws {
        // It opens (for writing, as the next recorder would) and is whole.
        let journal = try Journal.open(path: path, options: .init(creation: .openExisting))
        #expect(try rows(path, "PRAGMA integrity_check") == ["ok"], "trial \(trial)")
        // The sessions before it were checked by the trials before (the file as a whole by
        // integrity_check): reading every session's events through the `events` view at
        // every trial made the test quadratic in the events recorded.
        #expect(try eventsAreGapFree(path, session: killedSession), "trial \(trial)")
        #expect(try rows(path, "SELECT clean_end, ended_at FROM sessions WHERE id = \(killedSession)") == ["0|NULL"],
                "trial \(trial)")
        #expect(try danglingReferences(path, session: killedSession) == [], "trial \(trial)")
        // A new session can be appended.
        let next = try journal.startSession(label: "after trial \(trial)")
        next.registry.beginScope("check").end()
        next.close()
        #expect(try rows(path, "SELECT clean_end, events FROM session_summary WHERE id = \(next.sessionID)") == ["1|2"],
                "trial \(trial)")
    }
}

extension CrashSafetyTests {
    /// Events of `session` (every session when `nil`) naming a channel, registration, owner
    /// or call site that has no row, and registrations whose seqs point past their
    /// session's last event (found once per session: a subquery per registration read the
    /// session's events through the view again for each): at most five of each, as text.
    func danglingReferences(_ path: String, session: Int64?) throws -> [String] {
        let events = session.map { "e.session_id = \($0) AND " } ?? ""
        return try rows(path, """
            SELECT e.session_id, e.seq, e.kind FROM events e
            WHERE \(events)((e.channel_id IS NOT NULL AND NOT EXISTS
                      (SELECT 1 FROM channels c WHERE c.session_id = e.session_id AND c.id = e.channel_id))
               OR (e.registration_id IS NOT NULL AND NOT EXISTS
                      (SELECT 1 FROM registrations r WHERE r.session_id = e.session_id AND r.id = e.registration_id))
               OR (e.owner_id IS NOT NULL AND NOT EXISTS
                      (SELECT 1 FROM objects o WHERE o.session_id = e.session_id AND o.id = e.owner_id))
               OR (e.call_site_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM call_sites s WHERE s.id = e.call_site_id)))
            LIMIT 5
            """) + rows(path, """
            SELECT r.session_id, r.id FROM registrations r
            JOIN (SELECT e.session_id, max(e.seq) AS last FROM events e
                  WHERE \(events)1 GROUP BY e.session_id) m ON m.session_id = r.session_id
            WHERE r.registered_seq > m.last OR r.removed_seq > m.last
            LIMIT 5
            """)
    }
}

/// The crash helper's first line was not `ready SESSION_ID`.
struct HelperNotReady: Error, CustomStringConvertible {
    let said: String
    var description: String { "JournalCrashHelper said '\(said)' instead of 'ready SESSION_ID'" }
}
