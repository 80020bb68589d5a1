import Foundation
import JournalFixtures
import ObservationJournal
import Testing
import TestSupport

/// A journal as release 0.1 wrote it (schema 1: event kinds as text, no main-queue or CPU
/// columns), built at test time from migration 0001 only, so the fixture is reviewable
/// source rather than a binary blob. Every read command works on it as it is, and
/// `obsreplay migrate` brings it to the latest schema without changing one event,
/// registration or finding.
@Suite struct MigrateTests {
    /// The showcase session, written with the first `schemaVersion` migrations.
    func showcase(at schemaVersion: Int, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("schema\(schemaVersion).sqlite").path
        let fixture = try JournalFixture(path: path, schemaVersion: schemaVersion)
        try ShowcaseScenario.record(try fixture.session(label: "showcase"))
        try fixture.finish()
        return path
    }

    /// What the read commands print about a journal's events, registrations and findings,
    /// with its path written `JOURNAL`.
    func readings(_ path: String) throws -> [String: RunResult] {
        var results: [String: RunResult] = [:]
        let commands: [String: [String]] = [
            "sessions": ["sessions", path],
            "timeline": ["timeline", path, "--json"],
            "replay": ["replay", path, "--at", "30"],
            "diagnose": ["diagnose", path],
            "events": ["export", path, "--what", "events", "--format", "jsonl"],
            "registrations": ["export", path, "--what", "registrations", "--format", "csv"],
            "deliveries": ["export", path, "--what", "deliveries", "--format", "jsonl"],
            "findings": ["export", path, "--what", "findings", "--format", "jsonl"],
            "trace": ["export", path, "--what", "events", "--format", "chrome-trace"],
            "report": ["report", path, "-o", "-"],
        ]
        for (name, arguments) in commands {
            var result = try obsreplay(arguments)
            // The file's name, and the report's per-page random nonce, are all that may differ;
            result.stdout = result.stdout.replacingOccurrences(of: path, with: "JOURNAL")
                .replacingOccurrences(of: URL(fileURLWithPath: path).lastPathComponent, with: "JOURNAL")
                .replacingOccurrences(of: #"nonce(-|=")[0-9a-f]+"#, with: "nonce$1N", options: .regularExpression)
                // and the journal id every exported row carries (each journal has its own).
                .replacingOccurrences(of: #""journal_id":"[0-9a-f]{32}""#, with: #""journal_id":"ID""#, options: .regularExpression)
                .replacingOccurrences(of: #",[0-9a-f]{32},([^,\r\n]*),([^,\r\n]*)\r\n"#, with: ",ID,$1,$2\r\n", options: .regularExpression)
            results[name] = result
        }
        return results
    }

    @Test func schemaOneJournalIsReadAsItIsAndMigratesWithoutChangingAnything() throws {
        let scratch = try ScratchDirectory("migrate")
        let directory = scratch.url
        let old = try showcase(at: 1, in: directory)
        let current = try showcase(at: JournalSchema.latestVersion, in: directory)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: old))

        let before = try readings(old)
        // Read as it is: the file is untouched, and every command says what it says of the
        // same session written by this version.
        #expect(try Data(contentsOf: URL(fileURLWithPath: old)) == bytes)
        let latest = try readings(current)
        for (name, result) in before.sorted(by: { $0.key < $1.key }) {
            #expect(result.status == 0 || (name == "diagnose" && result.status == 1), "\(name): \(result.stderr)")
            #expect(result.stderr == "", "\(name)")
            #expect(!result.stdout.isEmpty, "\(name)")
            #expect(result == latest[name], "\(name) of schema 1 differs from schema 8")
        }
        #expect(try obsreplay(["stats", old]).stdout.contains("schema version  1\n"))
        #expect(try obsreplay(["check", old]).stdout.contains("schema version    1 (this version reads up to 8)\n"))

        let migrated = try obsreplay(["migrate", old])
        #expect(migrated == RunResult(stdout: "", stderr: "\(old): upgraded schema 1 to 8\n", status: 0))
        let after = try readings(old)
        for (name, result) in before.sorted(by: { $0.key < $1.key }) {
            #expect(after[name] == result, "\(name) changed by the migration")
        }
        #expect(try obsreplay(["check", old]).stdout.contains("schema version    8 (this version reads up to 8)\n"))
    }

    /// Schema 7 stores channels' policies and registrations' removal reasons as codes: a
    /// schema-1 journal (names) migrated keeps every channel, registration and event as the
    /// views and `export --what registrations` show them, names included.
    @Test func schemaOnePoliciesAndRemovalReasonsBecomeCodesWithoutChangingAnything() throws {
        let scratch = try ScratchDirectory("migrate")
        let old = try showcase(at: 1, in: scratch.url)
        let views = [
            "SELECT * FROM channel_names ORDER BY session_id, id",
            "SELECT * FROM registration_log ORDER BY session_id, id",
            """
            SELECT session_id, seq, time_ns, kind, thread, is_main, channel, registration_id, owner, other_registration_id,
                   call_site, depth, live_count, duration_ns, is_prior, old_value, new_value, reason, detail
            FROM event_log ORDER BY session_id, seq
            """,
            "SELECT * FROM session_summary ORDER BY id",
        ]
        let before = try views.map { try rows(old, $0) }
        let exported = try obsreplay(["export", old, "--what", "registrations", "--format", "csv"])
        #expect(exported.status == 0 && exported.stderr == "")
        // The showcase has both policies and several ways to end: each is translated.
        #expect(try rows(old, "SELECT DISTINCT policy FROM channels ORDER BY 1") == ["multicast", "singleSlot"])
        let reasons = try rows(old, "SELECT DISTINCT removal_reason FROM registrations ORDER BY 1")
        #expect(reasons == ["NULL", "explicit", "ownerDeallocated", "replaced", "tokenReleased"])

        let migrated = try obsreplay(["migrate", old])
        #expect(migrated == RunResult(stdout: "", stderr: "\(old): upgraded schema 1 to 8\n", status: 0))
        #expect(try views.map { try rows(old, $0) } == before)
        #expect(try obsreplay(["export", old, "--what", "registrations", "--format", "csv"]) == exported)
        #expect(try rows(old, "SELECT DISTINCT typeof(policy) || ' ' || policy FROM channels ORDER BY 1") == ["integer 0", "integer 1"])
        #expect(try rows(old, "SELECT DISTINCT typeof(removal_reason) FROM registrations ORDER BY 1") == ["integer", "null"])
        #expect(try rows(old, "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'registrations' AND sql IS NOT NULL")
            == ["registrations_by_channel"])
        #expect(try obsreplay(["check", old]).status == 0)
    }

    /// Schemas 2 to 6 were written only by unreleased builds: every command refuses such a
    /// journal in one line that says so, and leaves it as it was.
    @Test(arguments: [2, 6]) func unreleasedSchemasAreRefusedSayingSo(_ version: Int) throws {
        let scratch = try ScratchDirectory("migrate")
        let path = try showcase(at: 1, in: scratch.url)
        try JournalFixture.edit(path, "PRAGMA user_version = \(version)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for command in [["sessions", path], ["diagnose", path], ["migrate", path]] {
            #expect(try obsreplay(command) == RunResult(stdout: "", stderr: """
                error: \(path): journal schema \(version) was written by an unreleased build of ObservationJournal and \
                cannot be read; record it again with this version

                """, status: 2), "\(command[0])")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }
}
