import ObsReplayCLI
import Testing

let spec = CommandSpec(
    name: "timeline", abstract: "Print events.",
    arguments: [CommandSpec.Argument("journal", help: "The journal.")],
    options: [
        CommandSpec.Option("session", value: "n", help: "The session."),
        CommandSpec.Option("kind", value: "kind", help: "A kind.", repeatable: true),
        CommandSpec.Option("at", value: "seq", help: "Where.", required: true),
        CommandSpec.Option("output", short: "o", value: "file", help: "Output file."),
        CommandSpec.Option("json", help: "JSON."),
    ]
)

func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments? {
    switch try CommandLineReader.parse(arguments, for: spec, path: "obsreplay timeline") {
    case .help: return nil
    case let .arguments(parsed): return parsed
    }
}

@Test func parsesPositionalsOptionsFlagsAndRepeats() throws {
    let parsed = try #require(try parse(["j.sqlite", "--session", "2", "--kind=changed", "--kind", "delivered", "--json", "--at", "-3", "-o", "out.csv"]))
    #expect(parsed.positionals == ["journal": "j.sqlite"])
    #expect(parsed.values == ["session": ["2"], "kind": ["changed", "delivered"], "at": ["-3"], "output": ["out.csv"]])
    #expect(parsed.flags == ["json"])
}

@Test func doubleDashEndsOptions() throws {
    let parsed = try #require(try parse(["--at", "1", "--", "--weird-name.sqlite"]))
    #expect(parsed.positionals["journal"] == "--weird-name.sqlite")
}

@Test func helpWinsAnywhere() throws {
    // Help before an unknown option: help; after it: the unknown option is the error.
    #expect(try parse(["j.sqlite", "-h", "--bogus"]) == nil)
    #expect(try parse(["--help"]) == nil)
    #expect(try parse(["j.sqlite", "-h"]) == nil)
}

@Test(arguments: [
    (["j.sqlite", "--at", "1", "--bogus"], "unknown option '--bogus'"),
    (["j.sqlite", "--at", "1", "-x"], "unknown option '-x'"),
    (["--at", "1"], "missing argument <journal>"),
    (["j.sqlite"], "missing option '--at <seq>'"),
    (["j.sqlite", "--at"], "missing value for '--at <seq>'"),
    (["j.sqlite", "--at", "1", "--session", "1", "--session", "2"], "option '--session' given twice"),
    (["j.sqlite", "--at", "1", "--json=yes"], "option '--json' takes no value"),
    (["j.sqlite", "extra", "--at", "1"], "unexpected argument 'extra'"),
])
func rejectsWhatDoesNotFit(arguments: [String], message: String) {
    #expect(throws: UsageError(
        message: message,
        usage: "obsreplay timeline <journal> [--session <n>] [--kind <kind> ...] --at <seq> [--output <file>] [--json]",
        command: "obsreplay timeline"
    )) {
        try parse(arguments)
    }
}

@Test func helpUsesTheUsualLayout() {
    #expect(CommandLineReader.help(spec, path: "obsreplay timeline") == """
        OVERVIEW: Print events.

        USAGE: obsreplay timeline <journal> [--session <n>] [--kind <kind> ...] --at <seq> [--output <file>] [--json]

        ARGUMENTS:
          <journal>               The journal.

        OPTIONS:
          --session <n>           The session.
          --kind <kind> ...       A kind.
          --at <seq>              Where.
          -o, --output <file>     Output file.
          --json                  JSON.
          --color <when>          Colour: auto, always or never.
          -h, --help              Show help information.

        """)
}

@Test func rootHelpListsSubcommands() {
    let root = CommandSpec(name: "tool", abstract: "A tool.", options: [CommandSpec.Option("version", help: "Show the version.")])
    let sub = CommandSpec(name: "run", abstract: "Run it.")
    #expect(CommandLineReader.help(root, path: "tool", subcommands: [sub]) == """
        OVERVIEW: A tool.

        USAGE: tool <subcommand>

        OPTIONS:
          --version               Show the version.
          --color <when>          Colour: auto, always or never.
          -h, --help              Show help information.

        SUBCOMMANDS:
          run                     Run it.

          See 'tool help <subcommand>' for detailed help.

        """)
}

@Test func longHelpWrapsAtEightyColumns() {
    let row = "  --x                     " + String(repeating: "word ", count: 20).dropLast()
    let wide = CommandSpec(name: "w", abstract: "W.", options: [CommandSpec.Option("x", help: String(repeating: "word ", count: 20))])
    let text = CommandLineReader.help(wide, path: "w")
    #expect(text.split(separator: "\n").allSatisfy { $0.count <= 80 })
    #expect(!text.contains(row))
}
