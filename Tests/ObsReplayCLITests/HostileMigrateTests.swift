import Foundation
import JournalFixtures
import ObservationJournal
import Testing
import TestSupport

/// `migrate`, the one command that writes, on old journals from elsewhere: values their
/// own schema forbids (CHECK constraints bypassed with `ignore_check_constraints`, which a
/// read-only connection never checks), a `-wal` holding them, a side file that is a link,
/// a `-journal` left beside the file. Each is refused in one line, exit 2, with the
/// journal and its side files byte for byte as they were.
@Suite(.tags(.childProcess)) struct HostileMigrateTests {
    /// The showcase session written with the first `schemaVersion` migrations.
    static func journal(at schemaVersion: Int, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("schema\(schemaVersion).sqlite").path
        let fixture = try JournalFixture(path: path, schemaVersion: schemaVersion)
        try ShowcaseScenario.record(try fixture.session(label: "showcase"))
        try fixture.finish()
        return path
    }

    /// The bytes of the journal and of each side file beside it, by suffix.
    static func files(_ path: String) -> [String: Data] {
        var result: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm", "-journal"] {
            if let data = FileManager.default.contents(atPath: path + suffix) { result[suffix] = data }
        }
        return result
    }

    /// Values schema 1 forbids, each of which the upgrade would otherwise drop or blank
    /// without a word: a channel with no known policy is left out by its join, an unknown
    /// removal reason would become NULL (a registration still live), an event of unknown
    /// kind would be left out; `is_main = 7` would spill into the flags of another column.
    static let forbidden: [(schema: Int, sql: String, table: String)] = [
        (1, "UPDATE channels SET policy = 'bogus' WHERE id = 1", "channels"),
        (1, "UPDATE registrations SET removal_reason = 'bogus' WHERE removed_seq IS NOT NULL", "registrations"),
        (1, "UPDATE events SET kind = 'bogus' WHERE seq = 3", "events"),
        (1, "UPDATE events SET is_main = 7 WHERE seq = 2", "events"),
        (1, "UPDATE registrations SET expects_main = 3", "registrations"),
    ]

    @Test(arguments: forbidden.indices) func valuesTheSchemaForbidsAreRefusedBeforeAnythingIsWritten(_ index: Int) throws {
        let damage = Self.forbidden[index]
        let scratch = try ScratchDirectory("hostile-migrate")
        let path = try Self.journal(at: damage.schema, in: scratch.url)
        try JournalFixture.edit(path, "PRAGMA ignore_check_constraints = 1; " + damage.sql)
        let before = Self.files(path)
        let result = try obsreplay(["migrate", path])
        #expect(result == RunResult(stdout: "", stderr: """
            error: \(path): refused: not migrated, it holds what its schema \(damage.schema) forbids \
            (CHECK constraint failed in \(damage.table)); the file is unchanged

            """, status: 2))
        #expect(Self.files(path) == before)
        // A read command reads a schema-1 journal through an upgraded copy, which cannot be
        // made of it: refused in one line that says why, the file as it was.
        let checked = try obsreplay(["check", path])
        #expect(checked == RunResult(stdout: "", stderr: """
            error: \(path): cannot be read: schema \(JournalSchema.latestVersion) cannot be made of it (refused: not \
            migrated, it holds what its schema \(damage.schema) forbids (CHECK constraint failed in \(damage.table)); \
            the file is unchanged)

            """, status: 2))
        #expect(Self.files(path) == before)
    }

    /// Codes out of range in a journal (policy 7, removal reason -1) read as
    /// `policy#7` in every command, and `check` reports them as integrity_check would on
    /// a writable connection.
    @Test func checkReportsCodesTheSchemaForbids() throws {
        let scratch = try ScratchDirectory("hostile-migrate")
        let path = try Self.journal(at: JournalSchema.latestVersion, in: scratch.url)
        #expect(try obsreplay(["check", path]).status == 0)
        try JournalFixture.edit(path, """
            PRAGMA ignore_check_constraints = 1;
            UPDATE channels SET policy = 7; UPDATE registrations SET removal_reason = -1 WHERE removed_seq IS NOT NULL;
            """)
        let before = Self.files(path)
        let checked = try obsreplay(["check", path])
        #expect(checked.status == 1)
        #expect(checked.stdout.hasSuffix("""
            integrity         FAILED
                CHECK constraint failed in channels
                CHECK constraint failed in registrations
            damaged

            """))
        let exported = try obsreplay(["export", path, "--what", "registrations", "--format", "csv"])
        #expect(exported.status == 0)
        #expect(exported.stdout.contains(",policy#7,"))
        #expect(exported.stdout.contains(",removal_reason#-1\(try provenanceCSV(path, session: 1))\r\n"))
        #expect(Self.files(path) == before)
    }

    /// Events copied under a session id that has no `sessions` row: `stats` counts them and
    /// nothing else reads them, so `check` names them as SQLite's foreign-key check does.
    @Test func checkReportsRowsOfASessionThatDoesNotExist() throws {
        let scratch = try ScratchDirectory("hostile-migrate")
        let path = try Self.journal(at: JournalSchema.latestVersion, in: scratch.url)
        #expect(try obsreplay(["check", path]).status == 0)
        try JournalFixture.edit(path, """
            INSERT INTO events (session_id, seq, time_ns, kind, thread, flags) VALUES (99, 1, 0, 4, 1, 1);
            INSERT INTO event_details (session_id, seq, detail) VALUES (77, 1, 'x');
            """)
        let before = Self.files(path)
        let checked = try obsreplay(["check", path])
        #expect(checked.status == 1)
        #expect(checked.stdout.hasSuffix("""
            integrity         FAILED
                FOREIGN KEY constraint failed in events (no such row in sessions)
            damaged

            """))
        #expect(Self.files(path) == before)
    }

    /// The forbidden value only in the `-wal` a crashed writer left: refused, and the
    /// `-wal` neither checkpointed into the file nor changed.
    @Test func forbiddenValueInTheWALIsRefusedAndTheWALKept() throws {
        let scratch = try ScratchDirectory("hostile-migrate")
        let original = try Self.journal(at: 1, in: scratch.url)
        let writing = scratch.url.appendingPathComponent("writing.sqlite").path
        try FileManager.default.copyItem(atPath: original, toPath: writing)
        let path = scratch.url.appendingPathComponent("crashed.sqlite").path
        do {
            // Copied while the writer is still open: its change is only in the -wal.
            let writer = try SQLiteDatabase(path: writing, mode: .readWrite)
            try writer.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; PRAGMA ignore_check_constraints = 1;")
            try writer.execute("UPDATE channels SET policy = 'bogus' WHERE id = 1")
            try FileManager.default.copyItem(atPath: writing, toPath: path)
            try FileManager.default.copyItem(atPath: writing + "-wal", toPath: path + "-wal")
        }
        let before = Self.files(path)
        #expect(before["-wal"]?.isEmpty == false)
        let result = try obsreplay(["migrate", path])
        #expect(result.stderr == "error: \(path): refused: not migrated, it holds what its schema 1 forbids (CHECK constraint failed in channels); the file is unchanged\n")
        #expect(result.status == 2)
        // Reading made the -shm (as every read command does); the journal and its -wal are as they were.
        var after = Self.files(path)
        after["-shm"] = nil
        #expect(after == before)
    }

    /// A `-journal` beside a journal that is a symbolic link (to a file that does not
    /// exist yet): SQLite would create the link's target while migrating.
    @Test func linkedSideFileIsRefusedByMigrate() throws {
        let scratch = try ScratchDirectory("hostile-migrate")
        let path = try Self.journal(at: 1, in: scratch.url)
        try JournalFixture.edit(path, "PRAGMA journal_mode = DELETE")
        let target = scratch.url.appendingPathComponent("elsewhere").path
        try FileManager.default.createSymbolicLink(atPath: path + "-journal", withDestinationPath: target)
        let before = Self.files(path)
        let result = try obsreplay(["migrate", path])
        #expect(result == RunResult(stdout: "", stderr: """
            error: \(path): refusing to open: side file \(path)-journal is not the journal owner's own \
            (it is a symbolic link); remove it if it is not yours

            """, status: 2))
        #expect(Self.files(path) == before)
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    /// A non-empty `-journal` beside a journal in rollback mode is a transaction a writer
    /// did not finish (or one planted there): a reader cannot roll it back, and says so
    /// in a sentence rather than `SQLITE_READONLY (776)` and the statement.
    @Test func hotRollbackJournalIsRefusedInASentence() throws {
        let scratch = try ScratchDirectory("hostile-migrate")
        let path = try Self.journal(at: JournalSchema.latestVersion, in: scratch.url)
        try JournalFixture.edit(path, "PRAGMA journal_mode = DELETE")
        try Data(repeating: 0xA5, count: 600).write(to: URL(fileURLWithPath: path + "-journal"))
        let before = Self.files(path)
        for command in ["sessions", "check", "migrate"] {
            let result = try obsreplay([command, path])
            #expect(result == RunResult(stdout: "", stderr: """
                error: \(path): refused: its -journal file holds a transaction a writer did not finish, which a reader \
                cannot roll back without changing the journal; remove \(path)-journal if it is not a crashed writer's

                """, status: 2), "\(command)")
        }
        #expect(Self.files(path) == before)
    }
}
