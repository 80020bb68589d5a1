import Foundation
import JournalAnalysis
import JournalFixtures
import JournalReport
import Testing
import TestSupport

/// The showcase's report, read back.
func showcaseReport() throws -> ReportDocument {
    let reader = try JournalReader(path: try showcaseJournal())
    return try ReportDocument(html: try HTMLReport.render(reader))
}

@Test func showcaseHasALanePerRegistrationColouredByHowItEnded() throws {
    let report = try showcaseReport()
    let session = try #require(report.sessions.first)
    #expect(report.sessions.count == 1)
    // [registration, channel, ..., startRow, endRow, end, reason]; ends as the layout lists them.
    let ends = try #require((report.data["layout"] as? [String: Any])?["ends"] as? [String])
    #expect(ends == ["explicit", "token", "deallocated", "replaced", "live", "other"])
    let lanes = session.lanes.map { "r\($0[0]) ch\($0[1]) rows \($0[9])-\($0[10]) \(ends[$0[11]])" }
    #expect(lanes == [
        "r1 ch0 rows 0-16 replaced", "r2 ch1 rows 5-38 explicit", "r3 ch2 rows 8-36 token", "r4 ch2 rows 9--1 live",
        "r5 ch0 rows 16-42 replaced", "r6 ch3 rows 22--1 live", "r7 ch4 rows 25-40 deallocated", "r8 ch0 rows 42--1 live",
        "r9 ch5 rows 43--1 live",
    ])
    #expect(session.lanes.map { session.text($0[2]) ?? "" } == [
        "FloatingWindow#2", "AppDelegate#10", "StretchyHeader#5", "ListScreen#4", "VideoScreen#3", "VideoScreen#3",
        "ProgressBar#8", "ListScreen#4", "ListScreen#4",
    ])
    #expect(session.channelNames == [
        "Player#1.isPlayingChanged", "*.UIApplicationDidBecomeActive", "ScrollView#6.contentOffset",
        "\(ShowcaseScenario.hostileType)#9.isVisible", "Uploader#7.progress", "ScrollView#6.contentOfset",
    ])
    #expect(session.channels.map { $0[2] } == [1, 0, 0, 0, 0, 0])  // single slot
}

@Test func showcaseHasEveryEventWithItsTicksAndMarks() throws {
    let session = try #require(try showcaseReport().sessions.first)
    #expect(session.rows.map(\.seq) == Array(1...46))
    #expect(session.rows.map(\.micros) == (1...46).map { $0 <= 34 ? $0 * 1000 : ($0 + 30) * 1000 })
    var kinds: [String: Int] = [:]
    for row in session.rows { kinds[row.kind, default: 0] += 1 }
    #expect(kinds == [
        "registered": 7, "replaced": 2, "removed": 3, "removeUnregistered": 1, "changed": 14, "delivered": 15,
        "skipped": 1, "scopeBegan": 1, "scopeEnded": 1, "gap": 1,
    ])
    // Change ticks per channel, delivery marks per lane (1-based indexes in the rows).
    let ticks = (1...6).map { channel in session.rows("changed").count { $0.fields["channel"] == channel } }
    #expect(ticks == [4, 2, 2, 3, 3, 0])
    let marks = (1...9).map { lane in session.rows("delivered").count { $0.fields["lane"] == lane } }
    #expect(marks == [2, 1, 1, 2, 2, 3, 4, 0, 0])
    #expect(session.rows("skipped").map(\.seq) == [15])
}

@Test func showcaseMarksOffMainSlowInitialNoCallbackAndRedundantEvents() throws {
    let report = try showcaseReport()
    let session = try #require(report.sessions.first)
    #expect(session.seqs(flag: try report.flag("offMain")) == [33])
    #expect(session.seqs(flag: try report.flag("slow")) == [35])
    #expect(session.seqs(flag: try report.flag("initial")) == [27])
    #expect(session.seqs(flag: try report.flag("noCallback")) == [40])
    #expect(session.seqs(flag: try report.flag("redundant")) == [14])
    #expect(session.seqs(flag: try report.flag("main")) == Array(1...31) + Array(34...46))
    let slow = try #require(session.rows.first { $0.seq == 35 })
    #expect(slow.fields["dur"] == 30_000)
    // A delivery names its change: seq 31 (the outer callback) belongs to 28, seq 30 to 29.
    let back = Dictionary(uniqueKeysWithValues: session.rows("delivered").map { ($0.seq, $0.fields["change"]!) })
    #expect(back[31] == 3 && back[30] == 1 && back[27] == 0)
    let initial = try #require(session.rows.first { $0.seq == 27 })
    #expect(session.text(initial.fields["new"]!) == "0.0")
}

