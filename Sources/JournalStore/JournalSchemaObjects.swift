/// The schema objects (tables, indexes, views, triggers) of a journal, compared with what
/// the migrations create, so that a file whose schema was changed elsewhere is refused
/// before any query runs on it.
///
/// A view named `events` can hang every query that reads events (an endless recursive
/// query) or make every value a gigabyte; a trigger or an extra view is code the file
/// brings with it. The reader runs only on the schema it was written for: the expected
/// objects are made by applying the embedded migrations to an in-memory database, so a
/// new migration is covered without a list to keep up to date.
package struct JournalSchemaObjects: Equatable, Sendable {
    /// One row of `sqlite_schema`.
    package struct Object: Equatable, Sendable {
        package var type: String
        package var name: String
        package var table: String
        /// `CREATE …` as written; `nil` for the indexes SQLite makes for constraints.
        package var sql: String?
    }

    /// The objects, by name.
    package var objects: [String: Object]

    /// The statistics tables `ANALYZE` makes. The library never runs `ANALYZE`.
    static let statisticsTables: Set<String> = ["sqlite_stat1", "sqlite_stat2", "sqlite_stat3", "sqlite_stat4"]

    /// What the first `version` migrations create.
    /// - Throws: `SQLiteError` if the in-memory database cannot be made (out of memory).
    package static func expected(version: Int) throws(SQLiteError) -> JournalSchemaObjects {
        let database = try SQLiteDatabase(path: ":memory:", mode: .readWriteCreate)
        for migration in JournalSchema.embeddedMigrations.prefix(version) {
            try database.execute(migration.sql)
        }
        return try read(database)
    }

    /// The objects of `database`.
    static func read(_ database: SQLiteDatabase) throws(SQLiteError) -> JournalSchemaObjects {
        var objects: [String: Object] = [:]
        let statement = try database.prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema")
        while try statement.step() {
            let object = Object(
                type: statement.text(0), name: statement.text(1), table: statement.text(2), sql: statement.optionalText(3)
            )
            objects[object.name] = object
        }
        return JournalSchemaObjects(objects: objects)
    }

    /// Checks that the journal behind `database`, at schema `version`, has exactly the
    /// objects its migrations create. Statistics tables (`sqlite_stat1`, `sqlite_stat4`)
    /// may exist but must be empty: their rows steer SQLite's query planner, and rows
    /// the library never wrote can make a query that takes seconds take hours.
    /// - Parameter path: the journal's path, for the command that removes statistics.
    /// - Returns: `nil` if it does; otherwise what differs, for a person.
    package static func difference(
        _ database: SQLiteDatabase, version: Int, path: String
    ) throws(SQLiteError) -> String? {
        let expected = try expected(version: version).objects
        let found = try read(database).objects
        for name in found.keys.sorted() where statisticsTables.contains(name) {
            if try database.scalarInt("SELECT EXISTS (SELECT 1 FROM \"\(name)\")") != 0 {
                return "it holds query planner statistics (\(name)) that ObservationJournal never writes; "
                    + "remove them with: sqlite3 \(shellQuoted(path)) 'DELETE FROM \(name)'"
            }
        }
        // A table turned into a view first, then a changed definition: they say more than
        // the extra objects that came with them.
        for name in expected.keys.sorted() {
            guard let wanted = expected[name], let object = found[name], object.type != wanted.type else { continue }
            return "'\(shortened(name))' is \(article(object.type)) \(object.type), where journal schema \(version) has \(article(wanted.type)) \(wanted.type) (the schema was changed outside ObservationJournal)"
        }
        for name in expected.keys.sorted() {
            guard let wanted = expected[name], let object = found[name] else { continue }
            if object != wanted {
                return "the \(object.type) '\(shortened(name))' is not defined as journal schema \(version) defines it (the schema was changed outside ObservationJournal)"
            }
        }
        for name in found.keys.sorted() where !statisticsTables.contains(name) && expected[name] == nil {
            let type = found[name]!.type
            return "it has \(article(type)) \(type) '\(shortened(name))' that journal schema \(version) does not have (the schema was changed outside ObservationJournal)"
        }
        for name in expected.keys.sorted() where found[name] == nil {
            return "the \(expected[name]!.type) '\(name)' of journal schema \(version) is missing (the schema was changed outside ObservationJournal)"
        }
        return nil
    }

    /// The column CHECK constraints of the tables the first `version` migrations create,
    /// by table, as SQL expressions (from the library's own migrations, never the file's).
    ///
    /// A read-only connection drops CHECK constraints when it reads the schema (nothing it
    /// does can break them), so its `PRAGMA integrity_check` never reports values that
    /// break them; `check` evaluates these instead.
    /// - Throws: `SQLiteError` if the in-memory database cannot be made.
    package static func checkConstraints(version: Int) throws(SQLiteError) -> [(table: String, expressions: [String])] {
        let objects = try expected(version: version).objects.values
        return objects.filter { $0.type == "table" }.sorted { $0.name < $1.name }.compactMap { table in
            let expressions = checkExpressions(in: table.sql ?? "")
            return expressions.isEmpty ? nil : (table.name, expressions)
        }
    }

    /// The expression of every `CHECK (…)` in `sql`, parentheses balanced. The migrations'
    /// SQL holds no parenthesis inside a string literal of a CHECK.
    static func checkExpressions(in sql: String) -> [String] {
        var result: [String] = []
        let bytes = Array(sql.utf8)
        let keyword = Array("CHECK (".utf8)
        var index = 0
        while index + keyword.count <= bytes.count {
            guard Array(bytes[index..<(index + keyword.count)]) == keyword else {
                index += 1
                continue
            }
            let start = index + keyword.count
            var depth = 1
            var end = start
            while end < bytes.count, depth > 0 {
                if bytes[end] == UInt8(ascii: "(") { depth += 1 }
                if bytes[end] == UInt8(ascii: ")") { depth -= 1 }
                end += 1
            }
            guard depth == 0 else { break }
            result.append(String(decoding: bytes[start..<(end - 1)], as: UTF8.self))
            index = end
        }
        return result
    }

    private static func article(_ type: String) -> String {
        type.first.map { "aeiou".contains($0) } == true ? "an" : "a"
    }

    /// A name as a message shows it: at most 60 characters.
    private static func shortened(_ name: String) -> String {
        name.count <= 60 ? name : String(name.prefix(59)) + "…"
    }
}
