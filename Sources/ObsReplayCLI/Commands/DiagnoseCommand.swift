import Foundation
import JournalAnalysis

/// `obsreplay diagnose JOURNAL...`: runs the rule catalog over every session of one or
/// many journals.
enum DiagnoseCommand {
    static let command = ObsReplay.Command(
        spec: CommandSpec(
            name: "diagnose",
            abstract: "Run every rule of the catalog over every session of journals and print the findings.",
            discussion: """
                Each finding has a stable code and name, a severity, a one-sentence message, the
                evidence, a suggested fix and a fingerprint (the same for the same bug in every
                recording). Without --session every session is diagnosed, and the summary names
                the sessions the verdict covers. Exit code 1 when a finding (not in --baseline) is
                at or above --fail-on.
                Several journals and directories (searched for *.sqlite) may be given; they are
                read in parallel, and files that are not journals are skipped with a notice.
                Settings come from .obsreplay.json (in the current directory or above) or
                --config FILE: keys rules (code → {enabled, severity}), budget-ms,
                ignore-call-sites (path globs).
                Rules: \(Rule.allCases.map { "\($0.code) \($0.name)" }.joined(separator: ", ")).
                JSON (--json): an array of objects with session_id, code, name, severity, message,
                channel, owners, call_sites, seqs, count, evidence, fix, fingerprint, journal
                (and baselined with --baseline); with --group-by fingerprint, an array of groups.
                """,
            arguments: [
                CommandSpec.Argument("journal", help: "Journal files or directories (opened read-only).", requiredUnless: "explain", variadic: true),
            ],
            options: [
                CommandSpec.Option("session", value: "n", help: "Only this session (one journal only; default: every session)."),
                CommandSpec.Option("all", help: "Diagnose every session (the default)."),
                CommandSpec.Option("fail-on", value: "severity", help: "Exit 1 for findings at or above: error (default), warning, info, never.",
                                   choices: FailOn.allCases.map(\.rawValue)),
                CommandSpec.Option("budget-ms", value: "ms", help: "The slow-callback budget in milliseconds (default 16)."),
                CommandSpec.Option("explain", value: "code", help: "Print the documentation of a rule (code or name) and exit.",
                                   choices: Rule.allCases.map(\.code)),
                CommandSpec.Option("format", value: "format", help: "text (default), short (File.swift:LINE: severity: [CODE] message), github (workflow commands) or sarif (SARIF 2.1.0).",
                                   choices: Format.allCases.map(\.rawValue)),
                CommandSpec.Option("group-by", value: "key", help: "fingerprint: print each distinct finding once, with in how many sessions and journals it occurred.",
                                   choices: GroupBy.allCases.map(\.rawValue)),
                CommandSpec.Option("baseline", value: "file", help: "Fail only on findings whose fingerprint is not in this file (from --write-baseline or --json)."),
                CommandSpec.Option("write-baseline", value: "file", help: "Write the findings' fingerprints to this file as a baseline."),
                CommandSpec.Option("config", value: "file", help: "The configuration file (default: .obsreplay.json in the current directory or above)."),
                CommandSpec.Option("source-root", value: "dir", help: "Where call sites' files are looked up for sarif, github and short (default: the current directory)."),
                CommonOptions.json,
            ],
            alternativeUsages: ["diagnose --explain <code>"]
        ),
        run: run
    )

    enum FailOn: String, CaseIterable {
        case error, warning, info, never
        var threshold: Severity? { Severity(rawValue: rawValue) }
    }

    enum Format: String, CaseIterable {
        case text, short, github, sarif
    }

    enum GroupBy: String, CaseIterable {
        case fingerprint
    }

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws(CLIError) -> Int32 {
        if let code = arguments.value("explain") {
            guard let rule = Rule(codeOrName: code) else {
                throw context.usageError("unknown rule '\(code)': expected one of \(Rule.allCases.map(\.code).joined(separator: ", "))"
                    + DidYouMean.hint(for: code, among: Rule.allCases.map(\.code) + Rule.allCases.map(\.name)))
            }
            context.out.write(rule.explanation)
            return ExitCode.success
        }
        let failOn = try context.choice(arguments, "fail-on", FailOn.self, allowed: FailOn.allCases) ?? .error
        let format = try context.choice(arguments, "format", Format.self, allowed: Format.allCases) ?? .text
        let groupBy = try context.choice(arguments, "group-by", GroupBy.self, allowed: GroupBy.allCases)
        let sessionID = try context.integer(arguments, "session")
        if arguments.flag("all") && sessionID != nil {
            throw context.usageError("'--all' and '--session' cannot be used together")
        }
        if arguments.flag("json") && arguments.value("format") != nil {
            throw context.usageError("'--json' and '--format' cannot be used together")
        }
        if groupBy != nil && format != .text {
            throw context.usageError("'--group-by' prints text or --json only")
        }
        let paths = arguments.arguments("journal")
        var isDirectory: ObjCBool = false
        if sessionID != nil,
           paths.count > 1 || (FileManager.default.fileExists(atPath: paths[0], isDirectory: &isDirectory) && isDirectory.boolValue) {
            throw context.usageError("'--session' needs exactly one journal file")
        }
        let configuration = try loadConfiguration(arguments, context)
        var options = try context.slowCallbackBudget(arguments)
        if arguments.value("budget-ms") == nil, let budget = configuration.budgetMs {
            options.slowCallbackBudgetNs = budget * 1_000_000
        }
        var baseline: Baseline?
        if let path = arguments.value("baseline") {
            do throws(BaselineError) {
                baseline = try Baseline.load(path: path)
            } catch {
                throw .input(error.description)
            }
        }

        let run = try diagnose(paths, sessionID: sessionID, options: options, configuration: configuration, context: context,
                               quiet: arguments.flag("json") || format != .text)
        if let path = arguments.value("write-baseline") {
            try writeBaseline(run.findings.map(\.finding), to: path)
        }
        let isNew = { (item: JournalFinding) in baseline.map { !$0.fingerprints.contains(item.finding.fingerprint) } ?? true }
        let fresh = run.findings.filter(isNew)
        let report = DiagnoseReport(
            run: run, baseline: baseline, baselinePath: arguments.value("baseline"), fresh: fresh,
            sourceRoot: arguments.value("source-root") ?? FileManager.default.currentDirectoryPath, configuration: configuration
        )
        if arguments.flag("json") {
            report.printJSON(grouped: groupBy != nil, context)
        } else if groupBy != nil {
            report.printGroups(context)
        } else {
            switch format {
            case .text: report.printText(context)
            case .short: report.printShort(context)
            case .github: report.printGitHub(context)
            case .sarif: report.printSARIF(context)
            }
        }
        if run.failed { return ExitCode.input }
        guard let threshold = failOn.threshold else { return ExitCode.success }
        return fresh.contains { $0.finding.severity >= threshold } ? ExitCode.findings : ExitCode.success
    }

