import JournalAnalysis

/// `obsreplay stats JOURNAL`: counts.
enum StatsCommand {
    static let command = ObsReplay.Command(
        spec: CommandSpec(
            name: "stats",
            abstract: "Counts by kind, busiest channels, owners with most registrations, file size, schema version.",
            discussion: """
                JSON (--json): an object with file_size, schema_version, sessions, events,
                registrations, events_by_kind, busiest_channels, top_owners; with several journals
                or a directory, an array of them, each with its journal.
                """,
            arguments: [CommonOptions.journals],
            options: [session, top, CommonOptions.json]
        ),
        run: run
    )

    static let session = ValueOption.integer("session", value: "n", help: "Only this session (default: the whole journal).")
    static let top = ValueOption.integer("top", value: "n", help: "How many channels and owners to list (default 10).")

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws(CLIError) -> Int32 {
        let sessionID = try arguments.value(session)
        let top = try arguments.value(Self.top) ?? 10
        let paths = arguments.arguments(CommonOptions.journals)
        if !DiagnoseCommand.isSingleFile(paths) && sessionID != nil {
            throw context.usageError("'--session' needs exactly one journal file")
        }
        var all: [(journal: String, stats: JournalStatistics)] = []
        let many = try context.forEachJournal(paths) { (reader) throws(CLIError) in
            all.append((reader.path, try analysing { () throws(AnalysisError) in
                try JournalStatistics.compute(reader, session: sessionID, top: Int(top))
            }))
        }
        if arguments.flag(CommonOptions.json) {
            if many {
                context.json(.array(all.map { .object([("journal", .string($0.journal))] + members($0.stats)) }))
            } else if let only = all.first {
                context.json(.object(members(only.stats)))
            }
            return ExitCode.success
        }
        for (index, entry) in all.enumerated() {
            if many {
                if index > 0 { context.line("") }
                context.line("== \(entry.journal)", paint: context.style.bold)
            }
            printText(entry.stats, context)
        }
        return ExitCode.success
    }

    static func members(_ stats: JournalStatistics) -> [(String, JSONValue)] {
        func ranked(_ list: [JournalStatistics.Ranked]) -> JSONValue {
            .array(list.map { .object([("session_id", .int($0.sessionID)), ("name", .string($0.name)), ("count", .int($0.count))]) })
        }
        return [
            ("file_size", .int(stats.fileSize)), ("schema_version", .int(Int64(stats.schemaVersion))),
            ("sessions", .int(stats.sessions)), ("events", .int(stats.events)),
            ("registrations", .int(stats.registrations)),
            ("events_by_kind", .object(stats.eventsByKind.map { ($0.kind, .int($0.count)) })),
            ("busiest_channels", ranked(stats.busiestChannels)), ("top_owners", ranked(stats.topOwners)),
        ]
    }

    static func printText(_ stats: JournalStatistics, _ context: CommandContext) {
        context.line("file size       \(stats.fileSize) bytes")
        context.line("schema version  \(stats.schemaVersion)")
        context.line("sessions        \(stats.sessions)")
        context.line("events          \(stats.events)")
        context.line("registrations   \(stats.registrations)")
        context.line("")
        context.line("events by kind:", paint: context.style.bold)
        let width = stats.eventsByKind.map { String($0.count).count }.max() ?? 1
        for entry in stats.eventsByKind { context.line("  " + pad(String(entry.count), width, left: true) + "  " + entry.kind) }
        for (title, list) in [("busiest channels (events):", stats.busiestChannels), ("owners with most registrations:", stats.topOwners)] {
            context.line("")
            context.line(title, paint: context.style.bold)
            let width = list.map { String($0.count).count }.max() ?? 1
            for entry in list {
                context.line("  " + pad(String(entry.count), width, left: true) + "  " + entry.name + "  (session \(entry.sessionID))")
            }
        }
    }
}
