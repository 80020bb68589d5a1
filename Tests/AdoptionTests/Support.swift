import Foundation
import JournalAnalysis
@testable import ObservationJournal

/// A directory of its own for one test, removed afterwards.
final class Scratch {
    let directory: String

    init() {
        directory = NSTemporaryDirectory() + "AdoptionTests-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A path in the directory.
    func path(_ name: String = "journal.sqlite") -> String { directory + "/" + name }
}

/// The rows of `sql` through a read-only connection, columns joined by `|`, NULL as `NULL`.
func rows(_ path: String, _ sql: String) throws -> [String] {
    // Not `JournalFile.openForReading`: its hardened connection runs no views, and these
    // tests read the documented views as a user would in the sqlite3 shell.
    let database = try SQLiteDatabase(path: path, mode: .readOnly)
    let statement = try database.prepare(sql)
    var result: [String] = []
    while try statement.step() {
        result.append((0..<statement.columnCount).map { statement.optionalText($0) ?? "NULL" }.joined(separator: "|"))
    }
    return result
}

/// The findings of the journal's only session, as `code name: message` lines.
func findings(_ path: String) throws -> [String] {
    let reader = try JournalReader(path: path)
    return try Diagnoser.diagnose(reader, session: try reader.session(nil)).map {
        "\($0.rule.code) \($0.rule.name): \($0.message)"
    }
}

/// Returns once the main queue has run everything enqueued on it before this call.
@MainActor
func mainQueueDrained() async {
    await withCheckedContinuation { continuation in
        DispatchQueue.main.async { continuation.resume() }
    }
}
