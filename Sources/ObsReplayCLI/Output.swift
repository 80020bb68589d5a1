import SystemShim
import JournalAnalysis

/// Buffered output to a file descriptor (standard output, standard error, an `-o` file).
///
/// Buffers 64 KiB so a million-line export makes a few thousand `write` calls, not a
/// million. A reader that went away (a closed pipe) ends output quietly.
final class FileOutput: TextOutput {
    let descriptor: Int32
    let name: String
    private var buffer: [UInt8] = []
    private(set) var closedByReader = false
    var isClosedByReader: Bool { closedByReader }
    private var failure: String?

    init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
        buffer.reserveCapacity(1 << 16)
    }

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { drain() }
    }

    func flush() throws(AnalysisError) {
        drain()
        if let failure { throw .output(path: name, detail: failure) }
    }

    private func drain() {
        defer { buffer.removeAll(keepingCapacity: true) }
        guard !closedByReader, failure == nil else { return }
        let error = writeAll(descriptor, buffer)
        if error == EPIPE {
            closedByReader = true
        } else if error != 0 {
            failure = errorText(error)
        }
    }
}

/// A command's data output: standard output, or the file `-o` names (`-o -` is
/// standard output too). Opened through `OutputFile`, so `-o` never writes over the
/// journal or its side files, never replaces a FIFO or device, and replaces a regular
/// file only when `commit()` succeeds.
final class CommandOutput {
    /// Where the command writes its text.
    let text: any TextOutput
    private let buffer: FileOutput
    private let file: OutputFile?

    fileprivate init(buffer: FileOutput, file: OutputFile?, isTerminal: Bool) {
        self.buffer = buffer
        self.file = file
        // A terminal interprets escape sequences a journal may hold; files and pipes get
        // the exact bytes.
        text = isTerminal ? TerminalSafeOutput(buffer) : buffer
    }

    /// Whether the data goes to a file (`-o FILE`), not standard output.
    var isFile: Bool { file != nil }

    /// The context `context` writing its data here (`diagnose -o`): messages stay on
    /// standard error; a file is coloured only when it is a terminal (`auto`).
    func context(from context: CommandContext) -> CommandContext {
        guard buffer !== context.out else { return context }
        return CommandContext(
            out: buffer, err: context.err, environment: context.environment,
            style: Style(descriptor: buffer.descriptor, environment: context.environment), path: context.path,
            spec: context.spec
        )
    }

    /// Flushes the text and, for a file, puts it in place.
    func commit() throws(AnalysisError) {
        try buffer.flush()
        try file?.commit()
    }
}

extension CommandContext {
    /// The output the `-o` option names (standard output without one, or with `-`),
    /// for `what` (`export`) made from the journals at `journals`.
    func output(_ path: String?, journals: [String], what: String) throws(CLIError) -> CommandOutput {
        guard let path, path != "-" else {
            return CommandOutput(buffer: out, file: nil, isTerminal: isatty(out.descriptor) == 1)
        }
        let file = try analysing { () throws(AnalysisError) in try OutputFile.open(path, protecting: journals, what: what) }
        return CommandOutput(
            buffer: FileOutput(descriptor: file.descriptor, name: path), file: file,
            isTerminal: isatty(file.descriptor) == 1
        )
    }
}

/// How human output looks: colour only on a terminal, never with `NO_COLOR` or `TERM=dumb`.
struct Style {
    let colour: Bool

    init(colour: Bool) {
        self.colour = colour
    }

    /// Colour when `descriptor` is a terminal that can show it (`TERM` is not `dumb`) and
    /// `NO_COLOR` is unset or empty.
    init(descriptor: Int32, environment: [String: String]) {
        let noColour = !(environment["NO_COLOR"] ?? "").isEmpty || environment["TERM"] == "dumb"
        colour = !noColour && isatty(descriptor) == 1
    }

    func paint(_ text: String, _ code: String) -> String {
        colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func severity(_ severity: Severity) -> String {
        switch severity {
        case .error: return paint(severity.rawValue, "1;31")
        case .warning: return paint(severity.rawValue, "1;33")
        case .info: return paint(severity.rawValue, "36")
        }
    }

    func bold(_ text: String) -> String { paint(text, "1") }
    func dim(_ text: String) -> String { paint(text, "2") }
}
