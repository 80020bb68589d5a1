import JournalAnalysis

/// `--color auto|always|never`, accepted anywhere on the command line by every command.
///
/// `auto` (the default) colours only a terminal and never with `NO_COLOR` set or on a
/// `TERM=dumb` terminal; `always`
/// and `never` are what they say (an explicit flag wins over `NO_COLOR`).
enum ColourChoice: String, CaseIterable {
    case auto, always, never

    /// The declaration: what is read here, completed by `obsreplay completions`.
    static let option = ValueOption<ColourChoice>.choice("color", value: "when", help: "Colour: auto, always or never.")

    /// The choice and the arguments without it (options end at `--`).
    static func extract(from arguments: [String]) throws(UsageError) -> (ColourChoice, [String]) {
        var choice = ColourChoice.auto
        var rest: [String] = []
        var index = 0
        var ended = false
        let spec = option.spec
        let flag = "--\(spec.name)"
        func fail(_ message: String) -> UsageError {
            UsageError(message: message, usage: "\(CommandLineReader.program) <subcommand> [\(spec.label)]", command: CommandLineReader.program)
        }
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if ended || !(argument == flag || argument.hasPrefix(flag + "=")) {
                if argument == "--" { ended = true }
                rest.append(argument)
                continue
            }
            let value: String
            if argument == flag {
                guard index < arguments.count else { throw fail("missing value for '\(spec.label)'") }
                value = arguments[index]
                index += 1
            } else {
                value = String(argument.dropFirst(flag.count + 1))
            }
            switch option.convert(value) {
            case let .success(parsed): choice = parsed
            case let .failure(invalid): throw fail(invalid.message)
            }
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
