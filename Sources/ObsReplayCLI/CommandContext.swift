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
        .usage(UsageError(message: message, usage: CommandLineReader.usage(spec, path: path), command: path))
    }

    /// Opens the journal at `path`, read-only.
    func openJournal(_ path: String) throws(CLIError) -> JournalReader {
        do {
            return try JournalReader(path: path)
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

/// Options and arguments several commands declare alike.
enum CommonOptions {
    static let session = ValueOption.integer("session", value: "n", help: "The session id (default: the latest session).")
    static let json = FlagOption("json", help: "Print JSON instead of text (field names are stable).")
    static let journal = CommandSpec.Argument("journal", help: "The journal file (opened read-only).")

    /// `--budget-ms` (default 16), read as the slow-callback budget in nanoseconds; a value
    /// too large to count in nanoseconds is a usage error, not an overflow.
    static func budget(help: String) -> ValueOption<Int64> {
        ValueOption("budget-ms", value: "ms", help: help) { text in
            wholeNumber(text, name: "budget-ms", minimum: 0).flatMap { milliseconds in
                let (nanoseconds, overflow) = milliseconds.multipliedReportingOverflow(by: 1_000_000)
                guard !overflow else {
                    return .failure(InvalidValue(
                        message: "invalid value '\(milliseconds)' for '--budget-ms': expected at most \(Int64.max / 1_000_000)"
                    ))
                }
                return .success(nanoseconds)
            }
        }
    }

    /// The diagnosis options for `--budget-ms` (in nanoseconds) or its default.
    static func diagnosisOptions(budgetNs: Int64?) -> DiagnosisOptions {
        budgetNs.map { DiagnosisOptions(slowCallbackBudgetNs: $0) } ?? DiagnosisOptions()
    }
}
