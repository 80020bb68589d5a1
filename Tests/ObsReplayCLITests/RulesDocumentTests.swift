import Foundation
import JournalAnalysis
import Testing

// docs/RULES.md is the page SARIF results link to (each rule's helpUri, `#oj001`): every
// rule's `--explain` text under its anchor, in the catalog's order.

@Test func theRulesPageIsTheCatalog() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let page = try String(contentsOf: root.appendingPathComponent("docs/RULES.md"), encoding: .utf8)
    let start = try #require(page.range(of: "\n<a id=\""))
    let expected = Rule.allCases.sorted { $0.code < $1.code }.map { rule in
        "\n<a id=\"\(rule.code.lowercased())\"></a>\n\n## \(rule.code) \(rule.name)\n\n```text\n\(rule.explanation)```\n"
    }.joined()
    #expect(String(page[start.lowerBound...]) == expected, "docs/RULES.md differs from the rules: run tools/scripts/rules-doc.sh")
    // Every anchor a SARIF helpUri names is on the page.
    for rule in Rule.allCases {
        let anchor = try #require(SARIFLog.helpURI(rule).split(separator: "#").last)
        #expect(page.contains("<a id=\"\(anchor)\"></a>"))
    }
}
