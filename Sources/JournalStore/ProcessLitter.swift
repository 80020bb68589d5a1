import SystemShim

/// Files a process leaves in a directory when it dies mid-way (a journal being created, an
/// output being written), named with its PID so that a later run can tell whose they were.
package enum ProcessLitter {
    /// Removes the files in `directory` whose name `pid(of:)` maps to the PID of a process
    /// that no longer exists (`kill(pid, 0)` says `ESRCH`), and only regular files the
    /// current user owns; anything else (a live writer's file, a symlink, another user's
    /// file, other names) is left alone. Returns the names removed, sorted.
    @discardableResult
    package static func removeDead(in directory: String, pid: (String) -> Int32?) -> [String] {
        guard let entries = directoryEntryNames(directory) else { return [] }
        let names = entries.filter { name in pid(name).map { $0 > 0 } ?? false }
        var removed: [String] = []
        for name in names.sorted() {
            guard let owner = pid(name), kill(owner, 0) == -1 && errno == ESRCH else { continue }
            let file = (directory == "/" ? "" : directory) + "/" + name
            var status = stat()
            guard lstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid() else {
                continue
            }
            if unlink(file) == 0 { removed.append(name) }
        }
        return removed
    }
}
