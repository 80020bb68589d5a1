import JournalAnalysis

/// `obsreplay diagnose JOURNAL`: runs the rule catalog.
enum DiagnoseCommand {
    static let command = ObsReplay.Command(
        spec: CommandSpec(
            name: "diagnose",
            abstract: "Run every rule of the catalog over a session and print the findings.",
            discussion: """
                Each finding has a stable code and name, a severity, a one-sentence message, the
                evidence and a suggested fix. Exit code 1 when a finding is at or above --fail-on.
                Rules: \(Rule.allCases.map { "\($0.code) \($0.name)" }.joined(separator: ", ")).
                JSON (--json): an array of objects with session_id, code, name, severity, message,
                channel, owners, call_sites, seqs, count, evidence, fix.
                """,
            arguments: [CommandSpec.Argument("journal", help: "The journal file (opened read-only).", requiredUnless: "explain")],
            options: [
                CommonOptions.session,
                CommandSpec.Option("all", help: "Diagnose every session."),
                CommandSpec.Option("fail-on", value: "severity", help: "Exit 1 for findings at or above: error (default), warning, info, never."),
                CommandSpec.Option("budget-ms", value: "ms", help: "The slow-callback budget in milliseconds (default 16)."),
                CommandSpec.Option("explain", value: "code", help: "Print the documentation of a rule (code or name) and exit."),
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

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws(CLIError) -> Int32 {
        if let code = arguments.value("explain") {
            guard let rule = Rule(codeOrName: code) else {
                throw context.usageError("unknown rule '\(code)': expected one of \(Rule.allCases.map(\.code).joined(separator: ", "))")
            }
            context.out.write(rule.explanation)
            return ExitCode.success
        }
        let failOn = try context.choice(arguments, "fail-on", FailOn.self, allowed: FailOn.allCases) ?? .error
        let sessionID = try context.integer(arguments, "session")
        if arguments.flag("all") && sessionID != nil {
            throw context.usageError("'--all' and '--session' cannot be used together")
        }
        let options = try context.slowCallbackBudget(arguments)
        let reader = try context.openJournal(arguments)
        let findings = try analysing { () throws(AnalysisError) in
            if arguments.flag("all") { return try Diagnoser.diagnoseAll(reader, options: options) }
            return try Diagnoser.diagnose(reader, session: try reader.session(sessionID), options: options)
        }
        if arguments.flag("json") {
            context.json(.array(findings.map(json)))
        } else {
            printText(findings, context)
        }
        guard let threshold = failOn.threshold else { return ExitCode.success }
        return findings.contains { $0.severity >= threshold } ? ExitCode.findings : ExitCode.success
    }

    static func printText(_ findings: [Finding], _ context: CommandContext) {
        let style = context.style
        for finding in findings {
            let head = "\(finding.severity.rawValue)[\(finding.rule.code)] \(finding.rule.name)"
            context.line(head + " (session \(finding.sessionID)): " + finding.message) { line in
                // Colour the severity only: it is our text at the start of the line.
                style.severity(finding.severity) + String(line.dropFirst(finding.severity.rawValue.count))
            }
            for line in finding.evidence { context.line("    " + line) }
            context.line("  fix: " + finding.fix)
            context.line("")
        }
        let counts = Severity.allCases.reversed().map { severity in
            let count = findings.count { $0.severity == severity }
            return "\(count) \(severity.rawValue)" + (count == 1 || severity == .info ? "" : "s")
        }
        context.line("\(findings.count) finding\(findings.count == 1 ? "" : "s") (\(counts.joined(separator: ", ")))")
    }

    static func json(_ finding: Finding) -> JSONValue {
        .object([
            ("session_id", .int(finding.sessionID)), ("code", .string(finding.rule.code)),
            ("name", .string(finding.rule.name)), ("severity", .string(finding.severity.rawValue)),
            ("message", .string(finding.message)), ("channel", .text(finding.channel)),
            ("owners", .array(finding.owners.map(JSONValue.string))),
            ("call_sites", .array(finding.callSites.map(JSONValue.string))),
            ("seqs", .array(finding.seqs.map(JSONValue.int))), ("count", .int(Int64(finding.count))),
            ("evidence", .array(finding.evidence.map(JSONValue.string))), ("fix", .string(finding.fix)),
        ])
    }
}
