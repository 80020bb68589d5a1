/// One problem found in a session: which rule, how serious, what happened, the evidence
/// and what to do.
package struct Finding: Sendable, Equatable {
    package var rule: Rule
    package var severity: Severity
    package var sessionID: Int64
    /// One sentence saying what happened, with the decisive facts.
    package var message: String
    /// Lines of evidence, each naming sequence numbers, call sites or owners.
    package var evidence: [String]
    /// The sequence numbers involved, ascending (the first is where to start reading).
    package var seqs: [Int64]
    /// Call sites involved (`File.swift:42`), in the order the evidence names them.
    package var callSites: [String]
    /// Owners involved (`Type#id`), in the order the evidence names them.
    package var owners: [String]
    /// The channel involved (`Player#1.isPlaying`), if any.
    package var channel: String?
    /// How many times it happened (changes missed, deliveries, removals...).
    package var count: Int
    /// The fix for this finding when it differs from the rule's (the API the app used
    /// decides it: a `for await` loop has no token to cancel); `nil` for the rule's.
    package var specificFix: String?
    /// The function each call site is in (`Module/File.swift:42` → `viewDidLoad()`), as the
    /// journal names it: what fingerprints key a call site on instead of its line.
    package var functions: [String: String] = [:]

    package init(
        rule: Rule, severity: Severity? = nil, sessionID: Int64, message: String, evidence: [String] = [],
        seqs: [Int64] = [], callSites: [String] = [], owners: [String] = [], channel: String? = nil, count: Int = 1,
        fix: String? = nil
    ) {
        self.rule = rule
        self.severity = severity ?? rule.severities[0]
        self.sessionID = sessionID
        self.message = message
        self.evidence = evidence
        self.seqs = Array(Set(seqs)).sorted()
        self.callSites = callSites.uniqued()
        self.owners = owners.uniqued()
        self.channel = channel
        self.count = count
        specificFix = fix
    }

    /// The suggested fix: this finding's own, else the rule's.
    package var fix: String { specificFix ?? rule.fix }

    /// The first sequence number, for ordering (0 when the finding has none).
    package var firstSeq: Int64 { seqs.first ?? 0 }
}

extension Array where Element: Hashable {
    /// The elements in order, each kept once.
    package func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
