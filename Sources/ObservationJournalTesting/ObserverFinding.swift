import JournalAnalysis

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
    /// The call sites involved (`Module/File.swift:42`), the first where it is reported.
    public var callSites: [String]
    /// The evidence, one line each (`seq 2: … assigned it at File.swift:128, …`).
    public var evidence: [String]
    /// What to change.
    public var fix: String
    /// The same for the same bug in every recording: what baselines list.
    public var fingerprint: String

    init(_ finding: Finding) {
        code = finding.rule.code
        rule = finding.rule.name
        severity = FindingSeverity(rawValue: finding.severity.rawValue) ?? .error
        message = finding.message
        callSites = finding.callSites
        evidence = finding.evidence
        fix = finding.fix
        fingerprint = finding.fingerprint
    }

    /// `warning[OJ002] duplicate-registration: …`
    public var description: String { "\(severity.rawValue)[\(code)] \(rule): \(message)" }

    /// The description, the evidence, the fix and the fingerprint, as a test failure shows them.
    var report: String {
        ([description] + evidence.map { "    " + $0 } + ["  fix: " + fix, "  fingerprint: " + fingerprint])
            .joined(separator: "\n")
    }
}
