import SystemShim

/// The temporary files of outputs being written (`OutputFile`) and the upgraded copies
/// of older journals being read (`JournalCopy`: its files, then its directory), removed when SIGTERM,
/// SIGHUP or SIGINT ends the process: a `report -o` or `export -o` stopped by a CI
/// timeout, a closed terminal or Ctrl-C must not leave `.NAME.tmp-PID-RANDOM` behind
/// (megabytes each). Files of a process that died some other way (SIGKILL, a crash) are
/// removed by the next output written in that directory (`OutputFile`, `ProcessLitter`).
///
/// The handler only calls `unlink` on paths kept as C strings in fixed slots (then
/// `rmdir`, for the copies' directories, once their files are gone), then
/// restores the signal's default action and raises it again, so the process still ends
/// by that signal (exit status and shell behaviour unchanged). Handlers are installed
/// once, and only for signals whose action is still the default: an app that handles
/// them itself keeps its handler.
enum PendingOutputs {
    /// Paths kept at once: one per output (one per command), five per upgraded copy (a
    /// command over a directory may hold a reader per journal); a path beyond this is
    /// written as before, only not removed on a signal.
    static let capacity = 512

    /// The paths: changed under `lock`, read by the handler.
    nonisolated(unsafe) private static let paths = SignalSafePaths(capacity: capacity)
    private static let lock = Lock()
    nonisolated(unsafe) private static var installed = false

    /// The signals that remove pending outputs.
    static let signals = [SIGTERM, SIGHUP, SIGINT]

    /// Keeps `path` for removal on a signal; returns its slot, for `remove`.
    static func add(_ path: String) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        if !installed {
            installed = true
            install()
        }
        return paths.add(path)
    }

    /// Forgets the path in `slot` (renamed into place or removed).
    static func remove(_ slot: Int) {
        lock.lock()
        defer { lock.unlock() }
        paths.remove(slot)
    }

    private static func install() {
        _ = paths
        let handler: @convention(c) (Int32) -> Void = { signalNumber in
            PendingOutputs.paths.removeAllFiles()
            signal(signalNumber, SIG_DFL)
            raise(signalNumber)
        }
        for signalNumber in signals {
            var current = sigaction()
            guard sigaction(signalNumber, nil, &current) == 0, handlerIsDefault(current) else { continue }
            var action = sigaction()
            action.handler = handler
            sigemptyset(&action.sa_mask)
            sigaction(signalNumber, &action, nil)
        }
    }

    /// Whether `action` is `SIG_DFL` (a null handler; `SIG_IGN` and a function are not).
    private static func handlerIsDefault(_ action: sigaction) -> Bool {
        action.handler == nil
    }
}
