import JournalAnalysis
import JournalStore

/// `obsreplay check JOURNAL`: schema, application id, integrity, unclean sessions, gaps.
enum CheckCommand {
    static let command = ObsReplay.Command(
        spec: CommandSpec(
            name: "check",
            abstract: "Check a journal: schema version, application id, integrity, unclean sessions, gaps.",
            discussion: """
                Exit code 1 when the file is damaged (integrity_check fails), sequence numbers
                are missing, or a name (type, key, file, function, queue label, scope name,
                session label, process, host) is longer than 1,024 UTF-8 bytes, which the
                recorder never writes and every command shows shortened; unclean sessions and
                gaps the writer recorded are reported, not failed.
                JSON (--json): an object with schema_version, supported_version, application_id,
                integrity, unclean_sessions, recorded_gaps, seq_gaps, long_names (the first 20:
                table, id, column, bytes), long_name_count, healthy.
                """,
            arguments: [CommonOptions.journal],
            options: [CommonOptions.json]
        ),
        run: run
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws(CLIError) -> Int32 {
        let reader = try context.openJournal(arguments.argument(CommonOptions.journal))
        let check = try analysing { () throws(AnalysisError) in try JournalCheck.run(reader) }
        let applicationID = "0x" + String(UInt32(bitPattern: check.applicationID), radix: 16, uppercase: true)
        if arguments.flag(CommonOptions.json) {
            context.json(.object([
                ("schema_version", .int(Int64(check.schemaVersion))), ("supported_version", .int(Int64(check.supportedVersion))),
                ("application_id", .string(applicationID)), ("integrity", .array(check.integrity.map(JSONValue.string))),
                ("unclean_sessions", .array(check.uncleanSessions.map(JSONValue.int))),
                ("recorded_gaps", .array(check.recordedGaps.map {
                    .object([("session_id", .int($0.sessionID)), ("seq", .int($0.seq)), ("detail", .text($0.detail))])
                })),
                ("seq_gaps", .array(check.seqGaps.map {
                    .object([("session_id", .int($0.sessionID)), ("from", .int($0.from)), ("to", .int($0.to))])
                })),
                ("long_names", .array(check.longNames.map {
                    .object([("table", .string($0.table)), ("id", .int($0.id)), ("column", .string($0.column)), ("bytes", .int($0.bytes))])
                })),
                ("long_name_count", .int(check.longNameCount)),
                ("healthy", .bool(check.isHealthy)),
            ]))
        } else {
            context.line("schema version    \(check.schemaVersion) (this version reads up to \(check.supportedVersion))")
            context.line("application id    \(applicationID) (ObservationJournal)")
            context.line("integrity         " + (check.integrity == ["ok"] ? "ok" : "FAILED"))
            if check.integrity != ["ok"] {
                for message in check.integrity { context.line("    " + message) }
                context.line("damaged")
                return ExitCode.findings
            }
            context.line("unclean sessions  " + (check.uncleanSessions.isEmpty ? "none" : check.uncleanSessions.map(String.init).joined(separator: ", ")))
            context.line("recorded gaps     " + (check.recordedGaps.isEmpty ? "none" : "\(check.recordedGaps.count)"))
            for gap in check.recordedGaps {
                context.line("    session \(gap.sessionID) seq \(gap.seq): \(gap.detail ?? "events dropped")")
            }
            context.line("missing seqs      " + (check.seqGaps.isEmpty ? "none" : "\(check.seqGaps.count) ranges"))
            for gap in check.seqGaps {
                context.line("    session \(gap.sessionID): seq \(gap.from)" + (gap.to > gap.from ? "–\(gap.to)" : ""))
            }
            context.line("long names        " + (check.longNameCount == 0 ? "none"
                : "\(check.longNameCount) longer than \(JournalName.maxBytes) bytes (shown shortened)"))
            for name in check.longNames {
                let what = name.table == "strings" ? "strings id \(name.id)" : "session \(name.id) \(name.column)"
                context.line("    \(what): \(name.bytes) bytes")
            }
            if check.longNameCount > Int64(check.longNames.count) {
                context.line("    and \(check.longNameCount - Int64(check.longNames.count)) more")
            }
            context.line(check.isHealthy ? "ok" : "damaged")
        }
        return check.isHealthy ? ExitCode.success : ExitCode.findings
    }
}
