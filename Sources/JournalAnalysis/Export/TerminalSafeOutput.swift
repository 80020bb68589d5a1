/// Passes text on with everything a terminal would act on made visible: escape
/// sequences (clear screen, OSC 8 links, window titles), C1 controls, bidi overrides and
/// invisible formatting characters (see `TerminalText`). Line breaks (`\n`, `\r\n`) are
/// kept so rows still read as rows.
///
/// For machine formats (CSV, JSON Lines) written to a terminal: a person is reading
/// them there, and a journal is untrusted input. Files and pipes get the exact bytes.
package final class TerminalSafeOutput: TextOutput {
    private let output: any TextOutput

    /// Wraps `output`.
    package init(_ output: any TextOutput) {
        self.output = output
    }

    package func write(_ text: String) {
        output.write(TerminalText.escapedKeepingLineBreaks(text))
    }

    package func flush() throws(AnalysisError) {
        try output.flush()
    }

    /// Whether the wrapped output's reader went away.
    package var isClosedByReader: Bool { output.isClosedByReader }
}