@Test func findingsAreListedBesideTheChartLinkedToWhatTheyCite() throws {
    let report = try showcaseReport()
    // No silent-change: the post at seq 40 reached nobody because AppDelegate#10 removed
    // its observer deliberately (seq 39), which is not a bug.
    #expect(report.count("<li class=\"finding ") == 11)
    #expect(report.count("<details class=\"rule-group ") == 7)
    #expect(report.count("<button type=\"button\" class=\"cite\" data-row=") == 19)
    #expect(report.count("<button type=\"button\" class=\"cite\" data-lane=") == 14)
    // The first finding: last-callback-wins, citing seq 1 and 17 (rows 0 and 16), lanes r1 and r5, its channel.
    // Named by rule and number (`#f=OJ001-1`), reachable with Tab.
    #expect(report.html.contains("<li class=\"finding sev-error\" id=\"f-1-OJ001-1\" data-key=\"OJ001-1\" tabindex=\"0\" aria-label=\"error OJ001-1: 3 owners assigned Player#1.isPlayingChanged; FloatingWindow#2 (FloatingWindow.swift:31) was replaced at seq 17 while alive and missed 2 changes.\" data-rows=\"0 16\" data-lanes=\"0 4\" data-channels=\"0\">"))
    #expect(report.html.contains("<a class=\"link\" href=\"#s=1&amp;f=OJ001-1\" title=\"Link to this finding\">#</a>"))
    #expect(report.html.contains("<button type=\"button\" class=\"cite\" data-row=\"16\">seq 17</button>"))
    #expect(report.html.contains("<button type=\"button\" class=\"cite\" data-lane=\"4\">r5 VideoScreen#3</button>"))
    // The typo: cites its registration (lane r9) and a post of the real key, on both channels.
    #expect(report.html.contains("data-rows=\"10 43\" data-lanes=\"8\" data-channels=\"5 2\">"))
    // Groups: errors first.
    let order = report.html.components(separatedBy: "<details class=\"rule-group ").dropFirst().map { String($0.prefix(40)) }
    #expect(order.map { $0.components(separatedBy: "<code>")[1].prefix(5) } == ["OJ001", "OJ008", "OJ003", "OJ004", "OJ005", "OJ010", "OJ007"])
    #expect(report.html.contains("<h3>Findings: 11 (3 errors, 4 warnings, 4 info)</h3>"))
}

@Test func everySessionGetsItsOwnTabWithAll() throws {
    let path = try temporaryDirectory().appendingPathComponent("two.sqlite").path
    let fixture = try JournalFixture(path: path)
    try ShowcaseScenario.record(try fixture.session(label: "first"))
    let quiet = try fixture.session(label: "quiet")
    let rate = try quiet.channel(try quiet.object("Player"), "rate")
    try quiet.register(rate, owner: try quiet.object("Screen"), at: "Screen.swift:5")
    try fixture.finish()
    let reader = try JournalReader(path: path)
    let all = try ReportDocument(html: try HTMLReport.render(reader, sessions: .all))
    #expect(all.sessions.map { $0.rows.count } == [46, 1])
    #expect(all.count("<section class=\"session\"") == 2)
    #expect(all.count("<nav class=\"sessions\">") == 1)
    #expect(all.html.contains("<section class=\"session\" id=\"session-2\" data-index=\"1\" hidden>"))
    let latest = try ReportDocument(html: try HTMLReport.render(reader))
    #expect(latest.sessions.map { $0.rows.count } == [1])
    #expect(latest.count("<nav class=\"sessions\">") == 0)
    let first = try ReportDocument(html: try HTMLReport.render(reader, sessions: .session(1)))
    #expect(first.sessions.map { $0.rows.count } == [46])
    #expect(throws: AnalysisError.self) { try HTMLReport.render(reader, sessions: .session(3)) }
}

@Test func writeBesideTheJournalReplacesTheExtensionAndNeverTheJournal() throws {
    let journal = try showcaseJournal()
    let before = try Data(contentsOf: URL(fileURLWithPath: journal))
    let path = try HTMLReport.write(journalPath: journal)
    #expect(path == String(journal.dropLast("sqlite".count)) + "html")
    #expect(try ReportDocument(html: try String(contentsOfFile: path, encoding: .utf8)).sessions.count == 1)
    #expect(HTMLReport.defaultPath(forJournal: "/tmp/x/demo") == "/tmp/x/demo.html")
    #expect(throws: AnalysisError.outputRefused(path: journal, reason: "write the report over the journal")) {
        try HTMLReport.write(journalPath: journal, to: journal)
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == before)
}
