import Foundation
import JournalStore

/// An upgraded copy of an older journal in a directory of its own under the temporary
/// directory, for a reader: readers read the latest schema only, and the user's file is
/// never written. The copy is made from the reader's validated, read-only connection
/// (SQLite's backup API: a consistent snapshot that includes what the `-wal` holds), upgraded by
/// `JournalMigrator.upgrade`, and removed with its directory when this goes.
final class JournalCopy {
    /// The copy's path.
    let path: String
    private let directory: String

    /// Copies the journal behind `file` (read-only, validated, opened from `path`) and
    /// upgrades the copy.
    /// - Throws: `JournalError` naming `path` (never the copy) when either step fails.
    init(upgrading file: SQLiteDatabase, path original: String) throws(JournalError) {
        let base = FileManager.default.temporaryDirectory.path
        let template = (base as NSString).appendingPathComponent("obsreplay-upgrade-XXXXXX")
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else {
            throw .sqlite(path: original, detail: "cannot make a directory for its upgraded copy in \(base)")
        }
        directory = String(cString: made)
        path = (directory as NSString).appendingPathComponent("journal.sqlite")
        do {
            try file.copy(to: path)
        } catch {
            Self.remove(directory)
            throw JournalFile.classify(error, path: original)
        }
        do {
            _ = try JournalMigrator.upgrade(path: path)
        } catch {
            Self.remove(directory)
            // The copy's name means nothing to the user: say it of their file.
            let what = error.description.hasPrefix(path + ": ") ? String(error.description.dropFirst(path.count + 2)) : error.description
            throw .refused(path: original, reason: "cannot be read: schema \(JournalSchema.latestVersion) cannot be made of it (\(what))")
        }
    }

    deinit { Self.remove(directory) }

    private static func remove(_ directory: String) {
        try? FileManager.default.removeItem(atPath: directory)
    }
}
