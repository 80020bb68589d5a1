import SystemShim

/// A file of the fleet export, written under a temporary name beside where it goes
/// (`.NAME.tmp-PID-RANDOM`, mode 0600, removed on SIGTERM, SIGHUP and SIGINT) and put in
/// place with `link(2)`, which never replaces anything: a file already at the path (the
/// same journal exported before, or a copy of it exported in the same run) is refused,
/// and the file there is left as it was.
package final class StagedFile: TextOutput, @unchecked Sendable {
    /// Where the file goes.
    package let path: String
    let temporary: String
    private var descriptor: Int32
    private let pendingSlot: Int?
    private var buffer: [UInt8] = []
    private var failure: Int32 = 0
    private var discarded = false

    /// Creates the temporary file for `path` (whose directory exists).
    /// - Throws: `AnalysisError.output` when it cannot be created.
    package init(_ path: String) throws(AnalysisError) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<8 {
            let random = String((generator.next() as UInt64) & 0xFFFF_FFFF, radix: 16)
            let temporary = "\(directory)/.\(name).tmp-\(getpid())-\(random)"
            let slot = PendingOutputs.add(temporary)
            let descriptor = systemOpen(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if descriptor >= 0 {
                self.path = path
                self.temporary = temporary
                self.descriptor = descriptor
                self.pendingSlot = slot
                buffer.reserveCapacity(1 << 16)
                return
            }
            let error = errno
            slot.map(PendingOutputs.remove)
            if error != EEXIST { throw .output(path: path, detail: errorText(error)) }
        }
        throw .output(path: path, detail: "no free temporary name in \(directory)")
    }

    deinit { discard() }

    package func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { drain() }
    }

    package func flush() throws(AnalysisError) {
        drain()
        if failure != 0 { throw .output(path: path, detail: errorText(failure)) }
    }

    private func drain() {
        defer { buffer.removeAll(keepingCapacity: true) }
        guard failure == 0, descriptor >= 0, !buffer.isEmpty else { return }
        failure = writeAll(descriptor, buffer)
    }

    /// Writes what is buffered and closes the temporary file (before it is put in place:
    /// a journal's files wait for the journals before it, and open files are bounded).
    package func finishWriting() throws(AnalysisError) {
        try flush()
        if descriptor >= 0 { _ = close(descriptor) }
        descriptor = -1
    }

    /// Puts the file at `path`. Returns `false`, removing the temporary file, when
    /// something is there already.
    /// - Throws: `AnalysisError.output` when linking fails otherwise.
    package func publish() throws(AnalysisError) -> Bool {
        try finishWriting()
        defer { discard() }
        if link(temporary, path) == 0 { return true }
        if errno == EEXIST { return false }
        throw .output(path: path, detail: errorText(errno))
    }

    /// Removes the temporary file (the published one, if any, stays).
    package func discard() {
        if descriptor >= 0 { _ = close(descriptor) }
        descriptor = -1
        guard !discarded else { return }
        discarded = true
        unlink(temporary)
        pendingSlot.map(PendingOutputs.remove)
    }
}
