import JournalAnalysis
import JournalStore
import JournalReport
import DemoApps

/// `obsreplay demo`: records the demo apps into a fresh journal and diagnoses it.
enum DemoCommand {
    static let command = ObsReplay.Command(
        spec: CommandSpec(
            name: "demo",
            abstract: "Record the five demo apps (buggy and fixed) into a fresh journal and diagnose it.",
            discussion: """
                Each scenario variant is one session labelled <scenario>/<variant>
                (music-player/buggy). The journal is written beside its path and moved into
                place at the end; a file already there is replaced only if it is a demo journal
                (every session labelled so, recorded by obsreplay), with its -wal and -shm files.
                Anything else is refused (exit 2) and left untouched.
                Scenarios: \(DemoApp.all.map(\.name).joined(separator: ", ")).
                JSON (--json): an object with journal, sessions (id, label, scenario, variant,
                events, findings as in 'diagnose --json') and next (the suggested commands).
                """,
            options: [journal, scenario, variant, CommonOptions.json]
        ),
        run: run
    )

    static let journal = ValueOption(
        "journal", value: "path", help: "Where to write the journal (default: \(DemoRecorder.defaultPath))."
    ) { path in
        path.isEmpty ? .failure(InvalidValue(message: "invalid value '' for '--journal': expected a file path")) : .success(path)
    }
    static let scenario = ListOption<DemoApp>.named(
        "scenario", value: "name", help: "Record only this scenario (repeatable, or comma-separated; default: all).",
        names: DemoApp.all.map(\.name), lookup: DemoApp.named
    )
    static let variant = ValueOption<VariantChoice>.choice("variant", value: "variant", help: "buggy, fixed or both (default: both).")

    enum VariantChoice: String, CaseIterable {
        case buggy, fixed, both

        var variants: [ScenarioVariant] {
            switch self {
            case .buggy: [.buggy]
            case .fixed: [.fixed]
            case .both: [.buggy, .fixed]
            }
        }
    }

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws(CLIError) -> Int32 {
        let labels = try plan(arguments)
        let path = try arguments.value(journal) ?? DemoRecorder.defaultPath
        do {
            try DemoRecorder.record(labels, at: path)
        } catch {
            throw .input(error.description)
        }
        var outcome = try analysing { () throws(AnalysisError) in try DemoOutcome.read(path: path) }
        outcome.reportPath = try analysing { () throws(AnalysisError) in
            try HTMLReport.write(journalPath: path, sessions: .all)
        }
        let program = invocation(executablePath: CommandLine.arguments.first ?? "")
        if arguments.flag(CommonOptions.json) {
            context.json(json(outcome, program: program))
        } else {
            printText(outcome, program: program, context)
        }
        return ExitCode.success
    }

    /// The sessions to record, in catalog order: every scenario asked for, each variant.
    static func plan(_ arguments: ParsedArguments) throws(CLIError) -> [DemoLabel] {
        let choice = try arguments.value(variant) ?? .both
        let wanted = Set(try arguments.values(scenario).map(\.name))
        return DemoApp.all.filter { wanted.isEmpty || wanted.contains($0.name) }.flatMap { scenario in
            choice.variants.map { DemoLabel(scenario: scenario, variant: $0) }
        }
    }

    /// How a person runs this tool again: `swift run obsreplay` while it is the package's
    /// build product (its executable lies under `.build`), else `obsreplay`.
    static func invocation(executablePath: String) -> String {
        executablePath.split(separator: "/").contains(".build") ? "swift run obsreplay" : "obsreplay"
    }

    /// `arguments` as one shell command line: each word quoted when the shell would
    /// otherwise split or expand it.
    static func shellLine(_ program: String, _ arguments: [String]) -> String {
        ([program] + arguments.map(shellQuoted)).joined(separator: " ")
    }

    // MARK: - Text

    static func printText(_ outcome: DemoOutcome, program: String, _ context: CommandContext) {
        let style = context.style
        let count = outcome.sessions.count
        context.line("Recorded \(count) session\(count == 1 ? "" : "s") into \(outcome.journalPath):", paint: style.bold)
        let width = outcome.sessions.map(\.label.description.count).max() ?? 0
        let idWidth = outcome.sessions.map { String($0.summary.id).count }.max() ?? 0
        for session in outcome.sessions {
            let summary = session.summary
            context.line(
                "  session \(pad(String(summary.id), idWidth, left: true))  \(pad(session.label.description, width))  "
                    + "\(plural(summary.eventCount, "event")), \(plural(summary.registrationCount, "registration"))"
            )
        }
        if let report = outcome.reportPath {
            context.line("The same as a picture: \(report) (open it in a browser)")
        }
        context.line("")
        context.line("Diagnosis:", paint: style.bold)
        for (_, sessions) in outcome.byScenario {
            let scenario = sessions[0].label.scenario
            context.line("")
            // Where to read the app: its file in the package (call sites name the same file).
            context.line("\(scenario.name) (Sources/\(scenario.sourceFile)): \(scenario.summary)", paint: style.bold)
            for session in sessions {
                let variant = session.label.variant
                context.line("  \(variant.rawValue), session \(session.summary.id): \(scenario.summary(of: variant))")
                printFindings(session, context)
            }
        }
        context.line("")
        context.line("Try next:", paint: style.bold)
        // Each note is a shell comment, so the block can be pasted as it is.
        for step in outcome.nextSteps {
            context.line("  # " + step.note, paint: style.dim)
            context.line("  " + shellLine(program, step.arguments))
        }
    }

    /// A session's findings: warnings and errors in full, infos in a line each.
    static func printFindings(_ session: DemoOutcome.Session, _ context: CommandContext) {
        let style = context.style
        let problems = session.problems
        if problems.isEmpty {
            context.line("    clean: no findings at warning or above")
        }
        for finding in session.findings {
            let head = "\(finding.severity.rawValue)[\(finding.rule.code)] \(finding.rule.name)"
            context.line("    " + head + ": " + finding.message) { line in
                // Colour the severity only: it is our text, after the indent.
                "    " + style.severity(finding.severity) + String(line.dropFirst(4 + finding.severity.rawValue.count))
            }
            guard finding.severity >= .warning else { continue }
            for line in finding.evidence { context.line("        " + line) }
        }
    }

    /// "1 event", "64 events".
    static func plural(_ count: Int64, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

    // MARK: - JSON

    static func json(_ outcome: DemoOutcome, program: String) -> JSONValue {
        .object([
            ("journal", .string(outcome.journalPath)),
            ("report", outcome.reportPath.map(JSONValue.string) ?? .null),
            ("sessions", .array(outcome.sessions.map { session in
                .object([
                    ("id", .int(session.summary.id)), ("label", .string(session.label.description)),
                    ("scenario", .string(session.label.scenario.name)), ("variant", .string(session.label.variant.rawValue)),
                    ("events", .int(session.summary.eventCount)), ("clean_end", .bool(session.summary.cleanEnd)),
                    ("findings", .array(session.findings.map(DiagnoseCommand.json))),
                ])
            })),
            ("next", .array(outcome.nextSteps.map { step in
                .object([("command", .string(shellLine(program, step.arguments))), ("note", .string(step.note))])
            })),
        ])
    }
}
