import Foundation
import JournalStore
import SystemShim

/// An upgraded copy of an older journal in a directory of its own under the temporary
/// directory, for a reader: readers read the latest schema only, and the user's file is
/// never written. The copy is made from the reader's validated, read-only connection,
/// row by row (`JournalRowCopy`: what its tables hold, `-wal` included), upgraded by
/// `JournalMigrator.upgrade`, and removed with its directory when this goes.
///
/// The directory is named `obsreplay-upgrade-PID-RANDOM`. A process ended by SIGTERM,
/// SIGHUP or SIGINT removes it on its way out (`PendingOutputs`); one that died some other
/// way leaves it, and the next copy made removes every such directory whose process is
/// gone (`removeStale`).
final class JournalCopy {
    /// The copy's path.
    let path: String
    private let directory: String
    /// The `PendingOutputs` slots of the copy, its side files and its directory.
    private var slots: [Int] = []

    /// The name prefix of the copies' directories.
    static let prefix = "obsreplay-upgrade-"
    /// The files SQLite may make in a copy's directory.
    static let files = ["journal.sqlite"] + SideFileCheck.suffixes.map { "journal.sqlite" + $0 }

    /// Copies the journal behind `file` (read-only, validated, opened from `path`) and
    /// upgrades the copy.
    /// - Throws: `JournalError` naming `path` (never the copy) when either step fails.
    init(upgrading file: SQLiteDatabase, version: Int, path original: String) throws(JournalError) {
        let base = FileManager.default.temporaryDirectory.path
        Self.removeStale(in: base)
        let template = (base as NSString).appendingPathComponent("\(Self.prefix)\(getpid())-XXXXXX")
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else {
            throw .sqlite(path: original, detail: "cannot make a directory for its upgraded copy in \(base)")
        }
        directory = String(cString: made)
        path = (directory as NSString).appendingPathComponent("journal.sqlite")
        // Files first, the directory last: the signal handler unlinks, then removes directories.
        for name in Self.files {
            if let slot = PendingOutputs.add((directory as NSString).appendingPathComponent(name)) { slots.append(slot) }
        }
        if let slot = PendingOutputs.add(directory) { slots.append(slot) }
        do {
            try JournalRowCopy.copy(file, version: version, journal: original, to: path)
        } catch {
            removeAll()
            throw error
        }
        do {
            _ = try JournalMigrator.upgrade(path: path)
        } catch {
            removeAll()
            // The copy's name means nothing to the user: say it of their file.
            let what = error.description.hasPrefix(path + ": ") ? String(error.description.dropFirst(path.count + 2)) : error.description
            throw .refused(path: original, reason: "cannot be read: schema \(JournalSchema.latestVersion) cannot be made of it (\(what))")
        }
    }

    deinit { removeAll() }

    private func removeAll() {
        try? FileManager.default.removeItem(atPath: directory)
        for slot in slots { PendingOutputs.remove(slot) }
        slots = []
    }

    /// Removes the copies' directories in `base` whose process no longer exists
    /// (`kill(pid, 0)` says `ESRCH`): only directories (not links) the current user owns,
    /// holding nothing but the files a copy has. Returns the names removed, sorted.
    @discardableResult
    static func removeStale(in base: String) -> [String] {
        guard let entries = directoryEntryNames(base) else { return [] }
        let names = entries.filter { pid(of: $0) != nil }
        var removed: [String] = []
        for name in names.sorted() {
            guard let owner = pid(of: name), kill(owner, 0) == -1 && errno == ESRCH else { continue }
            let folder = (base as NSString).appendingPathComponent(name)
            var status = stat()
            guard lstat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == geteuid() else { continue }
            for file in files {
                let inside = (folder as NSString).appendingPathComponent(file)
                var fileStatus = stat()
                if lstat(inside, &fileStatus) == 0, fileStatus.st_mode & S_IFMT == S_IFREG { unlink(inside) }
            }
            // Fails, leaving it, if anything else is inside.
            if rmdir(folder) == 0 { removed.append(name) }
        }
        return removed
    }

    /// The PID in a copy directory's name (`obsreplay-upgrade-PID-XXXXXX`), or `nil`.
    static func pid(of name: String) -> Int32? {
        guard name.hasPrefix(prefix) else { return nil }
        let parts = name.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 6, let pid = Int32(parts[0]), pid > 0 else { return nil }
        return pid
    }
}
