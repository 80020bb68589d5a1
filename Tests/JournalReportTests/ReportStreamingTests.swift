import Foundation
import JournalAnalysis
import JournalFixtures
import JournalReport
import Testing
import TestSupport

/// The page with its nonce (four places: the policy's two, the style's and the script's) replaced by `N`, and the nonces found.
private func masked(_ html: String) throws -> (page: String, nonces: [String]) {
    let pattern = try NSRegularExpression(pattern: "nonce(-|=\")([0-9a-f]*)")
    let range = NSRange(html.startIndex..., in: html)
    let nonces = pattern.matches(in: html, range: range).map { String(html[Range($0.range(at: 2), in: html)!]) }
    return (pattern.stringByReplacingMatches(in: html, range: range, withTemplate: "nonce$1N"), nonces)
}

/// The file `report -o` writes piece by piece is byte for byte the page `render` makes
/// whole (but for its nonce): a session of 10,000 events is a page of many pieces.
@Test func theWrittenReportIsTheRenderedPage() throws {
    let directory = try temporaryDirectory()
    let journal = directory.appendingPathComponent("pieces.sqlite").path
    try SyntheticWorkload.write(to: journal, events: 10_000)
    let output = directory.appendingPathComponent("pieces.html").path
    #expect(try HTMLReport.write(journalPath: journal, to: output) == output)
    let written = try masked(String(contentsOfFile: output, encoding: .utf8))
    let rendered = try masked(try HTMLReport.render(try JournalReader(path: journal)))
    // Pieces are 64 KiB: this page is several.
    #expect(written.page.utf8.count > 8 * 65_536)
    #expect(written.page == rendered.page)
    #expect(written.nonces.count == 4 && Set(written.nonces).count == 1)
}

/// 128 random bits as 32 hex digits, always: a leading zero digit is kept.
@Test func theNonceIsAlwaysThirtyTwoHexDigits() {
    let nonces = (0..<2000).map { _ in HTMLReport.nonce() }
    #expect(nonces.filter { $0.count != 32 || !$0.allSatisfy(\.isHexDigit) } == [])
    #expect(nonces.contains { $0.hasPrefix("0") || $0.dropFirst(16).hasPrefix("0") })
    #expect(Set(nonces).count == 2000)
}

@Test func theTallyCountsEveryFindingAndListsTheFirstOfEachRule() {
    var tally = FindingTally()
    func finding(_ rule: Rule, _ severity: Severity, _ seq: Int64) -> Finding {
        Finding(rule: rule, severity: severity, sessionID: 1, message: "m", seqs: [seq])
    }
    let listed = [
        tally.add(finding(.offMainDelivery, .warning, 1), listed: 2),
        tally.add(finding(.offMainDelivery, .error, 2), listed: 2),
        tally.add(finding(.offMainDelivery, .warning, 3), listed: 2),
        tally.add(finding(.slowCallback, .info, 4), listed: 2),
    ]
    #expect(listed == [true, true, false, true])
    #expect(tally.total == 4)
    #expect(tally.byRule.mapValues { "\($0.count) \($0.severity)" } == [.offMainDelivery: "3 error", .slowCallback: "1 info"])
    #expect(tally.bySeverity == [.warning: 2, .error: 1, .info: 1])
}