    /// `--config FILE`, else `.obsreplay.json` from the current directory upward, else none.
    static func loadConfiguration(_ arguments: ParsedArguments, _ context: CommandContext) throws(CLIError) -> DiagnosisConfiguration {
        let path = arguments.value("config") ?? DiagnosisConfiguration.find(from: FileManager.default.currentDirectoryPath)
        guard let path else { return DiagnosisConfiguration() }
        do {
            return try DiagnosisConfiguration.load(path: path)
        } catch {
            switch error {
            case .unusable: throw .input(error.description)
            case .invalid: throw .usage(UsageError(message: error.description, usage: ArgumentParser.usage(context.spec, path: context.path), command: context.path))
            }
        }
    }

    /// What one `diagnose` run read: the journals and sessions covered and the findings.
    struct Run {
        var journals: [String] = []
        /// Session ids per journal, in the order of `journals`.
        var sessions: [String: [Int64]] = [:]
        var findings: [JournalFinding] = []
        /// A journal could not be read to the end.
        var failed = false
        var sessionCount: Int { sessions.values.reduce(0) { $0 + $1.count } }
    }

    static func diagnose(
        _ paths: [String], sessionID: Int64?, options: DiagnosisOptions, configuration: DiagnosisConfiguration,
        context: CommandContext, quiet: Bool
    ) throws(CLIError) -> Run {
        var run = Run()
        // One journal named as a file: its errors are the command's errors (exit 2), as always.
        var isDirectory: ObjCBool = false
        if paths.count == 1, !(FileManager.default.fileExists(atPath: paths[0], isDirectory: &isDirectory) && isDirectory.boolValue) {
            let reader = try analysing { () throws(AnalysisError) in try JournalReader(path: paths[0]) }
            let sessions = try analysing { () throws(AnalysisError) -> [SessionSummary] in
                if let sessionID { return [try reader.session(sessionID)] }
                let all = try reader.sessions()
                if all.isEmpty { throw .noSessions(path: reader.path) }
                return all
            }
            run.journals = [paths[0]]
            run.sessions[paths[0]] = sessions.map(\.id)
            for session in sessions {
                let findings = try analysing { () throws(AnalysisError) in try Diagnoser.diagnose(reader, session: session, options: options) }
                run.findings += configuration.apply(findings).map { JournalFinding(journal: paths[0], finding: $0) }
            }
            return run
        }
        let journals = JournalInputs.expand(paths)
        let progress = Progress(total: journals.count, enabled: !quiet && journals.count > 1 && context.isTerminal(2))
        let results = FleetDiagnosis.diagnose(journals, options: options, configuration: configuration) { done in progress.update(done) }
        progress.finish()
        for result in results {
            switch result.outcome {
            case let .diagnosed(sessions, findings):
                run.journals.append(result.path)
                run.sessions[result.path] = sessions
                run.findings += findings.map { JournalFinding(journal: result.path, finding: $0) }
            case let .skipped(error):
                context.message("note: skipped \(error.description)")
            case let .failed(error):
                context.message("error: \(error.description)")
                run.failed = true
            }
        }
        return run
    }

    static func writeBaseline(_ findings: [Finding], to path: String) throws(CLIError) {
        let text = Baseline.document(for: findings).rendered + "\n"
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .analysis(.output(path: path, detail: "cannot write the baseline"))
        }
    }

    static func json(_ finding: Finding) -> JSONValue {
        .object(members(finding))
    }

    static func members(_ finding: Finding) -> [(String, JSONValue)] {
        [
            ("session_id", .int(finding.sessionID)), ("code", .string(finding.rule.code)),
            ("name", .string(finding.rule.name)), ("severity", .string(finding.severity.rawValue)),
            ("message", .string(finding.message)), ("channel", .text(finding.channel)),
            ("owners", .array(finding.owners.map(JSONValue.string))),
            ("call_sites", .array(finding.callSites.map(JSONValue.string))),
            ("seqs", .array(finding.seqs.map(JSONValue.int))), ("count", .int(Int64(finding.count))),
            ("evidence", .array(finding.evidence.map(JSONValue.string))), ("fix", .string(finding.fix)),
            ("fingerprint", .string(finding.fingerprint)),
        ]
    }
}
