import JournalStore
import SystemShim

/// The files a journal's creation leaves if its process dies mid-way.
///
/// `Journal.open` builds a new journal as `NAME.new-PID-RANDOM` beside the path and links
/// it into place when complete; a process killed before then leaves that file (and its
/// `-wal`, `-shm`, `-journal`) for ever. The next open removes such litter — only names
/// of exactly this pattern, only of processes that no longer exist (`kill(pid, 0)` says
/// `ESRCH`), and only regular files the current user owns; anything else is left alone.
enum CreationLitter {
    /// The name of a new journal being built for `path` by this process.
    static func temporaryName(for path: String) -> String {
        "\(path).new-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Removes the litter of dead creators beside `path`; returns the names removed.
    @discardableResult
    static func removeStale(besides path: String) -> [String] {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let prefix = (slash.map { String(path[path.index(after: $0)...]) } ?? path) + ".new-"
        return ProcessLitter.removeDead(in: directory) { name in
            name.hasPrefix(prefix) ? creatorPID(name.dropFirst(prefix.count)) : nil
        }
    }

    /// The PID in `PID-RANDOM` or `PID-RANDOM-wal` (`-shm`, `-journal`), if it is exactly that.
    static func creatorPID(_ rest: Substring) -> pid_t? {
        var parts = rest.split(separator: "-", omittingEmptySubsequences: false)
        if parts.count == 3, SideFileCheck.suffixes.contains("-" + parts[2]) { parts.removeLast() }
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            UInt32(parts[1]) != nil
        else { return nil }
        return pid_t(parts[0])
    }
}
