import SystemShim
import Foundation
import JournalAnalysis

/// `obsreplay export JOURNAL --what W --format F`: CSV, JSON Lines or a Chrome trace.
enum ExportCommand {
    static let command = ObsReplay.Command(
        spec: CommandSpec(
            name: "export",
            abstract: "Export events, registrations, deliveries or findings as CSV or JSON Lines, or events as a trace.",
            discussion: """
                CSV follows RFC 4180 (header row, CRLF, quoting, UTF-8). Text cells starting with
                =, +, -, @, tab or carriage return get a leading ' so spreadsheets do not evaluate
                them; --raw turns that off. JSON Lines: one object per row, keys as the CSV header.
                Without --session, every session is exported. Several journals or a directory:
                one table, each row starting with a journal column.
                --format chrome-trace writes the Trace Event Format that Perfetto and
                chrome://tracing open, and takes --what events only: a session is a process,
                each registry thread a thread, deliveries complete events with their duration,
                changes and removals instant events, registration lifetimes async spans named
                after their channel; timestamps in microseconds from the session's start.
                """,
            arguments: [CommonOptions.journals],
            options: [what, format, session, output, raw, budget]
        ),
        run: run
    )

    static let what = ValueOption<ExportSubject>.choice(
        "what", value: "table", help: "events, registrations, deliveries or findings."
    ).required
    static let format = ValueOption<ExportFormat>.choice("format", value: "format", help: "csv, jsonl or chrome-trace.").required
    static let session = ValueOption.integer("session", value: "n", help: "Only this session (default: all sessions).")
    static let output = ValueOption.text(
        "output", short: "o", value: "file", help: "Write to this file instead of standard output (- for standard output)."
    )
    static let raw = FlagOption("raw", help: "Do not neutralise spreadsheet formulas in CSV text cells.")
    static let budget = CommonOptions.budget(help: "The slow-callback budget for findings (default 16).")

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws(CLIError) -> Int32 {
        let subject = try arguments.value(what)
        let format = try arguments.value(Self.format)
        if format == .chromeTrace && subject != .events {
            throw context.usageError("'--format chrome-trace' exports events only: use '--what events'")
        }
        let sessionID = try arguments.value(session)
        let options = CommonOptions.diagnosisOptions(budgetNs: try arguments.value(budget))
        let (readers, many) = try context.openJournals(arguments.arguments(CommonOptions.journals))
        if many && sessionID != nil { throw context.usageError("'--session' needs exactly one journal file") }
        if many && format == .chromeTrace { throw context.usageError("'--format chrome-trace' exports one journal") }
        // Resolve the session first so an unknown one fails before any file is created.
        if let sessionID, let reader = readers.first {
            _ = try analysing { () throws(AnalysisError) in try reader.session(sessionID) }
        }
        let output = try context.output(try arguments.value(Self.output), journals: readers.map(\.path), what: "export")
        // Only while the rows go to a file: rows on the terminal would tear the line.
        let total = try analysing { () throws(AnalysisError) -> Int64 in
            guard output.isFile, subject != .registrations, format != .chromeTrace else { return 0 }
            var sessions: [SessionSummary] = []
            for reader in readers {
                if let sessionID { sessions.append(try reader.session(sessionID)) } else { sessions += try reader.sessions() }
            }
            return Progress.events(of: sessions)
        }
        let progress = context.progress("exporting", total: total, unit: .events, allowed: total > 0)
        defer { progress.finish() }
        try analysing { () throws(AnalysisError) in
            for (index, reader) in readers.enumerated() {
                try Exporter.export(
                    subject, from: reader, session: sessionID, format: format, raw: arguments.flag(raw),
                    options: options, to: output.text, journal: many ? reader.path : nil, header: index == 0,
                    progress: progress.counter
                )
            }
            progress.finish()
            try output.commit()
        }
        return ExitCode.success
    }
}
