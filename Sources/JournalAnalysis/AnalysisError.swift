package import JournalStore

/// Why an analysis could not be done: the journal could not be used, or a request does
/// not fit it. One line a person can act on.
package enum AnalysisError: Error, CustomStringConvertible, Equatable {
    /// The file could not be opened or is not a usable journal.
    case journal(JournalError)
    /// The journal holds no sessions.
    case noSessions(path: String)
    /// A sequence number past the session's last event was asked for.
    case sequenceBeyondEnd(path: String, session: Int64, seq: Int64, last: Int64)
    /// An output file could not be written.
    case output(path: String, detail: String)
    /// An output path was refused before anything was written: `reason` completes
    /// "refusing to …" (`write the report over the journal`).
    case outputRefused(path: String, reason: String)

    /// One line a person can act on.
    package var description: String {
        switch self {
        case let .journal(error):
            return error.description
        case let .noSessions(path):
            return "\(path): the journal holds no sessions"
        case let .sequenceBeyondEnd(path, session, seq, last):
            return "\(path): seq \(seq) is beyond the end of session \(session) (last seq \(last))"
        case let .output(path, detail):
            return "\(path): cannot write output (\(detail))"
        case let .outputRefused(path, reason):
            return "\(path): refusing to \(reason)"
        }
    }
}
