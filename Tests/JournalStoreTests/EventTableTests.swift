import Foundation
import JournalStore
import Testing

/// `EventColumn`, `EventDetailColumn` and `EventFlags` are the one declaration of the event
/// layout: the schema the migrations make and docs/SQL.md must say the same.
@Suite struct EventTableTests {
    /// A new database at the latest schema.
    func journal() throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: ":memory:", mode: .readWriteCreate)
        try JournalMigrator.migrate(database)
        return database
    }

    /// `PRAGMA table_xinfo` of `table`: (name, type, hidden) per column, in table order;
    /// hidden 2 is a VIRTUAL generated column.
    func columns(_ table: String, in database: SQLiteDatabase) throws -> [(name: String, type: String, hidden: Int64)] {
        let statement = try database.prepare("SELECT name, type, hidden FROM pragma_table_xinfo(?1)")
        try statement.bind(table, at: 1)
        var result: [(String, String, Int64)] = []
        while try statement.step() { result.append((statement.text(0), statement.text(1), statement.int(2))) }
        return result
    }

    @Test func theEventsTableHasTheDeclaredColumnsInOrder() throws {
        let found = try columns("events", in: try journal())
        #expect(found.map(\.name) == EventColumn.allCases.map(\.name))
        #expect(found.allSatisfy { $0.hidden == 0 && ($0.type == "INTEGER" || $0.type == "TEXT") })
    }

    @Test func theDetailsTableHasTheDeclaredColumnsInOrder() throws {
        let found = try columns("event_details", in: try journal())
        #expect(found.map(\.name) == EventDetailColumn.allCases.map(\.name))
        #expect(found.allSatisfy { $0.hidden == 0 })
    }

    /// `event_log` decodes `flags` and `change_back` with the declared expressions, and
    /// they compute what `EventFlags.decode` does (the reader's decoding), for every kind
    /// of flags value.
    @Test func theLogDecodesTheFlagsAsTheReaderDoes() throws {
        let database = try journal()
        let schema = try database.prepare("SELECT sql FROM sqlite_schema WHERE name = 'event_log'")
        #expect(try schema.step())
        let sql = schema.text(0)
        for (name, expression) in EventColumn.decoded {
            #expect(sql.contains("\(expression) AS \(name)"), "\(name)")
        }
        try database.execute("PRAGMA foreign_keys = OFF")
        let cases: [(isMain: Bool, isPrior: Bool, isMainQueue: Bool?, depth: Int64)] = [
            (false, false, nil, 0), (true, false, true, 0), (false, true, false, 3), (true, true, nil, 1 << 40),
        ]
        let staged = try StagedEvents(database: database, capacity: 2)
        let read = try database.prepare("SELECT is_main, is_prior, main_queue, depth, change_seq FROM event_log WHERE seq = ?1")
        for (index, facts) in cases.enumerated() {
            let flags = EventFlags.encode(isMain: facts.isMain, isPrior: facts.isPrior, isMainQueue: facts.isMainQueue, depth: facts.depth)
            let decoded = EventFlags.decode(flags)
            #expect(decoded.isMain == facts.isMain && decoded.isPrior == facts.isPrior)
            #expect(decoded.isMainQueue == facts.isMainQueue && decoded.depth == facts.depth)
            let seq = Int64(100 + index)
            var event = StoredEvent(sessionID: 1, seq: seq, timeNs: 0, kind: 5, thread: 1, flags: flags)
            event.changeBack = Int64(index)
            try staged.append(event)
            try staged.insert()
            read.reset()
            try read.bind(seq, at: 1)
            #expect(try read.step())
            #expect(read.int(0) == (facts.isMain ? 1 : 0) && read.int(1) == (facts.isPrior ? 1 : 0))
            #expect(read.optionalInt(2) == facts.isMainQueue.map { $0 ? 1 : 0 })
            #expect(read.int(3) == facts.depth)
            #expect(read.int(4) == seq - Int64(index))
        }
    }

    /// docs/SQL.md documents every column of both tables, stored and generated, in order.
    @Test func theSQLDocumentationListsEveryColumnInOrder() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/SQL.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        func documented(after heading: String) -> [String] {
            guard let start = text.range(of: heading) else { return [] }
            var names: [String] = []
            for line in text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).dropFirst() {
                if line.hasPrefix("#") { break }
                guard line.hasPrefix("| `") else { continue }
                names.append(String(line.dropFirst(3).prefix { $0 != "`" }))
            }
            return names
        }
        #expect(documented(after: "### `events`") == EventColumn.allCases.map(\.name))
        #expect(documented(after: "### `event_details`") == EventDetailColumn.allCases.map(\.name))
    }

    /// A value's text is stored as its `string` says, digits included, whichever row of a
    /// many-row insert it is in; `nil` as NULL.
    @Test(arguments: [ValueText.integer(0), .integer(-1), .integer(.min), .integer(.max), .bool(true), .text("é\u{0}x")])
    func valueTextIsStoredAsItsString(_ value: ValueText) throws {
        let database = try SQLiteDatabase(path: ":memory:", mode: .readWriteCreate)
        try database.execute("CREATE TABLE events (" + EventColumn.allCases.map(\.name).joined(separator: ", ") + ")")
        var first = StoredEvent(sessionID: 1, seq: 1, timeNs: 10, kind: 5, thread: 1, flags: 0)
        first.oldValue = .text("")
        first.newValue = value
        first.reason = "unchanged"
        var second = first
        second.seq = 2
        second.oldValue = value
        second.newValue = nil
        second.reason = nil
        let staged = try StagedEvents(database: database, capacity: 2)
        try staged.append(first)
        try staged.append(second)
        try staged.insert()
        let select = try database.prepare(
            "SELECT seq, typeof(old_value), old_value, typeof(new_value), new_value, reason FROM events ORDER BY seq")
        #expect(try select.step())
        #expect(select.text(1) == "text" && select.text(2) == "" && select.text(3) == "text")
        #expect(select.text(4) == value.string && select.text(5) == "unchanged")
        #expect(try select.step())
        #expect(select.text(1) == "text" && select.text(2) == value.string && select.text(3) == "null")
        #expect(select.isNull(5))
        #expect(try !select.step())
    }

    /// Every stored column goes through the staged rows to its own column, as given: each
    /// optional one set and NULL, texts with a NUL and empty; the stage is empty afterwards.
    @Test func stagedRowsAreStoredColumnForColumn() throws {
        let database = try journal()
        try database.execute("PRAGMA foreign_keys = OFF")
        let staged = try StagedEvents(database: database, capacity: 2)
        var full = StoredEvent(sessionID: 7, seq: 11, timeNs: -3, kind: 6, thread: 12, flags: 1 << 40 | 5)
        full.channelID = 21
        full.registrationID = 22
        full.ownerID = 23
        full.changeBack = 24
        full.durationNs = .max
        full.cpuNs = .min
        full.liveCount = 0
        full.callSiteID = 28
        full.oldValue = .text("a\u{0}é")
        full.newValue = .text("")
        full.reason = "unchanged"
        let bare = StoredEvent(sessionID: 7, seq: 12, timeNs: 0, kind: 5, thread: 1, flags: 0)
        try staged.append(full)
        try staged.append(bare)
        #expect(staged.count == 2)
        try staged.insert()
        #expect(staged.count == 0)
        let select = try database.prepare("SELECT \(EventColumn.selectList(table: "events")) FROM events ORDER BY seq")
        #expect(try select.step())
        #expect(StoredEvent(select) == full)
        #expect(try select.step())
        #expect(StoredEvent(select) == bare)
        #expect(try !select.step())
    }

    /// A failed insert (a row already there) throws and leaves nothing staged or written.
    @Test func aFailedInsertEmptiesTheStage() throws {
        let database = try journal()
        try database.execute("PRAGMA foreign_keys = OFF")
        let staged = try StagedEvents(database: database, capacity: 2)
        try staged.append(StoredEvent(sessionID: 1, seq: 1, timeNs: 0, kind: 5, thread: 1, flags: 0))
        try staged.insert()
        try staged.append(StoredEvent(sessionID: 1, seq: 2, timeNs: 0, kind: 5, thread: 1, flags: 0))
        try staged.append(StoredEvent(sessionID: 1, seq: 1, timeNs: 0, kind: 5, thread: 1, flags: 0))
        #expect(throws: SQLiteError.self) { try staged.insert() }
        #expect(staged.count == 0)
        let count = try database.prepare("SELECT count(*) FROM events")
        #expect(try count.step())
        #expect(count.int(0) == 1)
    }

    /// The staged rows' table exists on the connection that stages them, on no other.
    @Test func theStagedTableIsOnlyOnTheStagingConnection() throws {
        let database = try journal()
        let staged = try StagedEvents(database: database, capacity: 2)
        // A second stage on the same connection is refused: the first keeps its rows.
        try staged.append(StoredEvent(sessionID: 1, seq: 1, timeNs: 0, kind: 5, thread: 1, flags: 0))
        #expect(throws: SQLiteError.self) { _ = try StagedEvents(database: database, capacity: 2) }
        #expect(staged.count == 1)
        let other = try journal()
        #expect(throws: SQLiteError.self) { _ = try other.prepare("SELECT * FROM journal_staged_events") }
        _ = try database.prepare("SELECT * FROM journal_staged_events")
    }

    /// A full stage is inserted before the next row is staged: nothing is dropped.
    @Test func aFullStageIsInsertedBeforeTheNextRow() throws {
        let database = try journal()
        try database.execute("PRAGMA foreign_keys = OFF")
        let staged = try StagedEvents(database: database, capacity: 2)
        for seq in Int64(1)...3 { try staged.append(StoredEvent(sessionID: 1, seq: seq, timeNs: 0, kind: 5, thread: 1, flags: 0)) }
        #expect(staged.count == 1)
        let count = try database.prepare("SELECT count(*), max(seq) FROM events")
        #expect(try count.step())
        #expect(count.int(0) == 2 && count.int(1) == 2)
        count.reset()
        try staged.insert()
        #expect(try count.step())
        #expect(count.int(0) == 3 && count.int(1) == 3)
    }
}
