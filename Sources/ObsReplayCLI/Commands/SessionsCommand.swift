import Foundation
import JournalAnalysis

/// `obsreplay sessions JOURNAL`: one row per session.
enum SessionsCommand {
    static let command = ObsReplay.Command(
        spec: CommandSpec(
            name: "sessions",
            abstract: "List the sessions of a journal: id, label, start, duration, events, registrations, clean end.",
            discussion: """
                JSON (--json): an array of objects with id, label, process, pid, host, started_at,
                ended_at, duration_ns, events, registrations, last_seq, clean_end (and journal
                when several journals or a directory are given).
                """,
            arguments: [CommonOptions.journals],
            options: [CommonOptions.json]
        ),
        run: run
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws(CLIError) -> Int32 {
        // One journal open at a time: a fleet of any size stays within the open-file limit.
        var sessions: [(journal: String, session: SessionSummary)] = []
        let many = try context.forEachJournal(arguments.arguments(CommonOptions.journals)) { (reader) throws(CLIError) in
            sessions += try analysing { () throws(AnalysisError) in try reader.sessions() }.map { (reader.path, $0) }
        }
        if arguments.flag(CommonOptions.json) {
            context.json(.array(sessions.map { journal, session in
                .object((many ? [("journal", JSONValue.string(journal))] : []) + [
                    ("id", .int(session.id)), ("label", .string(session.label)), ("process", .string(session.process)),
                    ("pid", .int(session.pid)), ("host", .string(session.host)), ("started_at", .string(session.startedAt)),
                    ("ended_at", .text(session.endedAt)), ("duration_ns", .int(session.durationNs)),
                    ("events", .int(session.eventCount)), ("registrations", .int(session.registrationCount)),
                    ("last_seq", .int(session.lastSeq)), ("clean_end", .bool(session.cleanEnd)),
                ])
            }))
            return ExitCode.success
        }
        let header = (many ? ["journal"] : []) + ["id", "label", "started", "duration", "events", "registrations", "clean end"]
        let rows = sessions.map { journal, session in
            (many ? [TerminalText.escaped(journal)] : []) + [
                String(session.id), TerminalText.escaped(session.label), TerminalText.escaped(session.startedAt),
                seconds(session.durationNs), String(session.eventCount), String(session.registrationCount),
                session.cleanEnd ? "yes" : (session.endedAt == nil ? "no (crashed or still recording)" : "no"),
            ]
        }
        let numeric = Set([0, 3, 4, 5].map { $0 + (many ? 1 : 0) })
        let widths = header.indices.map { column in max(header[column].count, rows.map { $0[column].count }.max() ?? 0) }
        func render(_ cells: [String]) -> String {
            cells.indices.map { pad(cells[$0], $0 == cells.count - 1 ? 0 : widths[$0], left: numeric.contains($0)) }
                .joined(separator: "  ")
        }
        context.line(render(header), paint: context.style.bold)
        for row in rows { context.line(render(row)) }
        return ExitCode.success
    }

    /// From the wall-clock start and end when both are known, else until the last event.
    static func seconds(_ ns: Int64) -> String { String(relativeTime(ns).dropFirst()) }
}
