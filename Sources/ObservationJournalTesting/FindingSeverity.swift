import JournalAnalysis

/// How serious a finding is: `info < warning < error`.
public enum FindingSeverity: String, Sendable, Hashable, CaseIterable, Comparable {
    /// Worth knowing; often intended.
    case info
    /// Probably a bug, or a habit that leads to one.
    case warning
    /// A bug: a callback missed, ran for a dead owner, or ran on the wrong thread.
    case error

    var severity: Severity {
        switch self {
        case .info: return .info
        case .warning: return .warning
        case .error: return .error
        }
    }

    /// Orders by seriousness.
    public static func < (lhs: FindingSeverity, rhs: FindingSeverity) -> Bool { lhs.severity < rhs.severity }
}
