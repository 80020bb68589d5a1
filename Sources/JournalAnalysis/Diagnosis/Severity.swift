/// How serious a finding is. Ordered: `info < warning < error`.
package enum Severity: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Worth knowing; often intended.
    case info
    /// Probably a bug, or a habit that leads to one.
    case warning
    /// A bug: a callback missed, ran for a dead owner, or ran on the wrong thread.
    case error

    private var rank: Int {
        switch self {
        case .info: return 0
        case .warning: return 1
        case .error: return 2
        }
    }

    package static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
}
