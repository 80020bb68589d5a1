package import DemoApps

/// Why `obsreplay demo` could not record its journal. Each case leaves any existing file
/// at the journal's path as it was.
package enum DemoError: Error, CustomStringConvertible, Equatable {
    /// Something that is not a demo journal (see `DemoLabel`) is at the path.
    case notADemoJournal(path: String, reason: String)
    /// SQLite's side files (`-wal`, `-shm`, `-journal`) lie at the path without a journal
    /// they belong to; a new journal there would take them for its own.
    case strayFile(path: String)
    /// The new journal could not be created or recorded into (`detail` says why).
    case recording(path: String, detail: String)
    /// A scenario could not run.
    case scenario(ScenarioError)
    /// Moving the new journal into place failed.
    case fileSystem(path: String, detail: String)

    /// One line a person can act on.
    package var description: String {
        switch self {
        case let .notADemoJournal(path, reason):
            return "\(path) is not a demo journal: \(reason). It was left untouched; "
                + "choose another path with --journal, or move it away"
        case let .strayFile(path):
            return "\(path) exists without the journal it belongs to. It was left untouched; "
                + "choose another path with --journal, or move it away"
        case let .recording(path, detail):
            return "\(path): \(detail)"
        case let .scenario(error):
            return error.description
        case let .fileSystem(path, detail):
            return "\(path): \(detail)"
        }
    }
}
