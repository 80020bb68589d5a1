import SystemShim
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
                recording, and after lines are added above it: the call sites' files and
                functions, not their lines). Without --session every session is diagnosed, and the summary names
                the sessions the verdict covers. Exit code 1 when a finding (not in --baseline) is
                at or above --fail-on.
                Several journals and directories (searched for *.sqlite) may be given; they are
                read in parallel, files that are not journals are skipped with a notice, and a
                damaged journal is an error (exit 2) after the others are reported.
                Settings come from .obsreplay.json (in the current directory or above, up to the
                project's root: a directory with Package.swift or .git; only a file of yours that
                nobody else may write) or --config FILE: keys rules (code → {enabled, severity}),
                budget-ms, ignore-call-sites (path globs). The file applied is named on stderr.
                Rules: \(Rule.allCases.map { "\($0.code) \($0.name)" }.joined(separator: ", ")).
                JSON (--json): an array of objects with session_id, code, name, severity, message,
                channel, owners, call_sites, seqs, count, evidence, fix, fingerprint, journal
                (and baselined with --baseline); with --group-by fingerprint, an array of groups.
                --format junit writes JUnit XML for CI systems that show test results: a test
                suite per session, a test case per rule, failed by findings that fail the gate.
                With --baseline and every session diagnosed, baseline entries that no finding
                matched any more are reported as stale (remove them with --write-baseline).
                Baselines keep the text of the call sites' lines found under --source-root;
                a version-1 baseline (line numbers) still matches, with a note to rewrite it.
                --format sarif links each rule to docs/RULES.md and, with --baseline, keeps
                accepted findings as results with baselineState "unchanged".
                --quiet prints only the findings that fail the gate, no summary and no notes.
                """,
            arguments: [journals],
            options: [
                session, all, failOn, budget, explain, format, groupBy, baseline, writeBaseline, config, sourceRoot,
                output, quiet, CommonOptions.json,
            ],
            alternativeUsages: ["--explain <code>"]
        ),
        run: run
    )

    static let journals = CommandSpec.Argument(
        "journal", help: "Journal files or directories (opened read-only).", requiredUnless: explain.spec.name, variadic: true
    )
    static let session = ValueOption.integer("session", value: "n", help: "Only this session (one journal only; default: every session).")
    static let all = FlagOption("all", help: "Diagnose every session (the default).")
    static let failOn = ValueOption<FailOn>.choice(
        "fail-on", value: "severity", help: "Exit 1 for findings at or above: error (default), warning, info, never."
    )
    static let budget = CommonOptions.budget(help: "The slow-callback budget in milliseconds (default 16).")
    static let explain = ValueOption<Rule>(
        "explain", value: "code", help: "Print the documentation of a rule (code or name) and exit.",
        choices: Rule.allCases.map(\.code)
    ) { code in
        guard let rule = Rule(codeOrName: code) else {
            return .failure(InvalidValue(
                message: "unknown rule '\(code)': expected one of \(Rule.allCases.map(\.code).joined(separator: ", "))"
                    + DidYouMean.hint(for: code, among: Rule.allCases.map(\.code) + Rule.allCases.map(\.name))
            ))
        }
        return .success(rule)
    }
    static let format = ValueOption<Format>.choice(
        "format", value: "format",
        help: "text (default), short (File.swift:LINE: severity: [CODE] message), github (workflow commands), sarif (SARIF 2.1.0), "
            + "junit (JUnit XML) or json (the same as --json)."
    )
    static let output = ValueOption.text(
        "output", short: "o", value: "file", help: "Write to this file instead of standard output (- for standard output)."
    )
    static let quiet = FlagOption("quiet", short: "q", help: "Print only the findings that fail the gate: no summary, no notes, no progress.")
    static let groupBy = ValueOption<GroupBy>.choice(
        "group-by", value: "key",
        help: "fingerprint: print each distinct finding once, with in how many sessions and journals it occurred."
    )
    static let baseline = ValueOption.text(
        "baseline", value: "file", help: "Fail only on findings whose fingerprint is not in this file (from --write-baseline or --json)."
    )
    static let writeBaseline = ValueOption.text(
        "write-baseline", value: "file", help: "Write the findings' fingerprints to this file as a baseline."
    )
    static let config = ValueOption.text(
        "config", value: "file", help: "The configuration file (default: .obsreplay.json in the current directory or above, up to the project's root)."
    )
    static let sourceRoot = ValueOption.text(
        "source-root", value: "dir",
        help: "Where call sites' files are looked up for sarif, github and short (default: the current directory)."
    )

    enum FailOn: String, CaseIterable {
        case error, warning, info, never
        var threshold: Severity? { Severity(rawValue: rawValue) }
    }

    enum Format: String, CaseIterable {
        case text, short, github, sarif, junit, json
    }

    enum GroupBy: String, CaseIterable {
        case fingerprint
    }

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws(CLIError) -> Int32 {
        if let rule = try arguments.value(explain) {
            context.out.write(rule.explanation)
            return ExitCode.success
        }
        let failOn = try arguments.value(Self.failOn) ?? .error
        let givenFormat = try arguments.value(Self.format)
        let format = givenFormat ?? .text
        let groupBy = try arguments.value(Self.groupBy)
        let sessionID = try arguments.value(session)
        let json = arguments.flag(CommonOptions.json) || givenFormat == .json
        let quiet = arguments.flag(Self.quiet)
        if arguments.flag(all) && sessionID != nil {
            throw context.usageError("'--all' and '--session' cannot be used together")
        }
        if arguments.flag(CommonOptions.json) && givenFormat != nil {
            throw context.usageError("'--json' and '--format' cannot be used together")
        }
        if groupBy != nil && format != .text && format != .json {
            throw context.usageError("'--group-by' prints text or --json only")
        }
        let paths = arguments.arguments(journals)
        if sessionID != nil, paths.count > 1 || fileStatus(paths[0]).map({ $0.st_mode & S_IFMT == S_IFDIR }) == true {
            throw context.usageError("'--session' needs exactly one journal file")
        }
        let configuration = try loadConfiguration(try arguments.value(config), context)
        let budgetNs = try arguments.value(budget)
        var options = CommonOptions.diagnosisOptions(budgetNs: budgetNs)
        if budgetNs == nil, let budget = configuration.budgetMs {
            options.slowCallbackBudgetNs = budget * 1_000_000
        }
        let baselinePath = try arguments.value(Self.baseline)
        let writeBaselinePath = try arguments.value(writeBaseline)
        // Opened first: a refused path fails the command before anything is printed.
        let baselineFile = try writeBaselinePath.map { (path) throws(CLIError) in
            try analysing { () throws(AnalysisError) in try Baseline.output(path, protecting: JournalInputs.expand(paths)) }
        }
        var baseline: Baseline?
        if let path = baselinePath {
            do throws(BaselineError) {
                baseline = try Baseline.load(path: path)
            } catch {
                throw .input(error.description)
            }
        }

        let destination = try context.output(
            try arguments.value(output), journals: JournalInputs.expand(paths), what: "diagnosis"
        )
        let context = destination.context(from: context)
        let mode: DiagnoseOutput.Mode
        if json {
            mode = groupBy != nil ? .groupedJSON : .json
        } else if groupBy != nil {
            mode = .grouped
        } else {
            switch format {
            case .text: mode = .text
            case .short: mode = .short
            case .github: mode = .github
            case .sarif: mode = .sarif
            case .junit: mode = .junit
            case .json: mode = .json
            }
        }
        let output = DiagnoseOutput(
            mode: mode, context: context, baseline: baseline, baselinePath: baselinePath,
            keepBaseline: writeBaselinePath != nil, threshold: failOn.threshold,
            sourceRoot: try arguments.value(sourceRoot) ?? FileManager.default.currentDirectoryPath,
            configuration: configuration, manyJournals: !isSingleFile(paths), quiet: quiet,
            coversEverySession: sessionID == nil
        )
        try diagnose(paths, sessionID: sessionID, options: options, configuration: configuration, context: context,
                     quiet: quiet || json || (mode != .text && mode != .grouped && !destination.isFile), into: output)
        if output.journals == 0 && !output.failed {
            // A gate that read nothing must not pass.
            throw .input("no journal found in \(paths.joined(separator: ", "))")
        }
        output.finish()
        try analysing { () throws(AnalysisError) in try destination.commit() }
        if let baselineFile {
            try analysing { () throws(AnalysisError) in try Baseline.write(output.baselineDocument(), to: baselineFile) }
        }
        return output.exitCode
    }

    /// One path naming a file (not a directory): the classic one-journal form.
    static func isSingleFile(_ paths: [String]) -> Bool {
        paths.count == 1 && fileStatus(paths[0]).map({ $0.st_mode & S_IFMT == S_IFDIR }) != true
    }

    /// `--config FILE` (`given`), else `.obsreplay.json` from the current directory upward
    /// to the project's root, else none. A file found and applied is named on standard
    /// error (a gate's verdict depends on it); one found but not safe to apply is named
    /// with the reason and ignored.
    static func loadConfiguration(_ given: String?, _ context: CommandContext) throws(CLIError) -> DiagnosisConfiguration {
        let path: String
        if let given {
            path = given
        } else {
            switch DiagnosisConfiguration.find(from: FileManager.default.currentDirectoryPath) {
            case .none:
                return DiagnosisConfiguration()
            case .ignored(let ignored, let reason):
                context.message("note: ignored configuration \(ignored): \(reason)")
                return DiagnosisConfiguration()
            case .found(let found):
                path = found
            }
        }
        do {
            let configuration = try DiagnosisConfiguration.load(path: path)
            context.message("note: configuration \(path) applied")
            return configuration
        } catch {
            switch error {
            case .unusable: throw .input(error.description)
            case .invalid: throw context.usageError(error.description)
            }
        }
    }

    /// Reads the journals and hands each one's findings to `output` as it is done, in
    /// order, so only the journals in flight are in memory.
    static func diagnose(
        _ paths: [String], sessionID: Int64?, options: DiagnosisOptions, configuration: DiagnosisConfiguration,
        context: CommandContext, quiet: Bool, into output: DiagnoseOutput
    ) throws(CLIError) {
        // One journal named as a file: its errors are the command's errors (exit 2), as always.
        if isSingleFile(paths) {
            let reader = try analysing { () throws(AnalysisError) in try JournalReader(path: paths[0]) }
            let sessions = try analysing { () throws(AnalysisError) -> [SessionSummary] in
                if let sessionID { return [try reader.session(sessionID)] }
                let all = try reader.sessions()
                if all.isEmpty { throw .noSessions(path: reader.path) }
                return all
            }
            // Spooled, then printed in order: a long session's findings are never all in
            // memory, and a journal that fails half-way prints nothing.
            let spool = FindingSpool()
            let progress = context.progress(
                "diagnosing", total: Progress.events(of: sessions), unit: .events, allowed: !quiet
            )
            defer { progress.finish() }
            for session in sessions {
                try analysing { () throws(AnalysisError) in
                    try Diagnoser.diagnose(reader, session: session, options: options, into: spool, progress: progress.counter)
                }
            }
            progress.finish()
            output.begin(journal: paths[0], sessions: sessions.map(\.id))
            try analysing { () throws(AnalysisError) in
                try spool.drain { finding in
                    for kept in configuration.apply([finding]) { output.add(kept, journal: paths[0]) }
                }
            }
            return
        }
        let journals = JournalInputs.expand(paths)
        let progress = context.progress("diagnosing", total: Int64(journals.count), unit: .journals, allowed: !quiet && journals.count > 1)
        func report(_ result: FleetDiagnosis.JournalResult) {
            switch result.outcome {
            case let .diagnosed(sessions, findings):
                output.add(journal: result.path, sessions: sessions, findings: findings)
            case let .skipped(error):
                if !output.quiet { context.message("note: skipped \(error.description)") }
            case let .failed(error):
                context.message("error: \(error.description)")
                output.failed = true
            }
            if progress.isEnabled {
                try? context.out.flush()
                try? context.err.flush()
            }
        }
        FleetDiagnosis.forEachJournal(journals, options: options, configuration: configuration) { result in
            // The progress line is erased before anything else reaches the terminal.
            progress.quietly { report(result) }
            progress.counter.add(1)
        }
        progress.finish()
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
