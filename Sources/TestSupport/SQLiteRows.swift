import Foundation
import ObservationJournal

/// The rows of `sql`, read through a separate read-only connection (as `obsreplay` reads),
/// each as its columns joined by `|`, NULL as `NULL`.
package func rows(_ path: String, _ sql: String) throws -> [String] {
    // Not `JournalFile.openForReading`: its hardened connection runs no views, and tests
    // read the documented views as a user would in the sqlite3 shell.
    let database = try SQLiteDatabase(path: path, mode: .readOnly)
    let statement = try database.prepare(sql)
    var result: [String] = []
    while try statement.step() {
        result.append((0..<statement.columnCount).map { statement.optionalText($0) ?? "NULL" }.joined(separator: "|"))
    }
    return result
}

/// One integer from `sql` through a read-only connection.
package func scalar(_ path: String, _ sql: String) throws -> Int64 {
    try SQLiteDatabase(path: path, mode: .readOnly).scalarInt(sql)
}
