import Foundation
import JournalFixtures
import JournalReport
import Testing

@Test func htmlTextEscapesMarkupQuotesAndControlCharacters() {
    #expect(HTMLText.escaped("a<b>&\"c\"'d'") == "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;")
    #expect(HTMLText.escaped("tab\tline\nesc\u{1B}[1m rlo\u{202E}") == "tab\\tline\\nesc\\u{1B}[1m rlo\\u{202E}")
    #expect(HTMLText.escaped("Grüße 東京 → ok") == "Grüße 東京 → ok")
}

@Test func scriptSafeJSONCannotEndItsScriptElement() {
    #expect(HTMLText.scriptSafeJSON(#"{"a":"</script><!-- & -->"}"#) == #"{"a":"\u003c/script\u003e\u003c!-- \u0026 --\u003e"}"#)
    #expect(HTMLText.scriptSafeJSON("[1,2]") == "[1,2]")
}

@Test func hostileJournalTextNeverBecomesMarkup() throws {
    let report = try showcaseReport()
    let html = report.html
    // Only the page's own two scripts; no element from the journal.
    #expect(report.count("<script") == 2)
    #expect(report.count("</script>") == 2)
    for tag in ["<img", "<b>", "<iframe", "<link", "<object", "<embed"] { #expect(report.count(tag) == 0, "\(tag)") }
    #expect(html.contains("<h2>Session 1: checkout &quot;A&amp;B&quot; &lt;b&gt;not bold&lt;/b&gt;</h2>"))
    #expect(html.contains("Toolbar&lt;script&gt;alert(1)&lt;/script&gt;#9.isVisible"))
    // The data holds no character that could end or change its script element, and
    // no raw line or paragraph separator.
    let data = try ReportDocument.dataText(html)
    #expect(!data.contains("<") && !data.contains(">") && !data.contains("&"))
    #expect(!data.unicodeScalars.contains { $0 == "\u{2028}" || $0 == "\u{2029}" })
    // No control character anywhere in the page but line feeds.
    #expect(!html.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) })
    // The journal's text comes back whole from the data, with its controls made visible.
    let session = try #require(report.sessions.first)
    #expect(session.strings.contains(ShowcaseScenario.hostileOld))
    #expect(session.strings.contains("line1\\nline2\u{2028}\\u{1B}[31mred"))
    #expect(session.strings.contains(ShowcaseScenario.hostileFunction))
    #expect((session.json["meta"] as? [String: Any])?["label"] as? String == ShowcaseScenario.label)
}

@Test func thePageLoadsNothingAndRunsOnlyItsOwnScript() throws {
    let report = try showcaseReport()
    let html = report.html
    let policy = try #require(html.components(separatedBy: "<meta http-equiv=\"Content-Security-Policy\" content=\"").dropFirst().first)
    let nonce = try #require(policy.components(separatedBy: "script-src 'nonce-").dropFirst().first?.prefix { $0 != "'" })
    #expect(policy.hasPrefix("default-src 'none'; style-src 'nonce-\(nonce)'; script-src 'nonce-\(nonce)';"))
    #expect(nonce.count >= 16)
    #expect(html.contains("<script nonce=\"\(nonce)\">"))
    #expect(html.contains("<style nonce=\"\(nonce)\">"))
    // The only URLs are the SVG namespace (a name, never fetched).
    let urls = html.components(separatedBy: "://").dropFirst().map { "://" + $0.prefix { !"\"' <>\n".contains($0) } }
    #expect(Set(urls) == ["://www.w3.org/2000/svg"])
    #expect(report.count("http://www.w3.org/2000/svg") == urls.count)
}
