/// Which sessions a report shows.
package enum ReportSelection: Sendable, Equatable {
    /// The latest session (what other commands default to).
    case latest
    /// The session with this id.
    case session(Int64)
    /// Every session, each on its own tab, oldest first.
    case all
}
