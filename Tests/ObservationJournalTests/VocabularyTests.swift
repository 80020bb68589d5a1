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

    /// The rows of a lookup table (`event_kinds`, …) in the latest schema, as `code name`.
    func lookupTable(_ table: String, in database: SQLiteDatabase) throws -> [String] {
        var rows: [String] = []
        let statement = try database.prepare("SELECT code, name FROM \(table) ORDER BY code")
        while try statement.step() { rows.append("\(statement.int(0)) \(statement.text(1))") }
        return rows
    }

    /// Whether `table`'s definition in `database` checks `column` by the range of `Value`'s codes.
    func checksRange<Value: JournalEnumeration>(
        _ table: String, _ column: String, of _: Value.Type, in database: SQLiteDatabase
    ) throws -> Bool {
        let range = "%CHECK (\(column) BETWEEN 0 AND \(Value.allCases.count - 1))%"
        return try database.scalarInt("SELECT sql LIKE '\(range)' FROM sqlite_schema WHERE name = '\(table)'") == 1
    }

    @Test func enumerationsAreTheSchemasCheckLists() throws {
        // Kinds, policies and removal reasons are stored as codes named by lookup tables;
        // policies and removal reasons checked by a range.
        let database = try SQLiteDatabase(path: ":memory:", mode: .readWriteCreate)
        try JournalMigrator.migrate(database)
        #expect(try lookupTable("event_kinds", in: database) == JournalEventKind.allCases.map { "\($0.code) \($0.name)" })
        #expect(try lookupTable("delivery_policies", in: database) == JournalDeliveryPolicy.allCases.map { "\($0.code) \($0.name)" })
        #expect(try lookupTable("removal_reasons", in: database) == JournalRemovalReason.allCases.map { "\($0.code) \($0.name)" })
        #expect(try checksRange("channels", "policy", of: JournalDeliveryPolicy.self, in: database))
        #expect(try checksRange("registrations", "removal_reason", of: JournalRemovalReason.self, in: database))
        // Schema 1 (0.1.0) holds names: its text CHECK lists are the first names, in code
        // order, which the upgrade translates by name.
        let kinds = try checkList(table: "events", column: "kind", migrations: 1)
        #expect(kinds == Array(JournalEventKind.names.prefix(kinds.count)))
        let reasons = try checkList(table: "registrations", column: "removal_reason", migrations: 1)
        #expect(reasons == Array(JournalRemovalReason.names.prefix(reasons.count)))
        #expect(try checkList(table: "channels", column: "policy", migrations: 1) == JournalDeliveryPolicy.names)
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
