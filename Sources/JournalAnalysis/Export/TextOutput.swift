/// Where text output goes: standard output, a file, or a string in tests.
package protocol TextOutput: AnyObject {
    /// Appends `text`. Implementations may buffer; `flush` hands everything over.
    func write(_ text: String)
    /// Hands buffered text to its destination.
    func flush() throws(AnalysisError)
    /// Whether the reader went away (a closed pipe): what is written from then on is
    /// dropped, so a command that streams may stop rather than compute it all.
    var isClosedByReader: Bool { get }
}

extension TextOutput {
    /// Output in memory or to a file has no reader to go away.
    package var isClosedByReader: Bool { false }
}

/// Collects output in memory (tests, small documents).
package final class StringOutput: TextOutput {
    package private(set) var text = ""
    package init() {}
    package func write(_ text: String) { self.text += text }
    package func flush() {}
}
