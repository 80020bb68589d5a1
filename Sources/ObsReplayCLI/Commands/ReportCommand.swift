import JournalAnalysis
import JournalReport

/// `obsreplay report JOURNAL [-o FILE]`: the HTML timeline report.
enum ReportCommand {
    static let command = ObsReplay.Command(
        spec: CommandSpec(
            name: "report",
            abstract: "Write an HTML timeline of a session: lanes, changes, deliveries and findings.",
            discussion: """
                One self-contained HTML file (inline CSS, script and SVG; it loads nothing) that
                opens from disk in any current browser: a lane per registration from its
                registration to its removal, grouped by channel and coloured by how it ended;
                change ticks on each channel; deliveries on their lanes (off-main and slow ones
                stand out); the findings of diagnose beside the chart, each highlighting what it
                cites. Hover for details; drag across the chart to zoom into a time range.
                Without -o the report is written beside the journal (journal.sqlite ->
                journal.html); its path is printed. '-o -' writes the HTML to standard output.
                """,
            arguments: [CommonOptions.journal],
            options: [
                CommonOptions.session,
                CommandSpec.Option("all", help: "Every session, one tab each."),
                CommandSpec.Option("output", short: "o", value: "file", help: "Where to write the report (- for standard output)."),
                CommandSpec.Option("budget-ms", value: "ms", help: "The slow-callback budget in milliseconds (default 16)."),
            ]
        ),
        run: run
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws(CLIError) -> Int32 {
        let sessionID = try context.integer(arguments, "session")
        if arguments.flag("all") && sessionID != nil {
            throw context.usageError("'--all' and '--session' cannot be used together")
        }
        let options = try context.slowCallbackBudget(arguments)
        let selection: ReportSelection = arguments.flag("all") ? .all : sessionID.map(ReportSelection.session) ?? .latest
        let journal = arguments.argument("journal")
        if arguments.value("output") == "-" {
            let reader = try context.openJournal(arguments)
            context.out.write(try analysing { () throws(AnalysisError) in
                try HTMLReport.render(reader, sessions: selection, options: options)
            })
            return ExitCode.success
        }
        let target = arguments.value("output") ?? HTMLReport.defaultPath(forJournal: journal)
        let path = try analysing { () throws(AnalysisError) in
            try HTMLReport.write(journalPath: journal, sessions: selection, to: target, options: options)
        }
        context.line(path)
        return ExitCode.success
    }
}
