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

/// Issue 29: `report --all` drew every session, each a tab, a section, its data and its
/// diagnosis: on a journal of 200,000 empty sessions it ran for minutes. Sessions without
/// events are counted, and at most `SessionsLeftOut.drawnLimit` with events are drawn
/// (the latest); the page says what it left out, as a count and a range of ids.
@Test func aReportOfEverySessionCountsWhatItDoesNotDraw() throws {
    let scratch = try ScratchDirectory("left-out")
    let path = scratch.url.appendingPathComponent("many.sqlite").path
    let fixture = try JournalFixture(path: path)
    for label in ["first", "second", "third"] {
        let s = try fixture.session(label: label)
        let rate = try s.channel(try s.object("Player"), "rate")
        try s.register(rate, owner: try s.object("Screen"), at: "Screen.swift:5")
    }
    try fixture.finish()
    // Empty sessions around them: ids 4...1003 and, below the others, -9...0.
    try JournalFixture.edit(path, """
        WITH RECURSIVE n(i) AS (SELECT -9 UNION ALL SELECT i + 1 FROM n WHERE i < 1003)
        INSERT INTO sessions (id, label, process, pid, host, started_at, start_ns, ended_at, clean_end, library_version)
        SELECT i, 'idle', 'App', 1, 'h', '2025-01-01T10:00:00Z', 0, '2025-01-01T10:00:01Z', 1, '0.1.0'
        FROM n WHERE i NOT BETWEEN 1 AND 3
        """)
    let reader = try JournalReader(path: path)
    let all = try reader.sessions()
    #expect(all.count == 1013)
    let (drawn, leftOut) = SessionsLeftOut.select(all)
    #expect(drawn.map(\.id) == [1, 2, 3])
    #expect(leftOut == SessionsLeftOut(empty: .init(count: 1010, firstID: -9, lastID: 1003)))
    let (latest, earlier) = SessionsLeftOut.select(all, limit: 2)
    #expect(latest.map(\.id) == [2, 3])
    #expect(earlier.beyondLimit == .init(count: 1, firstID: 1, lastID: 1))
    let page = try HTMLReport.render(reader, sessions: .all)
    #expect(page.contains("""
        <p class="left-out">1010 sessions without events are not drawn (ids -9–1003); obsreplay sessions lists them.</p>
        """))
    #expect(page.contains(": 3 sessions shown."))
    #expect(page.components(separatedBy: "<section class=\"session\"").count - 1 == 3)
    #expect(page.utf8.count < 200_000)
    // Every session empty: the latest is drawn, the others counted.
    let (onlyEmpty, rest) = SessionsLeftOut.select(all.filter { $0.eventCount == 0 })
    #expect(onlyEmpty.map(\.id) == [1003] && rest.empty == .init(count: 1009, firstID: -9, lastID: 1002))
    #expect(SessionsLeftOut.none.html == "")
    #expect(SessionsLeftOut(beyondLimit: .init(count: 1, firstID: 7, lastID: 7)).html == """
        <p class="left-out">1 earlier session with events is not drawn (id 7): a page draws the latest 200; obsreplay report --session ID draws any one.</p>

        """)
}
