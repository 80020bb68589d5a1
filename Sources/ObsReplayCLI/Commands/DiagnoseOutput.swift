import JournalAnalysis

/// How `diagnose` prints what it found, one journal at a time as journals are read: text,
/// short lines, GitHub workflow commands, SARIF, JSON, or one entry per fingerprint.
///
/// It keeps counts, the distinct fingerprints (for groups and `--write-baseline`) and
/// nothing else, so memory does not grow with the number of journals.
final class DiagnoseOutput {
    enum Mode: Equatable {
        case text, short, github, sarif, junit, json, grouped, groupedJSON
    }

    let mode: Mode
    let context: CommandContext
    let baseline: Baseline?
    let baselinePath: String?
    let threshold: Severity?
    let configuration: DiagnosisConfiguration
    let manyJournals: Bool
    /// `--quiet`: only the findings that fail the gate, no summary, no notes.
    let quiet: Bool
    /// Every session of every journal is diagnosed (no `--session`): only then can a
    /// baseline entry that nothing matched be called stale.
    private let coversEverySession: Bool
    private let keepBaseline: Bool
    private let sourceRoot: String
    private lazy var locator = SourceLocator(root: sourceRoot)

    /// A journal could not be read to the end.
    var failed = false
    /// A finding not in the baseline is at or above `--fail-on`.
    private(set) var failing = false
    /// How many journals were read.
    private(set) var journals = 0
    private var sessionIDs: [Int64] = []
    private var sessionCount = 0
    private var lastJournal = ""
    private var counts: [Severity: Int] = [:]
    private var total = 0
    private var fresh = 0
    private var grouper = FingerprintGrouper()
    private var firsts: [Baseline.Entry: Finding] = [:]
    private var written = 0
    private var started = false
    /// The baseline's entries some finding matched (the others are stale).
    private var matched = Set<Baseline.Entry>()
    /// Findings matched only by their version-1 (line-numbered) fingerprint.
    private var legacyMatches = 0
    /// The journal being written as JUnit: its sessions and their findings.
    private var junitSessions: [Int64] = []
    private var junitFindings: [Int64: [(JournalFinding, JUnitReport.Verdict)]] = [:]

    init(
        mode: Mode, context: CommandContext, baseline: Baseline?, baselinePath: String?, keepBaseline: Bool,
        threshold: Severity?, sourceRoot: String, configuration: DiagnosisConfiguration, manyJournals: Bool, quiet: Bool,
        coversEverySession: Bool
    ) {
        self.quiet = quiet
        self.coversEverySession = coversEverySession
        self.mode = mode
        self.context = context
        self.baseline = baseline
        self.baselinePath = baselinePath
        self.keepBaseline = keepBaseline
        self.threshold = threshold
        self.sourceRoot = sourceRoot
        self.configuration = configuration
        self.manyJournals = manyJournals
    }

    /// The hash of `finding`'s call-site lines under the source root (`nil` when not found).
    private func sourceHash(_ finding: Finding) -> String? { FindingFingerprint.sourceHash(of: finding, locator: locator) }

    // MARK: - Streaming

    /// Writes what comes before the first finding (`[`, the SARIF log's head), once, when
    /// there is something to write: a journal that cannot be read leaves stdout empty.
    private func start() {
        guard !started else { return }
        started = true
        switch mode {
        case .json: context.out.write("[")
        case .junit: context.out.write(JUnitReport.head)
        case .sarif:
            // The log with an empty results array, split around it: results stream in between.
            let (head, _) = sarifParts(SARIFLog.Invocation(successful: true, exitCode: 0))
            context.out.write(head + "\"results\":[")
        default: break
        }
    }

    /// One journal's sessions and findings (configuration applied).
    func add(journal: String, sessions: [Int64], findings: [Finding]) {
        begin(journal: journal, sessions: sessions)
        for finding in findings { add(finding, journal: journal) }
    }

    /// A journal whose findings (`add(_:journal:)`) follow, streamed.
    func begin(journal: String, sessions: [Int64]) {
        start()
        writeJUnitJournal()
        junitSessions = sessions
        journals += 1
        lastJournal = journal
        sessionCount += sessions.count
        if !manyJournals { sessionIDs = sessions }
    }

    /// One finding of the journal begun last (configuration applied).
    func add(_ finding: Finding, journal: String) {
        let item = JournalFinding(journal: journal, finding: finding)
        total += 1
        let source = keepBaseline || baseline != nil ? sourceHash(finding) : nil
        if keepBaseline {
            let entry = Baseline.Entry(fingerprint: finding.fingerprint, source: source)
            if firsts[entry] == nil { firsts[entry] = finding }
        }
        let match = baseline?.match(finding, source: source)
        if let match, let baseline {
            matched.formUnion(baseline.matched(by: match, source: source))
            if case .legacy = match { legacyMatches += 1 }
        }
        let new = match == nil
        let fails = new && threshold.map { finding.severity >= $0 } == true
        switch mode {
        case .grouped: if new { grouper.add(item) }
        case .groupedJSON: grouper.add(item)
        case .json: writeJSON(item, baselined: baseline.map { _ in !new })
        case .sarif where !new && !quiet: writeSARIF(item, baselineState: "unchanged")
        case .junit:
            junitFindings[finding.sessionID, default: []].append((item, JUnitReport.Verdict(fails: fails, baselined: !new)))
        default: break
        }
        guard new else { return }
        fresh += 1
        counts[finding.severity, default: 0] += 1
        if fails { failing = true }
        if quiet && !fails { return }
        switch mode {
        case .text: printText(item)
        case .short: context.line(ShortFormat.lines([item], locator: locator)[0])
        case .github: context.out.write(GitHubAnnotations.lines([item], locator: locator)[0] + "\n")
        case .sarif: writeSARIF(item, baselineState: baseline == nil ? nil : "new")
        default: break
        }
    }

