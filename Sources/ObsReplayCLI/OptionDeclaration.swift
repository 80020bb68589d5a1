import JournalAnalysis

/// An option declared once: its spelling and help (what `CommandLineReader` reads,
/// `--help` prints and `obsreplay completions` completes) and, for the typed declarations,
/// how its text becomes a value. A command lists its declarations in its `CommandSpec`
/// and reads its arguments with the same values, never by a name spelled again.
package protocol OptionDeclaration: Sendable {
    /// The spelling, placeholder, help and fixed choices.
    var spec: CommandSpec.Option { get }
}

extension CommandSpec.Option: OptionDeclaration {
    package var spec: CommandSpec.Option { self }
}

/// A value's text that the option does not accept: the whole one-line message.
struct InvalidValue: Error {
    var message: String
}

/// A flag (`--json`): given or not.
struct FlagOption: OptionDeclaration {
    let spec: CommandSpec.Option

    init(_ name: String, short: Character? = nil, help: String) {
        spec = CommandSpec.Option(name, short: short, help: help)
    }
}

/// An option that takes a value (`--session <n>`), read as `Value`; absent is `nil`.
struct ValueOption<Value>: OptionDeclaration {
    let spec: CommandSpec.Option
    /// The value of one text, or the message saying why it is not one.
    let convert: @Sendable (String) -> Result<Value, InvalidValue>

    init(
        _ name: String, short: Character? = nil, value: String, help: String, choices: [String] = [],
        convert: @escaping @Sendable (String) -> Result<Value, InvalidValue>
    ) {
        spec = CommandSpec.Option(name, short: short, value: value, help: help, choices: choices)
        self.convert = convert
    }

    /// The option, required: the reader refuses a command line without it.
    var required: RequiredOption<Value> { RequiredOption(self) }

    /// The option, required unless the option named `other` is given.
    func required(unless other: String) -> RequiredOption<Value> { RequiredOption(self, unless: other) }
}

/// An option the command cannot run without (`--at <seq>`), read as `Value`.
struct RequiredOption<Value>: OptionDeclaration {
    let option: ValueOption<Value>
    let unless: String?
    var spec: CommandSpec.Option {
        var spec = option.spec
        spec.required = true
        spec.requiredUnless = unless
        return spec
    }

    init(_ option: ValueOption<Value>, unless: String? = nil) {
        self.option = option
        self.unless = unless
    }
}

/// A repeatable option whose values may also be comma-separated (`--kind a,b --kind c`),
/// read as the list of every element in order.
struct ListOption<Element>: OptionDeclaration {
    let spec: CommandSpec.Option
    let convert: @Sendable (String) -> Result<Element, InvalidValue>

    init(
        _ name: String, value: String, help: String, choices: [String] = [],
        convert: @escaping @Sendable (String) -> Result<Element, InvalidValue>
    ) {
        spec = CommandSpec.Option(name, value: value, help: help, repeatable: true, choices: choices)
        self.convert = convert
    }
}

// MARK: - The usual kinds of value

extension ValueOption where Value == String {
    /// Any text (a path, a key, a type name), taken verbatim.
    static func text(_ name: String, short: Character? = nil, value: String, help: String) -> ValueOption<String> {
        ValueOption(name, short: short, value: value, help: help) { .success($0) }
    }
}

extension ValueOption where Value == Int64 {
    /// A whole number of at least `minimum`.
    static func integer(_ name: String, value: String, help: String, minimum: Int64 = 1) -> ValueOption<Int64> {
        ValueOption(name, value: value, help: help) { text in wholeNumber(text, name: name, minimum: minimum) }
    }
}

extension ValueOption where Value: RawRepresentable & CaseIterable & Sendable, Value.RawValue == String {
    /// One of a fixed set, spelled as the cases' raw values (also what completion offers).
    static func choice(_ name: String, value: String, help: String) -> ValueOption<Value> {
        let names = Value.allCases.map(\.rawValue)
        return ValueOption(name, value: value, help: help, choices: names) { text in
            Value(rawValue: text).map { .success($0) } ?? .failure(notOneOf(text, name: name, names: names))
        }
    }
}

extension ListOption {
    /// Elements named by `names` (each element's spelling), also what completion offers.
    static func named(
        _ name: String, value: String, help: String, names: [String], lookup: @escaping @Sendable (String) -> Element?
    ) -> ListOption<Element> {
        ListOption(name, value: value, help: help, choices: names) { text in
            lookup(text).map { .success($0) } ?? .failure(notOneOf(text, name: name, names: names))
        }
    }
}

/// `invalid value 'x' for '--name': expected a whole number of at least 1`.
func wholeNumber(_ text: String, name: String, minimum: Int64) -> Result<Int64, InvalidValue> {
    guard let value = Int64(text), value >= minimum else {
        return .failure(InvalidValue(message: "invalid value '\(text)' for '--\(name)': expected a whole number of at least \(minimum)"))
    }
    return .success(value)
}

/// `invalid value 'nevr' for '--color': expected one of auto, always, never; did you mean 'never'?`.
func notOneOf(_ text: String, name: String, names: [String]) -> InvalidValue {
    InvalidValue(
        message: "invalid value '\(text)' for '--\(name)': expected one of \(names.joined(separator: ", "))"
            + DidYouMean.hint(for: text, among: names)
    )
}

// MARK: - Reading

extension ParsedArguments {
    /// Whether the flag was given.
    func flag(_ flag: FlagOption) -> Bool { flags.contains(flag.spec.name) }

    /// The (last) value of the option, `nil` when it is not given.
    /// - Throws: a usage error (exit 64) naming the value and what was expected.
    func value<Value>(_ option: ValueOption<Value>) throws(CLIError) -> Value? {
        guard let text = values[option.spec.name]?.last else { return nil }
        return try read(text, option.convert)
    }

    /// The value of a required option (the reader refused a command line without it).
    func value<Value>(_ option: RequiredOption<Value>) throws(CLIError) -> Value {
        guard let value = try value(option.option) else {
            throw usageError("missing option '--\(option.spec.name) <\(option.spec.valueName ?? "")>'")
        }
        return value
    }

    /// Every element of every occurrence of the option, in order; none when not given.
    func values<Element>(_ option: ListOption<Element>) throws(CLIError) -> [Element] {
        var elements: [Element] = []
        for value in values[option.spec.name] ?? [] {
            for text in value.split(separator: ",", omittingEmptySubsequences: true) {
                elements.append(try read(String(text), option.convert))
            }
        }
        return elements
    }

    /// A positional argument's value (empty when an excused argument is left out).
    func argument(_ argument: CommandSpec.Argument) -> String { positionals[argument.name] ?? "" }

    /// Every value of a variadic argument (the single value of another).
    func arguments(_ argument: CommandSpec.Argument) -> [String] {
        lists[argument.name] ?? positionals[argument.name].map { [$0] } ?? []
    }

    /// A usage error about this command line (exit 64, with the command's usage).
    func usageError(_ message: String) -> CLIError {
        .usage(UsageError(message: message, usage: usage, command: command))
    }

    private func read<Value>(_ text: String, _ convert: (String) -> Result<Value, InvalidValue>) throws(CLIError) -> Value {
        switch convert(text) {
        case let .success(value): return value
        case let .failure(invalid): throw usageError(invalid.message)
        }
    }
}
