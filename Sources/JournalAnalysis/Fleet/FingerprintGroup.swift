/// Findings with the same fingerprint across sessions and journals: one bug, seen how
/// often and where (`diagnose --group-by fingerprint`).
package struct FingerprintGroup: Sendable, Equatable {
    package var fingerprint: String
    /// The first occurrence (in journal, session and sequence order).
    package var example: JournalFinding
    /// The highest severity among the occurrences.
    package var severity: Severity
    /// How many findings share the fingerprint.
    package var occurrences: Int
    /// In how many distinct sessions (journal and session id) it occurred.
    package var sessions: Int
    /// In how many distinct journals it occurred.
    package var journals: Int

    /// Groups `findings` by fingerprint, most severe first, then most widespread, then by
    /// code and fingerprint (a stable order).
    package static func group(_ findings: [JournalFinding]) -> [FingerprintGroup] {
        struct Tally {
            var example: JournalFinding
            var severity: Severity
            var occurrences = 0
            var sessions = Set<SessionKey>()
            var journals = Set<String>()
        }
        struct SessionKey: Hashable {
            var journal: String
            var session: Int64
        }
        var tallies: [String: Tally] = [:]
        var order: [String] = []
        for item in findings {
            let key = item.finding.fingerprint
            if tallies[key] == nil {
                tallies[key] = Tally(example: item, severity: item.finding.severity)
                order.append(key)
            }
            tallies[key]!.occurrences += 1
            tallies[key]!.severity = max(tallies[key]!.severity, item.finding.severity)
            tallies[key]!.sessions.insert(SessionKey(journal: item.journal, session: item.finding.sessionID))
            tallies[key]!.journals.insert(item.journal)
        }
        let groups = order.map { key in
            let tally = tallies[key]!
            return FingerprintGroup(
                fingerprint: key, example: tally.example, severity: tally.severity, occurrences: tally.occurrences,
                sessions: tally.sessions.count, journals: tally.journals.count
            )
        }
        return groups.sorted { a, b in
            if a.severity != b.severity { return a.severity > b.severity }
            if a.sessions != b.sessions { return a.sessions > b.sessions }
            return (a.example.finding.rule.code, a.fingerprint) < (b.example.finding.rule.code, b.fingerprint)
        }
    }
}
