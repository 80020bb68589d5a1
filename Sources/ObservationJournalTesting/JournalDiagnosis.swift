import JournalAnalysis

/// The diagnosis of recorded sessions, for an app's own tests: record a UI flow into a
/// journal, then fail the test on the observer bugs `obsreplay diagnose` would report.
///
/// ```swift
/// let findings = try JournalDiagnosis.findings(inJournalAt: path, session: recording.sessionID)
/// #expect(findings.isEmpty, "\(findings)")
/// ```
///
/// Reads the journal read-only (call it after the session's `close()`). Thread-safe.
public enum JournalDiagnosis {
    /// The findings of one session at or above `minimum`, in the order `obsreplay diagnose`
    /// prints them.
    /// - Parameters:
    ///   - path: the journal's file.
    ///   - session: the session's id (`RecordingSession.sessionID`).
    ///   - minimum: the least severity to report; `.warning` by default (infos are often
    ///     intended, such as registrations meant to live to the end).
    /// - Throws: `JournalDiagnosisError` when the journal or the session cannot be read.
    public static func findings(
        inJournalAt path: String, session: Int64, minimum: FindingSeverity = .warning
    ) throws(JournalDiagnosisError) -> [ObserverFinding] {
        do {
            let reader = try JournalReader(path: path)
            return try Diagnoser.diagnose(reader, session: try reader.session(session))
                .filter { $0.severity >= minimum.severity }
                .map(ObserverFinding.init)
        } catch {
            throw JournalDiagnosisError(description: error.description)
        }
    }
}

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

/// One finding of the diagnosis, as `obsreplay diagnose` prints its first line.
public struct ObserverFinding: Sendable, Hashable, CustomStringConvertible {
    /// The rule's stable code (`OJ001`).
    public var code: String
    /// The rule's name (`last-callback-wins`).
    public var rule: String
    /// How serious it is.
    public var severity: FindingSeverity
    /// What happened, with the decisive facts (owners, channel, call sites).
    public var message: String
    /// The call sites involved (`File.swift:42`).
    public var callSites: [String]

    init(_ finding: Finding) {
        code = finding.rule.code
        rule = finding.rule.name
        severity = FindingSeverity(rawValue: finding.severity.rawValue) ?? .error
        message = finding.message
        callSites = finding.callSites
    }

    /// `warning[OJ002] duplicate-registration: …`
    public var description: String { "\(severity.rawValue)[\(code)] \(rule): \(message)" }
}

/// Why a journal could not be diagnosed: one line a person can act on (no such file, not a
/// journal, no such session, …).
public struct JournalDiagnosisError: Error, CustomStringConvertible, Equatable {
    /// The reason, naming the file.
    public var description: String
}
