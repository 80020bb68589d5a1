import JournalAnalysis

/// `--color auto|always|never`, accepted anywhere on the command line by every command.
///
/// `auto` (the default) colours only a terminal and never with `NO_COLOR` set; `always`
/// and `never` are what they say (an explicit flag wins over `NO_COLOR`).
enum ColourChoice: String, CaseIterable {
    case auto, always, never

    /// The choice and the arguments without it (options end at `--`).
    static func extract(from arguments: [String]) throws(UsageError) -> (ColourChoice, [String]) {
        var choice = ColourChoice.auto
        var rest: [String] = []
        var index = 0
        var ended = false
        func fail(_ message: String) -> UsageError {
            UsageError(message: message, usage: "\(ArgumentParser.program) <subcommand> [--color <when>]", command: ArgumentParser.program)
        }
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if ended || !(argument == "--color" || argument.hasPrefix("--color=")) {
                if argument == "--" { ended = true }
                rest.append(argument)
                continue
            }
            let value: String
            if argument == "--color" {
                guard index < arguments.count else { throw fail("missing value for '--color <when>'") }
                value = arguments[index]
                index += 1
            } else {
                value = String(argument.dropFirst("--color=".count))
            }
            guard let parsed = ColourChoice(rawValue: value) else {
                let names = allCases.map(\.rawValue)
                throw fail("invalid value '\(value)' for '--color': expected one of \(names.joined(separator: ", "))"
                    + DidYouMean.hint(for: value, among: names))
            }
            choice = parsed
        }
        return (choice, rest)
    }

    func style(descriptor: Int32, environment: [String: String]) -> Style {
        switch self {
        case .auto: return Style(descriptor: descriptor, environment: environment)
        case .always: return Style(colour: true)
        case .never: return Style(colour: false)
        }
    }
}
