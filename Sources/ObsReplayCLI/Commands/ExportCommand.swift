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
                Without --session, every session is exported. Every row ends with journal_id
                (the journal's own id), host and run (its session's). Several journals or a
                directory: one table, each row starting with a journal column (the path);
                journals are read one at a time.
                --fleet DIR writes what a fleet's engines need, per journal, as JSON Lines in
                DIR/TABLE/HOST/DATE/JOURNAL_ID.jsonl: sessions, findings (with finding_id and
                severity_rank) and call_sites (deliveries per registering call site), and
                events with --events. Every row starts with journal_id, host and run, so
                files can be moved, renamed and concatenated. Journals are read in parallel;
                a file already there is never replaced (that journal is refused, exit 2).
                See docs/FLEET.md.
                --format chrome-trace writes the Trace Event Format that Perfetto and
                chrome://tracing open, and takes --what events only: a session is a process,
                each registry thread a thread, deliveries complete events with their duration,
                changes and removals instant events, registration lifetimes async spans named
                after their channel; timestamps in microseconds from the session's start.
                """,
            arguments: [CommonOptions.journals],
            options: [what, format, session, output, raw, budget, fleet, events],
            alternativeUsages: ["<journal> ... --fleet <dir> [--events] [--budget-ms <ms>]"]
        ),
        run: run
    )

    static let what = ValueOption<ExportSubject>.choice(
        "what", value: "table", help: "events, registrations, deliveries or findings."
    ).required(unless: "fleet")
    static let format = ValueOption<ExportFormat>.choice("format", value: "format", help: "csv, jsonl or chrome-trace.")
        .required(unless: "fleet")
    static let session = ValueOption.integer("session", value: "n", help: "Only this session (default: all sessions).")
    static let output = ValueOption.text(
        "output", short: "o", value: "file", help: "Write to this file instead of standard output (- for standard output)."
    )
    static let raw = FlagOption("raw", help: "Do not neutralise spreadsheet formulas in CSV text cells.")
    static let budget = CommonOptions.budget(help: "The slow-callback budget for findings (default 16).")
    static let fleet = ValueOption.text(
        "fleet", value: "dir", help: "Write the fleet layout into this folder (created if missing): see the discussion."
    )
    static let events = FlagOption("events", help: "With --fleet: every event too (large; findings and call_sites are the compact tables).")

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws(CLIError) -> Int32 {
        let options = CommonOptions.diagnosisOptions(budgetNs: try arguments.value(budget))
        let paths = arguments.arguments(CommonOptions.journals)
        if let root = try arguments.value(fleet) {
            for other in [what.spec, format.spec, session.spec, output.spec] where arguments.values[other.name] != nil {
                throw context.usageError("'--fleet' writes its own tables and files: leave out '--\(other.name)'")
            }
            if arguments.flag(raw) { throw context.usageError("'--fleet' writes JSON Lines: leave out '--raw'") }
            return try exportFleet(paths, into: root, events: arguments.flag(events), options: options, context)
        }
        if arguments.flag(events) { throw context.usageError("'--events' goes with '--fleet' (otherwise use '--what events')") }
        let subject = try arguments.value(what)
        let format = try arguments.value(Self.format)
        if format == .chromeTrace && subject != .events {
            throw context.usageError("'--format chrome-trace' exports events only: use '--what events'")
        }
        let sessionID = try arguments.value(session)
        if DiagnoseCommand.isSingleFile(paths) {
            let reader = try context.openJournal(paths[0])
            // Resolve the session first so an unknown one fails before any file is created.
            if let sessionID { _ = try analysing { () throws(AnalysisError) in try reader.session(sessionID) } }
            let output = try context.output(try arguments.value(Self.output), journals: [reader.path], what: "export")
            // Only while the rows go to a file: rows on the terminal would tear the line.
            let total = try analysing { () throws(AnalysisError) -> Int64 in
                guard output.isFile, subject != .registrations, format != .chromeTrace else { return 0 }
                if let sessionID { return Progress.events(of: [try reader.session(sessionID)]) }
                return Progress.events(of: try reader.sessions())
            }
            let progress = context.progress("exporting", total: total, unit: .events, allowed: total > 0)
            defer { progress.finish() }
            try analysing { () throws(AnalysisError) in
                try Exporter.export(
                    subject, from: reader, session: sessionID, format: format, raw: arguments.flag(raw),
                    options: options, to: output.text, progress: progress.counter
                )
                progress.finish()
                try output.commit()
            }
            return ExitCode.success
        }
        if sessionID != nil { throw context.usageError("'--session' needs exactly one journal file") }
        if format == .chromeTrace { throw context.usageError("'--format chrome-trace' exports one journal") }
        // Several journals: one table, read one journal at a time (one open, its memory
        // released before the next), so no fleet is too large for the open-file limit.
        let journals = JournalInputs.expand(paths)
        let output = try context.output(try arguments.value(Self.output), journals: journals, what: "export")
        let progress = context.progress(
            "exporting", total: Int64(journals.count), unit: .journals, allowed: output.isFile && journals.count > 1
        )
        defer { progress.finish() }
        var exported = 0
        for path in journals {
            let reader: JournalReader
            do {
                reader = try JournalReader(path: path)
            } catch {
                guard error.isNotAJournal else { throw .analysis(error) }
                progress.quietly { context.message("note: skipped \(error.description)") }
                progress.counter.add(1)
                continue
            }
            try analysing { () throws(AnalysisError) in
                try Exporter.export(
                    subject, from: reader, session: nil, format: format, raw: arguments.flag(raw), options: options,
                    to: output.text, journal: reader.path, header: exported == 0
                )
            }
            exported += 1
            progress.counter.add(1)
        }
        progress.finish()
        if exported == 0 { throw .input("no journal found in \(paths.joined(separator: ", "))") }
        try analysing { () throws(AnalysisError) in try output.commit() }
        return ExitCode.success
    }

    /// `--fleet ROOT`: every journal's tables staged in parallel and put in place in the
    /// order of the journals, so messages and which of two copies is refused never depend
    /// on timing. A journal that fails is reported and the others exported (exit 2).
    static func exportFleet(
        _ paths: [String], into root: String, events: Bool, options: DiagnosisOptions, _ context: CommandContext
    ) throws(CLIError) -> Int32 {
        if let status = fileStatus(root), status.st_mode & S_IFMT != S_IFDIR {
            throw .input("\(root): not a folder: '--fleet' writes a folder of files")
        }
        do {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        } catch {
            throw .input("\(root): cannot create the folder")
        }
        let journals = JournalInputs.expand(paths)
        let progress = context.progress("exporting", total: Int64(journals.count), unit: .journals, allowed: journals.count > 1)
        defer { progress.finish() }
        var exported = 0, failed = false, found = 0
        var rows: [FleetExport.Table: Int] = [:]
        OrderedWork.forEach(journals.count, work: { index in
            FleetExport.stage(journals[index], into: root, events: events, options: options)
        }) { _, outcome in
            progress.quietly {
                switch outcome {
                case let .staged(staged):
                    found += 1
                    do throws(AnalysisError) {
                        try FleetExport.publish(staged, root: root)
                        exported += 1
                        for (table, count) in staged.rows { rows[table, default: 0] += count }
                    } catch {
                        context.message("error: \(error.description)")
                        failed = true
                    }
                case .empty:
                    found += 1
                case let .skipped(error):
                    context.message("note: skipped \(error.description)")
                case let .failed(error):
                    found += 1
                    context.message("error: \(error.description)")
                    failed = true
                }
            }
            progress.counter.add(1)
        }
        progress.finish()
        if found == 0 { throw .input("no journal found in \(paths.joined(separator: ", "))") }
        let counts = FleetExport.Table.allCases.compactMap { table in rows[table].map { "\($0) \(table.rawValue)" } }
        context.message("exported \(exported) of \(found) journals to \(root): \(counts.joined(separator: ", ")) rows")
        return failed ? ExitCode.input : ExitCode.success
    }
}
