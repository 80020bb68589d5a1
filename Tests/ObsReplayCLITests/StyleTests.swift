import JournalAnalysis
@testable import ObsReplayCLI
import SystemShim
import Testing

@Test func colourOnlyOnATerminalAndNeverWithNoColor() throws {
    // The master side of a new pseudo-terminal is a terminal as isatty sees it.
    let terminal = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    try #require(terminal >= 0)
    defer { close(terminal) }
    var fds: [Int32] = [0, 0]
    try #require(pipe(&fds) == 0)
    defer { close(fds[0]); close(fds[1]) }
    #expect(Style(descriptor: terminal, environment: [:]).colour)
    #expect(!Style(descriptor: terminal, environment: ["NO_COLOR": "1"]).colour)
    #expect(Style(descriptor: terminal, environment: ["NO_COLOR": ""]).colour)
    #expect(!Style(descriptor: fds[1], environment: [:]).colour)
    #expect(Style(colour: true).severity(.error) == "\u{1B}[1;31merror\u{1B}[0m")
    #expect(Style(colour: false).severity(.error) == "error")
}

@Test func terminalTextEscapesControlsAndBidiButKeepsText() {
    #expect(TerminalText.escaped("Grüße 東京 → ok") == "Grüße 東京 → ok")
    #expect(TerminalText.escaped("a\u{1B}[1mb\tc\nd\u{7F}\u{85}\u{202E}\u{2066}") == "a\\u{1B}[1mb\\tc\\nd\\u{7F}\\u{85}\\u{202E}\\u{2066}")
}
