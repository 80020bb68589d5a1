import Foundation
import JournalAnalysis
import JournalFixtures
import JournalReport
import Testing
import TestSupport

/// A 100,000-event session of the benchmark's mix stays under 10 MB, with every event in
/// its data and at most `perRule` findings listed per rule.
@Test(.skippedWhenQuick, .tags(.slow)) func aHundredThousandEventSessionStaysUnderTenMegabytes() throws {
    let path = try temporaryDirectory().appendingPathComponent("large.sqlite").path
    try SyntheticWorkload.write(to: path, events: 100_000)
    let reader = try JournalReader(path: path)
    let summary = try reader.session(nil)
    let html = try HTMLReport.render(reader)
    #expect(html.utf8.count < 10_000_000)
    let report = try ReportDocument(html: html)
    let session = try #require(report.sessions.first)
    #expect(Int64(session.rows.count) == summary.eventCount)
    #expect(session.rows.map(\.seq) == Array(1...Int(summary.lastSeq)))
    #expect(Int64(session.lanes.count) == summary.registrationCount)
    let findings = try Diagnoser.diagnose(reader, session: summary)
    var perRule: [Rule: Int] = [:]
    for finding in findings { perRule[finding.rule, default: 0] += 1 }
    let listed = perRule.values.reduce(0) { $0 + min($1, 100) }
    #expect(report.count("<li class=\"finding ") == listed)
    #expect(report.count("<p class=\"more\">") == perRule.values.count { $0 > 100 })
}

@Test func valuesAreCutAndLeftOutPastTheBudget() {
    var strings = ReportStrings(valueLimit: 5, budget: 12)
    #expect(strings.value("abcdefgh") == 1)
    #expect(strings.text(1) == "abcde…")
    #expect(strings.value("abc") == 2)
    #expect(strings.value("abc") == 2)
    #expect(strings.value("xyz") == 3)
    #expect(strings.text(3) == ReportStrings.omitted)
    #expect(strings.value("zzz") == 3)
    #expect(strings.name("a long name is never cut") == 4)
    #expect(strings.value(nil) == 0)
}
