import JournalAnalysis
import JournalReport

/// `obsreplay report JOURNAL [-o FILE] [--from SEQ --to SEQ | --around SEQ]`: the HTML timeline report.
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
                cites and zooming to it (#f=OJ001-1 in the URL links to a finding). Changes a
                replaced owner missed, changes that reached nobody and registrations live
                after their scope are marked. Hover for details; drag to zoom. --from and
                --to (or --around) draw only those sequence numbers; a session of more than
                250,000 events is otherwise summarised per channel. Without -o the report
                is written beside the journal (journal.sqlite -> journal.html); its path is
                printed. '-o -' writes the HTML to standard output.
                """,
            arguments: [CommonOptions.journal],
            options: [CommonOptions.session, all, output, budget, from, to, around]
        ),
        run: run
    )

    static let all = FlagOption("all", help: "Every session, one tab each.")
    static let output = ValueOption.text("output", short: "o", value: "file", help: "Where to write the report (- for standard output).")
    static let budget = CommonOptions.budget(help: "The slow-callback budget in milliseconds (default 16).")
    static let from = ValueOption.integer("from", value: "seq", help: "Draw only the events from this sequence number on.")
    static let to = ValueOption.integer("to", value: "seq", help: "Draw only the events up to this sequence number.")
    static let around = ValueOption.integer("around", value: "seq", help: "Draw only the 100 sequence numbers each side of this one.")

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws(CLIError) -> Int32 {
        let sessionID = try arguments.value(CommonOptions.session)
        if arguments.flag(all) && sessionID != nil {
            throw context.usageError("'--all' and '--session' cannot be used together")
        }
        let options = CommonOptions.diagnosisOptions(budgetNs: try arguments.value(budget))
        let window = try self.window(arguments, context)
        let selection: ReportSelection = arguments.flag(all) ? .all : sessionID.map(ReportSelection.session) ?? .latest
        let journal = arguments.argument(CommonOptions.journal)
        let output = try arguments.value(Self.output)
        if output == "-" {
            let reader = try context.openJournal(journal)
            context.out.write(try analysing { () throws(AnalysisError) in
                try HTMLReport.render(reader, sessions: selection, options: options, window: window)
            })
            return ExitCode.success
        }
        let reader = try context.openJournal(journal)
        let sessions = try analysing { () throws(AnalysisError) in try HTMLReport.sessions(reader, selection).drawn }
        let progress = context.progress(
            "reporting", total: Progress.events(of: sessions), passes: HTMLReport.passes, unit: .events, allowed: true
        )
        defer { progress.finish() }
        // `output` as given: a path derived from the journal's name is checked as one the user never chose.
        let path = try analysing { () throws(AnalysisError) in
            try HTMLReport.write(
                reader, sessions: selection, to: output, options: options, window: window, progress: progress.counter
            )
        }
        progress.finish()
        context.line(path)
        return ExitCode.success
    }

    /// The sequence numbers to draw: `--from`/`--to`, or `--around` (not both kinds).
    static func window(_ arguments: ParsedArguments, _ context: CommandContext) throws(CLIError) -> ReportWindow? {
        let from = try arguments.value(Self.from), to = try arguments.value(Self.to)
        if let around = try arguments.value(Self.around) {
            if from != nil || to != nil { throw context.usageError("'--around' cannot be used with '--from' or '--to'") }
            return ReportWindow.around(around)
        }
        if from == nil && to == nil { return nil }
        let window = ReportWindow(from: from ?? 1, to: to ?? .max)
        if window.from > window.to {
            throw context.usageError("'--from' (\(window.from)) is after '--to' (\(window.to))")
        }
        return window
    }
}