    /// The SARIF log with no results, split around its empty `results` array: results
    /// stream in between, and the tail (with `invocations`) is written at the end.
    private func sarifParts(_ invocation: SARIFLog.Invocation) -> (head: String, tail: String) {
        let empty = SARIFLog.document(
            [], locator: locator, toolVersion: ObsReplay.version, severities: configuration.severities, invocation: invocation
        ).rendered
        let range = empty.range(of: "\"results\":[]")!
        return (String(empty[..<range.lowerBound]), String(empty[range.upperBound...]))
    }

    /// The exit code of the run as it stands (the command returns it unless writing fails).
    var exitCode: Int32 { failed ? ExitCode.input : failing ? ExitCode.findings : ExitCode.success }

    func finish() {
        start()
        let stale = coversEverySession && !failed ? baseline?.stale(matched: matched) ?? [] : []
        switch mode {
        case .text where !quiet:
            context.line(summary(noun: "finding", count: fresh, counts: counts))
            if let baselineLine { context.line(baselineLine) }
            printStale(stale)
        case .github where quiet, .short, .text:
            break
        case .github:
            // Workflow commands are escaped by GitHub's own rules, for the runner, not a terminal.
            let text = summary(noun: "finding", count: fresh, counts: counts) + (baselineLine.map { "; " + $0 } ?? "")
            context.out.write("::notice title=obsreplay::\(GitHubAnnotations.data(text))\n")
        case .sarif:
            context.out.write("]" + sarifParts(SARIFLog.Invocation(successful: !failed, exitCode: exitCode)).tail + "\n")
        case .junit:
            writeJUnitJournal()
            context.out.write(JUnitReport.tail)
        case .json:
            context.out.write("]\n")
        case .grouped:
            printGroups()
            if !quiet { printStale(stale) }
        case .groupedJSON:
            printGroupsJSON()
        }
        if mode != .text && mode != .grouped && !quiet, !stale.isEmpty, let baselinePath {
            // Data on standard output stays data: the note goes to standard error.
            context.message("note: \(baselinePath): \(staleCount(stale)) that no finding matched any more "
                + "(remove with --write-baseline): " + stale.map(\.fingerprint).joined(separator: ", "))
        }
        if let baseline, let baselinePath, baseline.version == 1 || legacyMatches > 0, !quiet || failing {
            // An old baseline keeps passing while lines stay put; the note says how to make it last.
            context.message("note: \(baselinePath) is a version-1 baseline, whose fingerprints hold line numbers "
                + "(\(legacyMatches) finding\(legacyMatches == 1 ? "" : "s") matched that way): a line added above a "
                + "call site makes its finding new. Rewrite it once, from a run whose findings are all accepted: "
                + "obsreplay diagnose JOURNAL... --write-baseline \(baselinePath)")
        }
    }

    /// `2 stale entries`.
    private func staleCount(_ stale: [Baseline.Entry]) -> String {
        "\(stale.count) stale entr\(stale.count == 1 ? "y" : "ies")"
    }

    /// The baseline's entries no finding matched: each named, for the person who deletes it.
    private func printStale(_ stale: [Baseline.Entry]) {
        guard !stale.isEmpty, let baseline, let baselinePath else { return }
        context.line("\(baselinePath): \(staleCount(stale)) that no finding matched any more (fixed? remove with --write-baseline):")
        for entry in stale { context.line("  stale: " + baseline.describe(entry)) }
    }

    /// The JUnit suites of the journal begun last, one per session.
    private func writeJUnitJournal() {
        guard mode == .junit else { return }
        defer {
            junitSessions = []
            junitFindings = [:]
        }
        let rules = Rule.allCases.filter { !configuration.disabled.contains($0) }
        for session in junitSessions {
            context.out.write(JUnitReport.suite(
                journal: lastJournal, session: session, rules: rules, findings: junitFindings[session] ?? [], locator: locator
            ))
        }
    }

    // MARK: - Text

    private func printText(_ item: JournalFinding) {
        let finding = item.finding
        let style = context.style
        let place = manyJournals ? "\(item.journal), session \(finding.sessionID)" : "session \(finding.sessionID)"
        let head = "\(finding.severity.rawValue)[\(finding.rule.code)] \(finding.rule.name)"
        context.line(head + " (\(place)): " + finding.message) { line in
            // Colour the severity only: it is our text at the start of the line.
            style.severity(finding.severity) + String(line.dropFirst(finding.severity.rawValue.count))
        }
        for line in finding.evidence { context.line("    " + line) }
        context.line("  fix: " + finding.fix)
        context.line("")
    }

