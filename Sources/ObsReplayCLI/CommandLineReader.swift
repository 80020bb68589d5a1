import JournalAnalysis

/// Reads a command's arguments against its `CommandSpec` and renders its help in the
/// usual layout (OVERVIEW / USAGE / ARGUMENTS / OPTIONS / SUBCOMMANDS). Hand-written (the
/// package uses only the toolchain's modules), and named so it is not mistaken for the
/// swift-argument-parser module.
///
/// Accepts `--name value`, `--name=value`, `-o value`, flags anywhere, `--` to end options,
/// and `-h`/`--help` anywhere before `--`. Option values are taken verbatim (so `--from -3`
/// reaches validation as `-3`).
package enum CommandLineReader {
    /// The program name used in usage lines.
    package static let program = "obsreplay"

    /// `--format json` on a command with a `--json` flag is read as `--json`.
    static let formatOption = "format", jsonFlag = "json"

    /// `-h, --help`, which every command accepts (its row ends every OPTIONS list).
    package static let help = CommandSpec.Option("help", short: "h", help: "Show help information.")

    /// The result of parsing.
    package enum Outcome: Equatable {
        case help
        case arguments(ParsedArguments)
    }

    /// Parses `arguments` (without the command name) for `spec`.
    /// - Throws: `UsageError` for an unknown option, a missing or extra argument, a
    ///   missing value, a repeated option that does not repeat, or a missing required option.
    package static func parse(_ arguments: [String], for spec: CommandSpec, path: String) throws(UsageError) -> Outcome {
        var parsed = ParsedArguments(usage: usage(spec, path: path), command: path)
        var positionals: [String] = []
        var index = 0
        var optionsEnded = false
        func fail(_ message: String) -> UsageError { UsageError(message: message, usage: usage(spec, path: path), command: path) }
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "--\(help.name)" || help.short.map({ argument == "-\($0)" }) == true { return .help }
            var name: String
            var inlineValue: String?
            let option: CommandSpec.Option?
            if argument.hasPrefix("--") {
                name = String(argument.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                option = spec.options.first { $0.name == name }
            } else {
                let letters = argument.dropFirst()
                name = String(letters)
                option = letters.count == 1 ? spec.options.first { $0.short == letters.first } : nil
            }
            // `--format json` where the command prints JSON with `--json`: what it means is clear.
            let printsJSON = spec.options.contains { $0.name == jsonFlag && $0.valueName == nil }
            if name == formatOption, printsJSON, option?.choices.contains("json") != true {
                let value = inlineValue ?? (index < arguments.count ? arguments[index] : nil)
                if value == "json" {
                    if inlineValue == nil { index += 1 }
                    parsed.flags.insert(jsonFlag)
                    continue
                }
                if option == nil { throw fail("unknown option '\(argument)'; did you mean '--\(jsonFlag)'?") }
            }
            guard let option else {
                // `--color` is read before the command's options, but a misspelling of it lands here.
                let names = (spec.options + [help, ColourChoice.option.spec]).map { "--\($0.name)" }
                throw fail("unknown option '\(argument)'" + DidYouMean.hint(for: "--" + name, among: names))
            }
            guard let valueName = option.valueName else {
                if inlineValue != nil { throw fail("option '--\(option.name)' takes no value") }
                if parsed.flags.contains(option.name) && !option.repeatable {
                    throw fail("option '--\(option.name)' given twice")
                }
                parsed.flags.insert(option.name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else { throw fail("missing value for '--\(option.name) <\(valueName)>'") }
                value = arguments[index]
                index += 1
            }
            if parsed.values[option.name] != nil && !option.repeatable {
                throw fail("option '--\(option.name)' given twice")
            }
            parsed.values[option.name, default: []].append(value)
        }
        if positionals.count < spec.arguments.count {
            let missing = spec.arguments[positionals.count]
            let excused = missing.requiredUnless.map { parsed.values[$0] != nil || parsed.flags.contains($0) } ?? false
            if !excused { throw fail("missing argument <\(missing.name)>") }
        }
        let variadic = spec.arguments.last?.variadic == true
        if positionals.count > spec.arguments.count && !variadic {
            throw fail("unexpected argument '\(positionals[spec.arguments.count])'")
        }
        for (argument, value) in zip(spec.arguments, positionals) { parsed.positionals[argument.name] = value }
        if variadic, let last = spec.arguments.last {
            parsed.lists[last.name] = Array(positionals.dropFirst(spec.arguments.count - 1))
        }
        for option in spec.options where option.required {
            let excused = option.requiredUnless.map { parsed.values[$0] != nil || parsed.flags.contains($0) } ?? false
            if parsed.values[option.name] == nil && !parsed.flags.contains(option.name) && !excused {
                throw fail("missing option '--\(option.name) <\(option.valueName ?? "")>'")
            }
        }
        return .arguments(parsed)
    }

    /// `obsreplay timeline <journal> [--session <n>] ...`.
    package static func usage(_ spec: CommandSpec, path: String) -> String {
        var parts = [path]
        parts += spec.arguments.map { "<\($0.name)>" + ($0.variadic ? " ..." : "") }
        parts += spec.options.filter { $0.name != help.name }.map(\.usage)
        return parts.joined(separator: " ")
    }

    /// The full help text of a command; `subcommands` lists a root command's commands.
    package static func help(_ spec: CommandSpec, path: String, subcommands: [CommandSpec] = []) -> String {
        var text = "OVERVIEW: \(spec.abstract)\n"
        if let discussion = spec.discussion { text += "\n" + discussion + "\n" }
        text += "\nUSAGE: \(subcommands.isEmpty ? usage(spec, path: path) : "\(path) <subcommand>")\n"
        for alternative in spec.alternativeUsages { text += "       \(path) \(alternative)\n" }
        if !spec.arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for argument in spec.arguments { text += row("<\(argument.name)>" + (argument.variadic ? " ..." : ""), argument.help) }
        }
        text += "\nOPTIONS:\n"
        for option in spec.options { text += row(option.label, option.help) }
        // Every command takes `--color` (read before its own options): listed where people look.
        text += row(ColourChoice.option.spec.label, ColourChoice.option.spec.help)
        text += row(help.label, help.help)
        if !subcommands.isEmpty {
            text += "\nSUBCOMMANDS:\n"
            for command in subcommands { text += row(command.name, command.abstract) }
            text += "\n  See '\(path) help <subcommand>' for detailed help.\n"
        }
        return text
    }

    /// A two-column help row, the help wrapped at 80 columns.
    static func row(_ label: String, _ help: String) -> String {
        let indent = 26
        var line = "  " + label
        var text = ""
        if line.count >= indent - 1 {
            text += line + "\n"
            line = ""
        }
        line += String(repeating: " ", count: indent - line.count)
        var width = indent
        for word in help.split(separator: " ") {
            if width + word.count + 1 > 80 && width > indent {
                text += line + "\n"
                line = String(repeating: " ", count: indent)
                width = indent
            }
            if width > indent {
                line += " "
                width += 1
            }
            line += word
            width += word.count
        }
        return text + line + "\n"
    }
}

/// Arguments after reading: positionals by name, option values, flags, as text. Commands
/// read them typed, through the declarations they were read by (`OptionDeclaration.swift`).
package struct ParsedArguments: Equatable {
    package var positionals: [String: String] = [:]
    package var values: [String: [String]] = [:]
    package var flags: Set<String> = []
    /// All values of a variadic argument, in order.
    package var lists: [String: [String]] = [:]
    /// The command's usage line and path, for the usage error of a value it refuses.
    package var usage: String
    package var command: String

    package init(usage: String, command: String) {
        self.usage = usage
        self.command = command
    }
}

/// A command line that does not fit the command: exit 64 with the usage on stderr.
package struct UsageError: Error, Equatable, CustomStringConvertible {
    package var message: String
    package var usage: String
    /// The command path, for the "see --help" hint.
    package var command: String

    package init(message: String, usage: String, command: String) {
        self.message = message
        self.usage = usage
        self.command = command
    }

    package var description: String {
        "error: \(message)\nUsage: \(usage)\n  See '\(command) --help' for more information.\n"
    }
}
