/// Findings as `File.swift:LINE: severity: [CODE] message` lines, the shape compilers
/// print and editors and `grep` understand. A finding with no call site starts with its
/// journal and session instead.
package enum ShortFormat {
    /// One line per finding, its first call site located under the locator's root.
    package static func lines(_ findings: [JournalFinding], locator: SourceLocator) -> [String] {
        findings.map { item in
            let finding = item.finding
            let place = finding.callSites.first.flatMap(locator.locate).map { "\($0.path):\($0.line)" }
                ?? "\(item.journal):session \(finding.sessionID)"
            return "\(place): \(finding.severity.rawValue): [\(finding.rule.code)] \(finding.message)"
        }
    }
}
