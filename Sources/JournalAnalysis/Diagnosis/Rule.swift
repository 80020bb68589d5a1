/// A rule of the catalog: a problem `diagnose` knows, with a stable code.
///
/// Each checker declares its rule next to its logic (`static let rule` in
/// `Rules/*Checker.swift`); `RuleCatalog` lists the checkers once, and everything that
/// lists rules (`--explain`, the help, SARIF metadata, the README table) derives from it.
/// Codes never change meaning and are never reused; scripts and CI configurations may
/// depend on them. Two values are the same rule when their codes are equal.
package struct Rule: Sendable, Hashable, CustomStringConvertible {
    /// The description, shared: every finding carries its rule, and a finding must stay
    /// small (one reference, not six strings).
    private final class Storage: Sendable {
        let code: String
        let name: String
        let severities: [Severity]
        let summary: String
        let details: String
        let fix: String

        init(code: String, name: String, severities: [Severity], summary: String, details: String, fix: String) {
            self.code = code
            self.name = name
            self.severities = severities
            self.summary = summary
            self.details = details
            self.fix = fix
        }
    }

    private let storage: Storage

    init(code: String, name: String, severities: [Severity], summary: String, details: String, fix: String) {
        precondition(!severities.isEmpty, "rule \(code) declares no severity")
        storage = Storage(code: code, name: name, severities: severities, summary: summary, details: details, fix: fix)
    }

    /// The stable code, `OJ001`.
    package var code: String { storage.code }
    /// The stable name, `last-callback-wins`.
    package var name: String { storage.name }
    /// The severities the rule can report, most common first (the first is the default).
    package var severities: [Severity] { storage.severities }
    /// One line: what the finding means.
    package var summary: String { storage.summary }
    /// The documentation between the summary and the fix: when it fires, when it does not.
    package var details: String { storage.details }
    /// What to do about it.
    package var fix: String { storage.fix }

    package static func == (lhs: Rule, rhs: Rule) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// `OJ001 last-callback-wins`.
    package var description: String { "\(code) \(name)" }

    /// The documentation `diagnose --explain` prints.
    package var explanation: String {
        let severities = severities.map(\.rawValue).joined(separator: ", ")
        return "\(code) \(name) (\(severities))\n\n\(summary)\n\n\(details)\n\nFix: \(fix)\n"
    }
}