    /// `2 findings (1 error, 0 warnings, 1 info) in sessions 1-2 of j.sqlite`.
    private func summary(noun: String, count: Int, counts: [Severity: Int]) -> String {
        let parts = Severity.allCases.reversed().map { severity in
            let n = counts[severity] ?? 0
            return "\(n) \(severity.rawValue)" + (n == 1 || severity == .info ? "" : "s")
        }
        return "\(count) \(noun)\(count == 1 ? "" : "s") (\(parts.joined(separator: ", "))) in \(coverage)"
    }

    /// Which sessions the verdict covers: `sessions 1-8 of demo.sqlite`, or `212 sessions
    /// of 12 journals`.
    private var coverage: String {
        if !manyJournals { return "\(Self.sessionList(sessionIDs)) of \(lastJournal)" }
        return "\(sessionCount) session\(sessionCount == 1 ? "" : "s") of \(journals) journal\(journals == 1 ? "" : "s")"
    }

    /// `baseline.json: 5 findings baselined, 1 new`.
    private var baselineLine: String? {
        guard baseline != nil, let baselinePath else { return nil }
        let baselined = total - fresh
        return "\(baselinePath): \(baselined) finding\(baselined == 1 ? "" : "s") baselined, \(fresh) new"
    }

    /// `session 2`, `sessions 1-8`, `sessions 1, 3-5`, `no sessions`.
    static func sessionList(_ ids: [Int64]) -> String {
        guard !ids.isEmpty else { return "no sessions" }
        let sorted = ids.sorted()
        var ranges: [String] = []
        var start = sorted[0], end = sorted[0]
        for id in sorted.dropFirst() {
            if id == end + 1 {
                end = id
                continue
            }
            ranges.append(start == end ? "\(start)" : "\(start)-\(end)")
            start = id
            end = id
        }
        ranges.append(start == end ? "\(start)" : "\(start)-\(end)")
        return (sorted.count == 1 ? "session " : "sessions ") + ranges.joined(separator: ", ")
    }

    // MARK: - Machine-readable

    private func writeSARIF(_ item: JournalFinding, baselineState: String?) {
        let result = SARIFLog.result(item, locator: locator, baselineState: baselineState)
        context.out.write((written == 0 ? "" : ",") + result.rendered)
        written += 1
    }

    private func writeJSON(_ item: JournalFinding, baselined: Bool?) {
        context.out.write((written == 0 ? "" : ",") + findingJSON(item, baselined: baselined).rendered)
        written += 1
    }

    private func findingJSON(_ item: JournalFinding, baselined: Bool?) -> JSONValue {
        var members = DiagnoseCommand.members(item.finding)
        members.append(("journal", .string(item.journal)))
        if let baselined { members.append(("baselined", .bool(baselined))) }
        return .object(members)
    }

    /// The `--write-baseline` file: every fingerprint seen (baselined ones too).
    func baselineDocument() -> JSONValue { Baseline.document(firsts: firsts) }

    // MARK: - Groups

    private func printGroups() {
        let groups = grouper.groups()
        let style = context.style
        var groupCounts: [Severity: Int] = [:]
        for group in groups {
            groupCounts[group.severity, default: 0] += 1
            let finding = group.example.finding
            let head = "\(group.severity.rawValue)[\(finding.rule.code)] \(finding.rule.name)"
            let sessions = "in \(group.sessions) of \(sessionCount) session\(sessionCount == 1 ? "" : "s"), "
                + "\(group.journals) journal\(group.journals == 1 ? "" : "s")"
            context.line("\(head) \(sessions) (fingerprint \(group.fingerprint))") { line in
                style.severity(group.severity) + String(line.dropFirst(group.severity.rawValue.count))
            }
            context.line("    e.g. \(group.example.journal), session \(finding.sessionID): \(finding.message)")
            context.line("  fix: " + finding.fix)
            context.line("")
        }
        context.line(summary(noun: "distinct finding", count: groups.count, counts: groupCounts))
        if let baselineLine { context.line(baselineLine) }
    }

    private func printGroupsJSON() {
        context.json(.array(grouper.groups().map { group in
            var members: [(String, JSONValue)] = [
                ("fingerprint", .string(group.fingerprint)), ("code", .string(group.example.finding.rule.code)),
                ("name", .string(group.example.finding.rule.name)), ("severity", .string(group.severity.rawValue)),
                ("occurrences", .int(Int64(group.occurrences))), ("sessions", .int(Int64(group.sessions))),
                ("journals", .int(Int64(group.journals))), ("total_sessions", .int(Int64(sessionCount))),
                ("total_journals", .int(Int64(journals))),
            ]
            let baselined = baseline.map { $0.match(group.example.finding, source: sourceHash(group.example.finding)) != nil }
            if let baselined { members.append(("baselined", .bool(baselined))) }
            members.append(("example", findingJSON(group.example, baselined: baselined)))
            return .object(members)
        }))
    }
}
