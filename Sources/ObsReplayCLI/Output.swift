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
        var offset = 0
        while offset < buffer.count {
            let written = buffer.withUnsafeBytes { bytes in
                systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE {
                    closedByReader = true
                } else {
                    failure = String(cString: strerror(errno))
                }
                return
            }
            offset += written
        }
    }
}

/// How human output looks: colour only on a terminal and never with `NO_COLOR`.
struct Style {
    let colour: Bool

    init(colour: Bool) {
        self.colour = colour
    }

    /// Colour when `descriptor` is a terminal and `NO_COLOR` is unset or empty.
    init(descriptor: Int32, environment: [String: String]) {
        let noColour = !(environment["NO_COLOR"] ?? "").isEmpty
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
