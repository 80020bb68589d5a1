/// The rows of a journal's vocabulary tables (`event_kinds`, `delivery_policies`,
/// `removal_reasons`: code and name), checked against the enumerations this version knows
/// before anything reads the file.
///
/// Readers translate codes with the Swift enumerations, people and their SQL with these
/// tables: permuted rows would make `event_log` say `removed` where obsreplay says
/// `registered`. So each row must be `(code, name)` of the enumeration, codes from 0 in
/// order; a journal written before a value was appended may lack the values after it.
package enum JournalVocabulary {
    /// The vocabulary tables and the names of their enumeration, by code.
    static let tables: [(table: String, names: [String])] = [
        ("event_kinds", JournalEventKind.names),
        ("delivery_policies", JournalDeliveryPolicy.names),
        ("removal_reasons", JournalRemovalReason.names),
    ]

    /// `nil` if the vocabulary tables of `database` (those it has) hold what this version
    /// knows; otherwise what differs, for a person.
    /// - Throws: `SQLiteError` if a table cannot be read.
    package static func difference(_ database: SQLiteDatabase) throws(SQLiteError) -> String? {
        for (table, names) in tables {
            let exists = try database.prepare("SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1)")
            try exists.bind(table, at: 1)
            guard try exists.step(), exists.int(0) == 1 else { continue }
            // One row more than known is enough to tell; a name longer than any known is cut.
            let rows = try database.prepare(
                "SELECT code, substr(CAST(name AS BLOB), 1, 64) FROM \"\(table)\" ORDER BY code LIMIT \(names.count + 1)"
            )
            var expected = 0
            while try rows.step() {
                let code = rows.int(0), name = rows.text(1)
                guard expected < names.count, code == Int64(expected), name == names[expected] else {
                    let known = expected < names.count ? "code \(expected) is '\(names[expected])'" : "it has \(names.count) rows"
                    return "the vocabulary table '\(table)' does not hold what this version knows (\(known); the file has code \(code) as '\(JournalName.capped(name))'); the file was changed outside ObservationJournal"
                }
                expected += 1
            }
        }
        return nil
    }
}
