import Foundation
import ObsReplayCLI
import Testing

// Each option is declared once: the declaration the reader reads a value with is the one
// `--help` prints and completion offers. Checked from outside, through the binary: every
// option with a fixed set of values refuses another value naming exactly that set, and
// every option of every command is in its help and in each completion script.

/// The arguments a command needs besides the option under test: a journal (it need not
/// exist: values are checked before anything is opened) and each other required option.
private func baseArguments(_ spec: CommandSpec, except option: CommandSpec.Option) -> [String] {
    var arguments = [spec.name]
    if !spec.arguments.isEmpty { arguments.append("missing.sqlite") }
    for required in spec.options where required.required && required.name != option.name {
        arguments += ["--\(required.name)", required.choices.first ?? "1"]
    }
    return arguments
}

@Test func everyOptionWithChoicesRefusesAnotherValueNamingItsChoices() throws {
    var checked: [String] = []
    for spec in ObsReplay.commands.map(\.spec) {
        for option in spec.options where !option.choices.isEmpty {
            let result = try obsreplay(baseArguments(spec, except: option) + ["--\(option.name)", "zzz"])
            let expected = option.name == "explain"
                ? "error: unknown rule 'zzz': expected one of \(option.choices.joined(separator: ", "))\n"
                : "error: invalid value 'zzz' for '--\(option.name)': expected one of \(option.choices.joined(separator: ", "))\n"
            #expect(result.status == 64, "\(spec.name) --\(option.name)")
            #expect(result.stderr.hasPrefix(expected), "\(spec.name) --\(option.name): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            checked.append("\(spec.name) --\(option.name)")
        }
    }
    #expect(checked == [
        "timeline --kind", "replay --what-if", "diagnose --fail-on", "diagnose --explain", "diagnose --format",
        "diagnose --group-by", "export --what", "export --format", "demo --scenario", "demo --variant",
    ])
}

@Test func helpAndCompletionListEveryDeclaredOption() throws {
    let scripts = try ["bash", "zsh", "fish"].map { try obsreplay(["completions", $0]).stdout }
    for spec in ObsReplay.commands.map(\.spec) {
        let help = try obsreplay([spec.name, "--help"]).stdout
        for option in spec.options {
            #expect(help.contains("--\(option.name)"), "\(spec.name) --help lacks --\(option.name)")
            #expect(scripts[0].contains("--\(option.name)"), "bash lacks \(spec.name) --\(option.name)")
            #expect(scripts[1].contains("'--\(option.name)["), "zsh lacks \(spec.name) --\(option.name)")
            #expect(scripts[2].contains("__fish_seen_subcommand_from \(spec.name)' -l \(option.name)"),
                    "fish lacks \(spec.name) --\(option.name)")
            if !option.choices.isEmpty {
                #expect(scripts[0].contains("compgen -W '\(option.choices.joined(separator: " "))'"), "bash: \(option.name)")
            }
        }
    }
}
