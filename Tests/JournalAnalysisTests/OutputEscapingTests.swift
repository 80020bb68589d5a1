import JournalAnalysis
import Testing

// Machine output shown on a terminal: nothing in a journal may drive the terminal.

@Test func jsonEscapesC1BidiAndInvisibleCharactersEverywhere() {
    let hostile = "a\u{1B}[2J\u{85}\u{9B}31m\u{202E}\u{2066}\u{200B}\u{AD}\u{FEFF}\u{2028}\u{E0041}é😀"
    #expect(JSONValue.string(hostile).rendered
        == #""a\u001b[2J\u0085\u009b31m\u202e\u2066\u200b\u00ad\ufeff\u2028\udb40\udc41é😀""#)
    #expect(JSONValue.object([("k\u{202E}", .string("v"))]).rendered == #"{"k\u202e":"v"}"#)
}

@Test func terminalSafeOutputKeepsRowsAndEscapesEverythingElse() {
    let text = StringOutput()
    let safe = TerminalSafeOutput(text)
    safe.write("a,\"x\u{1B}]8;;http://evil\u{07}\rline\ny\"\r\n")
    safe.write("\u{9B}2J,b\r\n")
    #expect(text.text == "a,\"x\\u{1B}]8;;http://evil\\u{7}\\rline\ny\"\r\n\\u{9B}2J,b\r\n")
}
