import JournalStore
import SystemShim

/// A file named by `-o`, opened so that writing it can damage nothing.
///
/// What happens depends on what the path is, decided before anything is written:
/// - **The journal, or one of its side files** (`-wal`, `-shm`, `-journal`), by name or
///   through any symlink or hard link (same device and inode): refused. Truncating a live
///   WAL or the memory-mapped `-shm` kills readers and the recording app with SIGBUS or
///   corrupts the journal.
/// - **A regular file, or nothing yet:** written to a temporary file in the same
///   directory and renamed over the path at `commit()`, so a failed command leaves the old
///   file (or none) and never a partial one. A new file is created `0600` — a journal may
///   hold user data, and so may what is made from it; replacing an existing file keeps
///   that file's permission bits (so `chmod 644 report.html` once is how to ask for a
///   readable one).
/// - **A symlink to a regular file:** followed; the target is replaced atomically and the
///   link stays. A symlink to nothing is refused.
/// - **A FIFO or a character device** (`/dev/null`, a terminal): written in place, never
///   replaced. A block device, a directory or a socket is refused.
/// - **`/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`**: written to that
///   descriptor, sharing its offset and append mode, so `>> log` stays an append.
/// - **In a directory others may write** (`/tmp`, a shared folder): a symlink, FIFO or
///   device there that belongs neither to the user nor to the directory's owner is
///   refused, as Linux's `protected_symlinks`/`protected_fifos` would (a machine may
///   have them off): another user could have planted it to make the output overwrite
///   their choice of the user's files.
/// - **A path the user did not name** (`report JOURNAL` writes `JOURNAL.html`,
///   `Origin.derived`): it may have come with the journal, so only nothing or a regular
///   file there is accepted; a symlink, a FIFO or a device is refused (before anything
///   could block on it), with the advice to name the output with `-o`.
///
/// Not thread-safe: one command writes one output.
package final class OutputFile {
    /// The path as given, for messages.
    package let path: String
    /// Where to write the bytes.
    package let descriptor: Int32
    /// The temporary file and the path it will replace, for an atomic replacement.
    private let replacement: (temporary: String, target: String, mode: mode_t)?
    /// The temporary file's slot in `PendingOutputs` (removed on SIGTERM, SIGHUP, SIGINT).
    private let pendingSlot: Int?
    private var finished = false

    private init(
        path: String, descriptor: Int32, replacement: (temporary: String, target: String, mode: mode_t)?, pendingSlot: Int? = nil
    ) {
        self.path = path
        self.descriptor = descriptor
        self.replacement = replacement
        self.pendingSlot = pendingSlot
    }

    deinit { if !finished { discard() } }

    /// Who chose an output path.
    package enum Origin: Sendable {
        /// The user, with `-o` (or `--write-baseline`).
        case named
        /// The command, from the journal's name: the user never saw it.
        case derived
    }

    /// Opens `path` for output made from the journals at `journalPaths`.
    /// - Parameters:
    ///   - path: the `-o` path. `-` is the caller's business (standard output).
    ///   - journalPaths: the journals being read; they and their side files are never written.
    ///   - what: what is written, for messages (`report`, `export`).
    ///   - origin: whether the user named `path` or the command made it up.
    /// - Throws: `AnalysisError.outputRefused` naming the reason, or `.output` when the
    ///   file cannot be created.
    package static func open(
        _ path: String, protecting journalPaths: [String], what: String, origin: Origin = .named
    ) throws(AnalysisError) -> OutputFile {
        if origin == .named, let inherited = inheritedDescriptor(path) {
            let descriptor = dup(inherited)
            guard descriptor >= 0 else { throw .output(path: path, detail: errorText(errno)) }
            let output = OutputFile(path: path, descriptor: descriptor, replacement: nil)
            // `> journal.sqlite-wal` on the shell, then `-o /dev/stdout`: still refused.
            var status = stat()
            let identity = fstat(descriptor, &status) == 0 ? [UInt64(status.st_dev), UInt64(status.st_ino)] : nil
            for journalPath in journalPaths {
                try refuseJournalFiles(path, identity: identity, name: nil, journalPath: journalPath, what: what)
            }
            return output
        }
        let target = identity(of: path), targetName = resolvedName(path)
        for journalPath in journalPaths {
            try refuseJournalFiles(path, identity: target, name: targetName, journalPath: journalPath, what: what)
        }

        var link = stat()
        let exists = lstat(path, &link) == 0
        if exists, origin == .derived, link.st_mode & S_IFMT != S_IFREG {
            let how = link.st_mode & S_IFMT == S_IFLNK ? "through a symlink" : "into something that is not a regular file"
            throw .outputRefused(path: path, reason: "write the \(what) \(how) the journal's name led to (it may have come with the journal); name the output with -o")
        }
        if exists, let reason = plantedByAnother(path, link) {
            throw .outputRefused(path: path, reason: "write the \(what) through \(reason)")
        }
        var status = stat()
        if exists && stat(path, &status) != 0 {
            throw .outputRefused(path: path, reason: "write the \(what) through a symlink to a missing file")
        }
        let type = exists ? status.st_mode & S_IFMT : S_IFREG
        switch type {
        case S_IFREG:
            // Follow a symlink so the link stays and its target is replaced.
            let target = (exists && link.st_mode & S_IFMT == S_IFLNK) ? (resolved(path) ?? path) : path
            let mode = exists ? status.st_mode & 0o777 : 0o600
            return try replacing(target, displayPath: path, mode: mode)
        case S_IFIFO, S_IFCHR:
            let descriptor = systemOpen(path, O_WRONLY | O_CLOEXEC | O_NOCTTY, 0)
            guard descriptor >= 0 else { throw .output(path: path, detail: errorText(errno)) }
            return OutputFile(path: path, descriptor: descriptor, replacement: nil)
        case S_IFDIR:
            throw .outputRefused(path: path, reason: "write the \(what) over a directory")
        case S_IFBLK:
            throw .outputRefused(path: path, reason: "write the \(what) to a block device")
        default:
            throw .outputRefused(path: path, reason: "write the \(what) to a socket or special file")
        }
    }

    /// Writes all of `text`.
    /// - Throws: `AnalysisError.output` with the system's reason.
    package func write(_ text: String) throws(AnalysisError) {
        let failure = writeAll(descriptor, text)
        if failure != 0 { throw .output(path: path, detail: errorText(failure)) }
    }

    /// Finishes the output: for a replacement, makes the bytes durable and renames them
    /// over the path; otherwise closes the descriptor.
    /// - Throws: `AnalysisError.output`; the temporary file is removed then.
    package func commit() throws(AnalysisError) {
        guard !finished else { return }
        guard let replacement else {
            finished = true
            close(descriptor)
            return
        }
        // fchmod, not the creation mode: the umask must not widen nor narrow a kept mode.
        let failure: Int32? =
            if fchmod(descriptor, replacement.mode) != 0 || fsync(descriptor) != 0 { errno } else { nil }
        if let failure {
            discard()
            throw .output(path: path, detail: errorText(failure))
        }
        finished = true
        close(descriptor)
        defer { pendingSlot.map(PendingOutputs.remove) }
        if rename(replacement.temporary, replacement.target) != 0 {
            let detail = errorText(errno)
            unlink(replacement.temporary)
            throw .output(path: path, detail: detail)
        }
    }

    /// Abandons the output: a replacement's temporary file is removed and the path is
    /// left as it was.
    package func discard() {
        guard !finished else { return }
        finished = true
        close(descriptor)
        if let replacement { unlink(replacement.temporary) }
        pendingSlot.map(PendingOutputs.remove)
    }

    // MARK: - Deciding

    /// The descriptor that `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` or
    /// `/proc/self/fd/N` stand for, if `path` is one of them.
    static func inheritedDescriptor(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdout": return 1
        case "/dev/stderr": return 2
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                return Int32(path.dropFirst(prefix.count))
            }
            return nil
        }
    }

    /// Why following `path` (`lstat` gave `link`) could hand the output to another user's
    /// choice: a symlink, FIFO or device in a directory others may write, owned neither by
    /// this user nor by the directory's owner (the rule of Linux's `protected_symlinks`
    /// and `protected_fifos`, applied whatever the machine's setting, and to every
    /// directory writable by others, sticky or not). Each link of a chain is judged.
    static func plantedByAnother(_ path: String, _ link: stat) -> String? {
        let user = geteuid()
        var current = path, status = link
        for _ in 0..<40 {
            let type = status.st_mode & S_IFMT
            guard type == S_IFLNK || type == S_IFIFO || type == S_IFCHR else { return nil }
            let slash = current.lastIndex(of: "/")
            let directory = slash.map { $0 == current.startIndex ? "/" : String(current[..<$0]) } ?? "."
            var parent = stat()
            guard stat(directory, &parent) == 0 else { return nil }
            if parent.st_mode & S_IWOTH != 0, status.st_uid != user, status.st_uid != parent.st_uid {
                let kind = type == S_IFLNK ? "a symlink" : type == S_IFIFO ? "a FIFO" : "a device"
                return "\(kind) \(current) owned by uid \(status.st_uid) in \(directory), which anyone may write"
            }
            guard type == S_IFLNK else { return nil }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, Int(PATH_MAX))
            guard count > 0 else { return nil }
            let destination = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = destination.hasPrefix("/") ? destination : directory + "/" + destination
            guard lstat(current, &status) == 0 else { return nil }
        }
        return nil
    }

    /// Refuses `path` if it is the journal or one of its side files, by identity (device
    /// and inode of what `path` reaches: through symlinks and hard links) or, for a side
    /// file that does not exist now, by canonical name.
    static func refuseJournalFiles(
        _ path: String, identity target: [UInt64]?, name targetName: String?, journalPath: String, what: String
    ) throws(AnalysisError) {
        let sideFiles = [
            ("", "the journal"),
            ("-wal", "the journal's write-ahead log"),
            ("-shm", "the journal's shared-memory index"),
            ("-journal", "the journal's rollback journal"),
        ]
        let journalName = resolved(journalPath)
        for (suffix, name) in sideFiles {
            let sidePath = journalPath + suffix
            let sameFile = target != nil && target == identity(of: sidePath)
            let sameName = journalName != nil && targetName != nil && targetName == journalName! + suffix
            if sameFile || sameName {
                let named = suffix.isEmpty ? name : "\(name) (\(sidePath))"
                throw .outputRefused(path: path, reason: "write the \(what) over \(named)")
            }
        }
    }

    /// Creates the temporary file that will replace `target`.
    private static func replacing(_ target: String, displayPath: String, mode: mode_t) throws(AnalysisError) -> OutputFile {
        let slash = target.lastIndex(of: "/")
        let directory = slash.map { String(target[..<$0]) } ?? "."
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        // What a writer killed before it could clean up (SIGKILL, a crash) left here.
        ProcessLitter.removeDead(in: directory.isEmpty ? "/" : directory, pid: temporaryFilePID)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<8 {
            let random = String((generator.next() as UInt64) & 0xFFFF_FFFF, radix: 16)
            let temporary = "\(directory.isEmpty ? "" : directory)/.\(name).tmp-\(getpid())-\(random)"
            // Kept for removal on a signal before the file exists: a signal between its
            // creation and its registration would leave it behind.
            let slot = PendingOutputs.add(temporary)
            let descriptor = systemOpen(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if descriptor >= 0 {
                return OutputFile(
                    path: displayPath, descriptor: descriptor, replacement: (temporary, target, mode), pendingSlot: slot
                )
            }
            let failure = errno
            slot.map(PendingOutputs.remove)
            if failure != EEXIST { throw .output(path: displayPath, detail: errorText(failure)) }
        }
        throw .output(path: displayPath, detail: "no free temporary name in \(directory)")
    }

    /// The PID in a temporary file's name, `.NAME.tmp-PID-RANDOM` (RANDOM: 1 to 8 hex
    /// digits), if `name` is exactly that.
    package static func temporaryFilePID(_ name: String) -> Int32? {
        guard name.hasPrefix("."), let marker = name.range(of: ".tmp-", options: .backwards) else { return nil }
        let parts = name[marker.upperBound...].split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...8).contains(parts[1].count), UInt32(parts[1], radix: 16) != nil,
              !parts[0].isEmpty, parts[0].allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        return pid_t(parts[0])
    }

    private static func identity(of path: String) -> [UInt64]? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return [UInt64(status.st_dev), UInt64(status.st_ino)]
    }

    /// The canonical path of an existing file.
    private static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// The canonical path `path` names, whether or not the file exists: its directory
    /// resolved, its last component as given (or, for a symlink, where it points).
    private static func resolvedName(_ path: String) -> String? {
        if let full = resolved(path) { return full }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard let base = resolved(directory) else { return nil }
        return (base == "/" ? "" : base) + "/" + name
    }

}
