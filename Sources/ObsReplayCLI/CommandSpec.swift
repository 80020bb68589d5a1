/// What a command accepts, for parsing and for its help text.
package struct CommandSpec: Sendable {
    /// A positional argument.
    package struct Argument: Sendable {
        package var name: String
        package var help: String
        /// The argument may be left out when this option is given (`diagnose --explain`).
        package var requiredUnless: String?
        /// The last argument may take several values (`diagnose a.sqlite runs/`).
        package var variadic: Bool
        /// The values the argument takes, when they are a fixed set (`completions bash`):
        /// what shell completion offers instead of file names.
        package var choices: [String]

        package init(
            _ name: String, help: String, requiredUnless: String? = nil, variadic: Bool = false, choices: [String] = []
        ) {
            self.name = name
            self.help = help
            self.requiredUnless = requiredUnless
            self.variadic = variadic
            self.choices = choices
        }
    }

    /// An option (`--name value`) or a flag (`--name`).
    package struct Option: Sendable {
        package var name: String
        package var short: Character?
        /// The value's placeholder; `nil` for a flag.
        package var valueName: String?
        package var help: String
        package var required: Bool
        /// A required option may be left out when this option is given (`export --fleet`).
        package var requiredUnless: String?
        package var repeatable: Bool
        /// The values the option takes, when they are a fixed set (for shell completion).
        package var choices: [String]

        package init(
            _ name: String, short: Character? = nil, value: String? = nil, help: String, required: Bool = false,
            repeatable: Bool = false, choices: [String] = []
        ) {
            self.name = name
            self.short = short
            self.valueName = value
            self.help = help
            self.required = required
            self.requiredUnless = nil
            self.repeatable = repeatable
            self.choices = choices
        }

        /// `--session <n>` or `-o, --output <file>`.
        var label: String {
            var text = short.map { "-\($0), " } ?? ""
            text += "--\(name)"
            if let valueName { text += " <\(valueName)>" }
            if repeatable { text += " ..." }
            return text
        }

        var usage: String {
            var text = "--\(name)"
            if let valueName { text += " <\(valueName)>" }
            if repeatable { text += " ..." }
            return required ? text : "[\(text)]"
        }
    }

    package var name: String
    package var abstract: String
    package var discussion: String?
    package var arguments: [Argument]
    package var options: [Option]
    /// Extra usage lines for alternative forms, after the command's path (`--explain <code>`).
    package var alternativeUsages: [String]

    /// - Parameter options: the declarations the command reads its options with, in the
    ///   order help lists them.
    package init(
        name: String, abstract: String, discussion: String? = nil, arguments: [Argument] = [],
        options: [any OptionDeclaration] = [], alternativeUsages: [String] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options.map(\.spec)
        self.alternativeUsages = alternativeUsages
    }
}
