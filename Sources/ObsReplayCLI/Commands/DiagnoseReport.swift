import JournalAnalysis

/// How `diagnose` prints what it found: text, short lines, GitHub workflow commands,
/// SARIF, JSON, or one line per distinct fingerprint.
struct DiagnoseReport {
    let run: DiagnoseCommand.Run
    let baseline: Baseline?
    let baselinePath: String?
    /// The findings not in the baseline (all of them without one).
    let fresh: [JournalFinding]
    let sourceRoot: String
    let configuration: DiagnosisConfiguration

    var manyJournals: Bool { run.journals.count != 1 }

    // MARK: - Text

    func printText(_ context: CommandContext) {
        let style = context.style
        for item in fresh {
            let finding = item.finding
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
        context.line(summary(fresh.map(\.finding), noun: "finding"))
        if let baselineLine { context.line(baselineLine) }
    }

    /// `2 findings (1 error, 0 warnings, 1 info) in sessions 1-2 of j.sqlite`.
    func summary(_ findings: [Finding], noun: String) -> String {
        let counts = Severity.allCases.reversed().map { severity in
            let count = findings.count { $0.severity == severity }
            return "\(count) \(severity.rawValue)" + (count == 1 || severity == .info ? "" : "s")
        }
        return "\(findings.count) \(noun)\(findings.count == 1 ? "" : "s") (\(counts.joined(separator: ", "))) in \(coverage)"
    }

    /// Which sessions the verdict covers: `sessions 1-8 of demo.sqlite`, or `212 sessions
    /// of 12 journals`.
    var coverage: String {
        if run.journals.count == 1, let journal = run.journals.first {
            return "\(Self.sessionList(run.sessions[journal] ?? [])) of \(journal)"
        }
        let sessions = run.sessionCount
        return "\(sessions) session\(sessions == 1 ? "" : "s") of \(run.journals.count) journal\(run.journals.count == 1 ? "" : "s")"
    }

    /// `baseline.json: 5 findings baselined, 1 new`.
    var baselineLine: String? {
        guard baseline != nil, let baselinePath else { return nil }
        let baselined = run.findings.count - fresh.count
        return "\(baselinePath): \(baselined) finding\(baselined == 1 ? "" : "s") baselined, \(fresh.count) new"
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

    // MARK: - Lines for tools

    func printShort(_ context: CommandContext) {
        for line in ShortFormat.lines(fresh, locator: SourceLocator(root: sourceRoot)) { context.line(line) }
    }

    func printGitHub(_ context: CommandContext) {
        // Workflow commands are escaped by GitHub's own rules; terminal escaping would
        // change them, and they are read by the runner, not a terminal.
        for line in GitHubAnnotations.lines(fresh, locator: SourceLocator(root: sourceRoot)) { context.out.write(line + "\n") }
        context.out.write("::notice title=obsreplay::\(GitHubAnnotations.data(summary(fresh.map(\.finding), noun: "finding") + (baselineLine.map { "; " + $0 } ?? "")))\n")
    }

    func printSARIF(_ context: CommandContext) {
        var document = SARIFLog.document(
            fresh, locator: SourceLocator(root: sourceRoot), toolVersion: ObsReplay.version,
            severities: configuration.severities
        )
        if baseline != nil {
            // SARIF's own field for "was it there before": only new results are listed.
            document = SARIFLog.markingBaselineState(document)
        }
        context.json(document)
    }

    // MARK: - JSON

    func printJSON(grouped: Bool, _ context: CommandContext) {
        if grouped {
            context.json(.array(FingerprintGroup.group(run.findings).map { group in
                var members: [(String, JSONValue)] = [
                    ("fingerprint", .string(group.fingerprint)), ("code", .string(group.example.finding.rule.code)),
                    ("name", .string(group.example.finding.rule.name)), ("severity", .string(group.severity.rawValue)),
                    ("occurrences", .int(Int64(group.occurrences))), ("sessions", .int(Int64(group.sessions))),
                    ("journals", .int(Int64(group.journals))), ("total_sessions", .int(Int64(run.sessionCount))),
                    ("total_journals", .int(Int64(run.journals.count))),
                ]
                if let baseline { members.append(("baselined", .bool(baseline.fingerprints.contains(group.fingerprint)))) }
                members.append(("example", findingJSON(group.example)))
                return .object(members)
            }))
            return
        }
        context.json(.array(run.findings.map(findingJSON)))
    }

    func findingJSON(_ item: JournalFinding) -> JSONValue {
        var members = DiagnoseCommand.members(item.finding)
        members.append(("journal", .string(item.journal)))
        if let baseline { members.append(("baselined", .bool(baseline.fingerprints.contains(item.finding.fingerprint)))) }
        return .object(members)
    }

    // MARK: - Grouped text

    func printGroups(_ context: CommandContext) {
        let groups = FingerprintGroup.group(fresh)
        let style = context.style
        for group in groups {
            let finding = group.example.finding
            let head = "\(group.severity.rawValue)[\(finding.rule.code)] \(finding.rule.name)"
            let sessions = "in \(group.sessions) of \(run.sessionCount) session\(run.sessionCount == 1 ? "" : "s"), "
                + "\(group.journals) journal\(group.journals == 1 ? "" : "s")"
            context.line("\(head) \(sessions) (fingerprint \(group.fingerprint))") { line in
                style.severity(group.severity) + String(line.dropFirst(group.severity.rawValue.count))
            }
            context.line("    e.g. \(group.example.journal), session \(finding.sessionID): \(finding.message)")
            context.line("  fix: " + finding.fix)
            context.line("")
        }
        context.line(summary(groups.map(\.example.finding), noun: "distinct finding"))
        if let baselineLine { context.line(baselineLine) }
    }
}
