import Foundation
@testable import JournalStore
@testable import ObservationJournal
import ObserverCore
import Testing

/// The journal's vocabulary is spelled once (JournalStore's enumerations); these tests hold
/// the schema and the registry to it.
@Suite struct VocabularyTests {
    /// The names a column's `CHECK (column IN ('a', 'b', …))` allows in the latest schema.
    func checkList(table: String, column: String, migrations: Int = JournalSchema.latestVersion) throws -> [String] {
        let database = try SQLiteDatabase(path: ":memory:", mode: .readWriteCreate)
        try JournalMigrator.migrate(database, migrations: Array(JournalSchema.embeddedMigrations.prefix(migrations)))
        let statement = try database.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?")
        try statement.bind(table, at: 1)
        #expect(try statement.step())
        let sql = statement.text(0)
        let start = try #require(sql.range(of: "CHECK (\(column) IN ("))
        let end = try #require(sql[start.upperBound...].firstIndex(of: ")"))
        return sql[start.upperBound..<end].split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(in: CharacterSet(charactersIn: "'"))
        }
    }

    @Test func enumerationsAreTheSchemasCheckLists() throws {
        // Schema 4 stores kinds as codes, named by `event_kinds`.
        let database = try SQLiteDatabase(path: ":memory:", mode: .readWriteCreate)
        try JournalMigrator.migrate(database)
        var kinds: [String] = []
        let statement = try database.prepare("SELECT code, name FROM event_kinds ORDER BY code")
        while try statement.step() { kinds.append("\(statement.int(0)) \(statement.text(1))") }
        #expect(kinds == JournalEventKind.allCases.map { "\($0.code) \($0.name)" })
        #expect(try database.scalarInt("SELECT sql LIKE '%CHECK (kind BETWEEN 0 AND \(JournalEventKind.allCases.count - 1))%' FROM sqlite_schema WHERE name = 'event_rows'") == 1)
        // Schema 1–3 journals hold names: the last text CHECK list is schema 2's.
        #expect(try checkList(table: "events", column: "kind", migrations: 3) == JournalEventKind.names)
        #expect(try checkList(table: "registrations", column: "removal_reason") == JournalRemovalReason.names)
        #expect(try checkList(table: "channels", column: "policy") == JournalDeliveryPolicy.names)
    }

    @Test func namesAndCodesRoundTrip() {
        #expect(JournalEventKind.names.count == JournalEventKind.allCases.count)
        #expect(JournalEventKind.allCases.map(\.code) == (0..<Int64(JournalEventKind.allCases.count)).map { $0 })
        #expect(JournalEventKind(name: "ownerDeallocated") == nil)
        #expect(JournalEventKind(name: "cancelAfterAutoRemoval") == .cancelAfterAutoRemoval)
        #expect(JournalRemovalReason(name: "streamEnded")?.code == 7)
        #expect(JournalRemovalReason(code: 8) == nil)
        #expect(JournalSkipReason.names == ["unchanged", "senderMismatch", "removedBeforeDelivery"])
        #expect(JournalGapReason.names == ["bufferFull"])
    }

    /// The writer's mapping from the registry's enumerations keeps every name: the journal
    /// says what the registry says.
    @Test func writerMapsTheRegistrysEnumerationsByName() {
        for kind in ObserverEvent.Kind.allCases { #expect(SessionWriter.journal(kind).name == kind.rawValue) }
        for reason in RemovalReason.allCases { #expect(SessionWriter.journal(reason).name == reason.rawValue) }
        for reason in SkipReason.allCases { #expect(SessionWriter.journal(reason).name == reason.rawValue) }
        for policy in DeliveryPolicy.allCases { #expect(SessionWriter.journal(policy).name == policy.rawValue) }
    }

    /// One list of event columns: the table has exactly these, in this order.
    @Test func eventColumnsAreTheTablesColumns() throws {
        let database = try SQLiteDatabase(path: ":memory:", mode: .readWriteCreate)
        try JournalMigrator.migrate(database)
        var names: [String] = []
        let statement = try database.prepare("SELECT name FROM pragma_table_info('events') ORDER BY cid")
        while try statement.step() { names.append(statement.text(0)) }
        #expect(names == EventColumn.allCases.map(\.name))
    }
}
