import CSQLite
import Foundation
@testable import ObservationJournal
import ObserverCore
import Testing

/// One small test per bug the reliability harnesses found (see RELIABILITY.md), so each fix
/// stays fixed even if the harness that found it changes.
@Suite struct HardeningRegressionTests {
    /// Found by the fault matrix: a statement that failed to prepare after the session's
    /// row was committed made `startSession` throw but left an empty session behind, never
    /// ended, which `diagnose` then reported as an unclean session.
    @Test(arguments: ["UPDATE sessions SET ended_at", "INSERT INTO events", "SELECT id FROM strings"])
    func sessionThatFailsToStartLeavesNoRow(statement: String) throws {
        let scratch = Scratch()
        let path = scratch.path()
        var options = Journal.Options()
        options.faults = SQLiteFaultPlan(failing: 1, at: .prepare, sqlContains: statement, with: SQLITE_NOMEM)
        let journal = try Journal.open(path: path, options: options)
        #expect(throws: JournalError.self) { try journal.startSession(label: "no memory") }
        #expect(try scalar(path, "SELECT count(*) FROM sessions") == 0)
    }
}
