import SystemShim
import JournalAnalysis
import ObservationJournal

/// The `obsreplay` command-line tool: parses arguments, runs a command, returns its exit
/// code. `main.swift` only calls `ObsReplay.main`.
package enum ObsReplay {
    /// The tool's version: the library's, so `obsreplay --version` and every session's
    /// `library_version` always agree (one number to bump, in `Journal.libraryVersion`).
    package static var version: String { Journal.libraryVersion }

    /// A subcommand: its spec (for parsing and help) and what it does.
    package struct Command: Sendable {
        package var spec: CommandSpec
        var run: @Sendable (ParsedArguments, CommandContext) throws(CLIError) -> Int32
    }

    /// The subcommands, in the order help lists them. Add a command by appending here.
    package static var commands: [Command] {
        [
            SessionsCommand.command, TimelineCommand.command, ReplayCommand.command, DiagnoseCommand.command,
            ExportCommand.command, StatsCommand.command, CheckCommand.command, MigrateCommand.command,
            ReportCommand.command, DemoCommand.command, CompletionsCommand.command,
        ]
    }

    static let root = CommandSpec(
        name: CommandLineReader.program,
        abstract: "Read observation journals: sessions, timelines, replay, diagnosis and export.",
        discussion: """
            New here? 'obsreplay demo' records five small apps into a journal and diagnoses it.
            Exit codes: 0 success; 1 diagnose found findings at or above --fail-on (check:
            the file is damaged); 2 the input could not be used; 64 usage error.
            Colour: --color auto (default: on a terminal, unless NO_COLOR is set), always or
            never, accepted by every command.
            Shell completion: 'obsreplay completions bash|zsh|fish'.
            """,
        options: [versionFlag]
    )

    /// `obsreplay --version`.
    static let versionFlag = FlagOption("version", help: "Show the version.")

    /// Runs the tool with `arguments` (without the program name) and returns the exit code.
    package static func main(_ arguments: [String], environment: [String: String]) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        // Before anything is opened: a closed standard descriptor must not be taken by a
        // journal, an output file or SQLite's own files.
        reserveStandardDescriptors()
        let out = FileOutput(descriptor: 1, name: "standard output")
        let err = FileOutput(descriptor: 2, name: "standard error")
        defer {
            try? out.flush()
            try? err.flush()
        }
        let code = run(arguments, environment: environment, out: out, err: err)
        do {
            try out.flush()
        } catch {
            // A command that failed has said why, perhaps this very failure: one line.
            if code != ExitCode.input { err.write("error: \(error.description)\n") }
            return ExitCode.input
        }
        return code
    }

    static func run(_ given: [String], environment: [String: String], out: FileOutput, err: FileOutput) -> Int32 {
        let program = CommandLineReader.program
        let all = commands
        let colour: ColourChoice
        let arguments: [String]
        do {
            (colour, arguments) = try ColourChoice.extract(from: given)
        } catch {
            return usageFailure(error, err: err)
        }
        guard let first = arguments.first else {
            return usageFailure(UsageError(message: "missing subcommand", usage: "\(program) <subcommand>", command: program), err: err)
        }
        let help = CommandLineReader.help
        switch first {
        case "--\(help.name)", help.short.map { "-\($0)" }:
            out.write(CommandLineReader.help(root, path: program, subcommands: all.map(\.spec)))
            return ExitCode.success
        case "--\(versionFlag.spec.name)":
            out.write("\(program) \(version) (journal schema \(JournalSchema.latestVersion))\n")
            return ExitCode.success
        case "help":
            guard arguments.count > 1 else {
                out.write(CommandLineReader.help(root, path: program, subcommands: all.map(\.spec)))
                return ExitCode.success
            }
            guard let command = all.first(where: { $0.spec.name == arguments[1] }) else {
                return usageFailure(UsageError(
                    message: "unknown subcommand '\(arguments[1])'" + DidYouMean.hint(for: arguments[1], among: all.map(\.spec.name)),
                    usage: "\(program) <subcommand>", command: program
                ), err: err)
            }
            out.write(CommandLineReader.help(command.spec, path: "\(program) \(command.spec.name)"))
            return ExitCode.success
        default:
            break
        }
        guard let command = all.first(where: { $0.spec.name == first }) else {
            let names = all.map(\.spec.name)
            let what = first.hasPrefix("-")
                ? "unknown option '\(first)'" + DidYouMean.hint(
                    for: first, among: (CompletionsCommand.rootOptions + [ColourChoice.option.spec]).map { "--\($0.name)" }
                )
                : "unknown subcommand '\(first)'" + DidYouMean.hint(for: first, among: names)
            return usageFailure(UsageError(message: what, usage: "\(program) <subcommand>", command: program), err: err)
        }
        let path = "\(program) \(command.spec.name)"
        let context = CommandContext(
            out: out, err: err, environment: environment, style: colour.style(descriptor: 1, environment: environment),
            path: path, spec: command.spec
        )
        do throws(CLIError) {
            let outcome: CommandLineReader.Outcome
            do {
                outcome = try CommandLineReader.parse(Array(arguments.dropFirst()), for: command.spec, path: path)
            } catch {
                throw .usage(error)
            }
            switch outcome {
            case .help:
                out.write(CommandLineReader.help(command.spec, path: path))
                return ExitCode.success
            case let .arguments(parsed):
                return try command.run(parsed, context)
            }
        } catch {
            switch error {
            case let .usage(usage):
                return usageFailure(usage, err: err)
            case let .input(message):
                err.write("error: " + TerminalText.escaped(message) + "\n")
                return ExitCode.input
            }
        }
    }

    static func usageFailure(_ error: UsageError, err: FileOutput) -> Int32 {
        // Each part escaped on its own: the command line may hold anything.
        err.write("error: \(TerminalText.escaped(error.message))\nUsage: \(TerminalText.escaped(error.usage))\n")
        err.write("  See '\(error.command) --help' for more information.\n")
        return ExitCode.usage
    }
}
