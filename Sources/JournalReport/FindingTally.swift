package import JournalAnalysis

/// How many findings a session has, per rule and per severity, counted as they stream out
/// of the diagnosis: the page lists at most `ReportPage.perRule` findings of a rule but
/// states every count, so the findings it does not list need not be kept (a long session
/// has tens of thousands, about 1.7 KB each as values).
package struct FindingTally: Sendable, Equatable {
    /// Per rule: its findings, and the most serious severity among them.
    package struct RuleCount: Sendable, Equatable {
        package var count: Int
        package var severity: Severity
    }

    package private(set) var total = 0
    package private(set) var byRule: [Rule: RuleCount] = [:]
    package private(set) var bySeverity: [Severity: Int] = [:]

    package init() {}

    /// Counts `finding`; returns whether it is among the first `listed` of its rule (the
    /// ones the page lists, in the order the findings come).
    @discardableResult
    package mutating func add(_ finding: Finding, listed: Int) -> Bool {
        total += 1
        bySeverity[finding.severity, default: 0] += 1
        var entry = byRule[finding.rule] ?? RuleCount(count: 0, severity: finding.severity)
        entry.count += 1
        entry.severity = max(entry.severity, finding.severity)
        byRule[finding.rule] = entry
        return entry.count <= listed
    }
}
