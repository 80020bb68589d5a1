import JournalAnalysis

/// Why a command stopped: a usage error (exit 64) or input it could not use (exit 2).
enum CLIError: Error {
    case usage(UsageError)
    case input(String)

    static func analysis(_ error: AnalysisError) -> CLIError { .input(error.description) }
}

/// The exit codes of `obsreplay`.
package enum ExitCode {
    package static let success: Int32 = 0
    /// `diagnose` found findings at or above `--fail-on`; `check` found damage.
    package static let findings: Int32 = 1
    /// The input could not be used.
    package static let input: Int32 = 2
    /// The command line was wrong.
    package static let usage: Int32 = 64
}
