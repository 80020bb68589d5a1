import JournalAnalysis
import ObservationJournal

/// `obsreplay migrate JOURNAL`: upgrades an older journal in place (the only writer).
enum MigrateCommand {
    static let command = ObsReplay.Command(
        spec: CommandSpec(
            name: "migrate",
            abstract: "Upgrade an older journal to the latest schema, in place (the only command that changes a journal).",
            discussion: """
                A journal already at the latest schema is left untouched. A newer or foreign file
                is refused and left untouched.
                """,
            arguments: [journal]
        ),
        run: run
    )

    static let journal = CommandSpec.Argument("journal", help: "The journal file to upgrade.")

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws(CLIError) -> Int32 {
        // Validated read-only first (by `upgrade` too), so a file that is not a journal is
        // never opened for writing.
        let path = arguments.argument(journal)
        let latest = JournalCheck.latestSchemaVersion
        let version: Int
        do {
            version = try JournalFile.openValidated(path: path).version
        } catch {
            throw .input(error.description)
        }
        guard version < latest else {
            context.message("\(path): already at the latest schema (\(latest)); nothing to do")
            return ExitCode.success
        }
        let upgraded: (from: Int, to: Int)
        do {
            // The one command that writes: a side file planted beside a journal from
            // elsewhere (a link to another file) must not be written through.
            try SideFileCheck.check(journal: path)
            upgraded = try JournalMigrator.upgrade(path: path)
        } catch {
            throw .input(error.description)
        }
        context.message("\(path): upgraded schema \(upgraded.from) to \(upgraded.to)")
        return ExitCode.success
    }
}
