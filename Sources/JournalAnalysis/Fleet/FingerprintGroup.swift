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

    /// Groups `findings` by fingerprint (see `FingerprintGrouper.groups`).
    package static func group(_ findings: [JournalFinding]) -> [FingerprintGroup] {
        var grouper = FingerprintGrouper()
        for item in findings { grouper.add(item) }
        return grouper.groups()
    }
}

/// Builds fingerprint groups one finding at a time, keeping one example and the counts
/// per fingerprint: memory follows the number of distinct bugs, not of findings.
package struct FingerprintGrouper: Sendable {
    /// Journals by number: a fingerprint seen in every journal keeps a set of small
    /// integers, not of paths.
    private struct SessionKey: Hashable {
        var journal: Int
        var session: Int64
    }

    private struct Tally {
        var example: JournalFinding
        var severity: Severity
        var occurrences = 0
        var sessions = Set<SessionKey>()
        var journals = Set<Int>()
    }

    private var tallies: [String: Tally] = [:]
    private var journalNumbers: [String: Int] = [:]

    package init() {}

    /// Counts one finding in its fingerprint's group (the first one is the example).
    package mutating func add(_ item: JournalFinding) {
        let key = item.finding.fingerprint
        let journal = journalNumbers[item.journal] ?? journalNumbers.count
        journalNumbers[item.journal] = journal
        if tallies[key] == nil { tallies[key] = Tally(example: item, severity: item.finding.severity) }
        tallies[key]!.occurrences += 1
        tallies[key]!.severity = max(tallies[key]!.severity, item.finding.severity)
        tallies[key]!.sessions.insert(SessionKey(journal: journal, session: item.finding.sessionID))
        tallies[key]!.journals.insert(journal)
    }

    /// The groups, most severe first, then most widespread, then by code and fingerprint
    /// (a stable order).
    package func groups() -> [FingerprintGroup] {
        tallies.map { key, tally in
            FingerprintGroup(
                fingerprint: key, example: tally.example, severity: tally.severity, occurrences: tally.occurrences,
                sessions: tally.sessions.count, journals: tally.journals.count
            )
        }
        .sorted { a, b in
            if a.severity != b.severity { return a.severity > b.severity }
            if a.sessions != b.sessions { return a.sessions > b.sessions }
            return (a.example.finding.rule.code, a.fingerprint) < (b.example.finding.rule.code, b.fingerprint)
        }
    }
}
