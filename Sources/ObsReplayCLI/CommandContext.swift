import SystemShim
import JournalAnalysis

/// What a running command writes to and reads from: standard output (data), standard
/// error (messages), the environment, and the style for human output.
final class CommandContext {
    let out: FileOutput
    let err: FileOutput
    let environment: [String: String]
    let style: Style
    /// The command path for messages (`obsreplay timeline`).
    let path: String
    let spec: CommandSpec

    init(out: FileOutput, err: FileOutput, environment: [String: String], style: Style, path: String, spec: CommandSpec) {
        self.out = out
        self.err = err
        self.environment = environment
        self.style = style
        self.path = path
        self.spec = spec
    }

    /// One line of human output, escaped for the terminal; `paint` adds colour to the
    /// escaped text (so colour codes are ours, never the journal's).
    func line(_ text: String, paint: ((String) -> String)? = nil) {
        let safe = TerminalText.escaped(text)
        out.write((paint?(safe) ?? safe) + "\n")
    }

    /// One JSON document or JSON Lines record.
    func json(_ value: JSONValue) {
        var text = ""
        value.render(into: &text)
        out.write(text + "\n")
    }

    /// Whether `descriptor` (1 or 2) is a terminal.
    func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    /// A message for a person, on standard error.
    func message(_ text: String) {
        err.write(TerminalText.escaped(text) + "\n")
    }

    // MARK: - Argument helpers

    func usageError(_ message: String) -> CLIError {
        .usage(UsageError(message: message, usage: ArgumentParser.usage(spec, path: path), command: path))
    }

    /// An integer option's value, checked to be at least `minimum`.
    func integer(_ arguments: ParsedArguments, _ name: String, minimum: Int64 = 1) throws(CLIError) -> Int64? {
        guard let text = arguments.value(name) else { return nil }
        guard let value = Int64(text), value >= minimum else {
            throw usageError("invalid value '\(text)' for '--\(name)': expected a whole number of at least \(minimum)")
        }
        return value
    }

    /// `--budget-ms` (default 16) as the diagnosis options' budget in nanoseconds; a value
    /// too large to count in nanoseconds is a usage error, not an overflow.
    func slowCallbackBudget(_ arguments: ParsedArguments) throws(CLIError) -> DiagnosisOptions {
        let milliseconds = try integer(arguments, "budget-ms", minimum: 0) ?? 16
        let (nanoseconds, overflow) = milliseconds.multipliedReportingOverflow(by: 1_000_000)
        guard !overflow else {
            throw usageError("invalid value '\(milliseconds)' for '--budget-ms': expected at most \(Int64.max / 1_000_000)")
        }
        return DiagnosisOptions(slowCallbackBudgetNs: nanoseconds)
    }

    /// A value from a fixed set.
    func choice<T: RawRepresentable>(
        _ arguments: ParsedArguments, _ name: String, _ type: T.Type, allowed: [T]
    ) throws(CLIError) -> T? where T.RawValue == String {
        guard let text = arguments.value(name) else { return nil }
        guard let value = T(rawValue: text), allowed.contains(where: { $0.rawValue == text }) else {
            let names = allowed.map(\.rawValue)
            throw usageError(
                "invalid value '\(text)' for '--\(name)': expected one of \(names.joined(separator: ", "))"
                    + DidYouMean.hint(for: text, among: names)
            )
        }
        return value
    }

    /// Opens the journal named by the `journal` argument, read-only.
    func openJournal(_ arguments: ParsedArguments) throws(CLIError) -> JournalReader {
        do {
            return try JournalReader(path: arguments.argument("journal"))
        } catch {
            throw .analysis(error)
        }
    }
}

/// Runs `body`, turning analysis errors into input errors (exit 2).
func analysing<T>(_ body: () throws(AnalysisError) -> T) throws(CLIError) -> T {
    do { return try body() } catch { throw .analysis(error) }
}

/// `+1.234s`.
func relativeTime(_ ns: Int64) -> String {
    let ms = ns / 1_000_000
    let sign = ns < 0 ? "-" : "+"
    let absolute = abs(ms)
    let fraction = String(absolute % 1000)
    return "\(sign)\(absolute / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)s"
}

/// Pads `text` on the right (or left) to `width` characters.
func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
    let count = text.count
    guard count < width else { return text }
    let padding = String(repeating: " ", count: width - count)
    return left ? padding + text : text + padding
}

/// Common options.
enum CommonOptions {
    static let session = CommandSpec.Option("session", value: "n", help: "The session id (default: the latest session).")
    static let json = CommandSpec.Option("json", help: "Print JSON instead of text (field names are stable).")
    static let journal = CommandSpec.Argument("journal", help: "The journal file (opened read-only).")
}
