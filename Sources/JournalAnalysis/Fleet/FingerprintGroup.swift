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
}

/// Builds fingerprint groups one finding at a time, keeping one example and the counts
/// per fingerprint: memory follows the number of distinct bugs, not of findings nor of
/// journals. The findings of one journal arrive together (as `diagnose` hands them over),
/// so a fingerprint counts a journal when it first sees it and keeps only the sessions of
/// the journal at hand.
package struct FingerprintGrouper: Sendable {
    private struct Tally {
        var example: JournalFinding
        var severity: Severity
        var occurrences = 0
        var sessions = 0
        var journals = 0
        /// The number of the journal it was last seen in, and its sessions there.
        var journal = -1
        var journalSessions = Set<Int64>()
    }

    private var tallies: [String: Tally] = [:]
    /// The journal whose findings arrive now, and its number.
    private var journal: String?
    private var journalNumber = -1

    package init() {}

    /// Counts one finding in its fingerprint's group (the first one is the example).
    package mutating func add(_ item: JournalFinding) {
        if item.journal != journal {
            journal = item.journal
            journalNumber += 1
        }
        let key = item.finding.fingerprint
        var tally = tallies.removeValue(forKey: key) ?? Tally(example: item, severity: item.finding.severity)
        tally.occurrences += 1
        tally.severity = max(tally.severity, item.finding.severity)
        if tally.journal != journalNumber {
            tally.journal = journalNumber
            tally.journals += 1
            tally.journalSessions.removeAll()
        }
        if tally.journalSessions.insert(item.finding.sessionID).inserted { tally.sessions += 1 }
        tallies[key] = tally
    }

    /// The groups, most severe first, then most widespread, then by code and fingerprint
    /// (a stable order).
    package func groups() -> [FingerprintGroup] {
        tallies.map { key, tally in
            FingerprintGroup(
                fingerprint: key, example: tally.example, severity: tally.severity, occurrences: tally.occurrences,
                sessions: tally.sessions, journals: tally.journals
            )
        }
        .sorted { a, b in
            if a.severity != b.severity { return a.severity > b.severity }
            if a.sessions != b.sessions { return a.sessions > b.sessions }
            return (a.example.finding.rule.code, a.fingerprint) < (b.example.finding.rule.code, b.fingerprint)
        }
    }
}
