import Foundation
import JournalAnalysis
import JournalFixtures
import JournalReport
import Testing
import TestSupport

/// The marks of what did not happen: changes a replaced owner missed, changes that
/// reached nobody; and reports limited to a range of sequence numbers.

/// `missed` as `seq → lane` pairs and `unheard` as seqs, read from a session's data.
private func marks(_ session: ReportDocument.Session) throws -> (missed: [String], unheard: [Int]) {
    let missed = try #require(session.json["missed"] as? [Int])
    let unheard = try #require(session.json["unheard"] as? [Int])
    let pairs = stride(from: 0, to: missed.count, by: 2).map { "seq \(session.rows[missed[$0]].seq) r\(session.lanes[missed[$0 + 1]][0])" }
    return (pairs, unheard.map { session.rows[$0].seq })
}

@Test func missedChangesAreTheWhatIfMulticastAnswerOnTheReplacedOwnersLane() throws {
    let session = try #require(try showcaseReport().sessions.first)
    // FloatingWindow#2 (r1) was replaced at seq 17 while alive and missed the changes at
    // seqs 18 and 20, as OJ001 says; VideoScreen#3 (r5), replaced at seq 43, missed none.
    let (missed, unheard) = try marks(session)
    #expect(missed == ["seq 18 r1", "seq 20 r1"])
    // The post at seq 40 reached nobody (AppDelegate#10 had removed its observer).
    #expect(unheard == [40])
}

@Test func noMissedMarksWhereNobodyWasReplacedWhileAlive() throws {
    let path = try temporaryDirectory().appendingPathComponent("fair.sqlite").path
    let fixture = try JournalFixture(path: path)
    let session = try fixture.session(label: "fair")
    let player = try session.object("Player")
    let slot = try session.channel(player, "onChange", singleSlot: true)
    let screen = try session.object("Screen")
    try session.register(slot, owner: screen, at: "Screen.swift:5")
    // The same owner assigning again replaces nobody else's callback.
    let second = try session.register(slot, owner: screen, at: "Screen.swift:9")
    try session.change(slot, old: "0", new: "1")
    try session.deliver(second)
    try fixture.finish()
    let report = try #require(try ReportDocument(html: try HTMLReport.render(try JournalReader(path: path))).sessions.first)
    let (missed, unheard) = try marks(report)
    #expect(missed.isEmpty)
    #expect(unheard.isEmpty)
}

@Test func aWindowDrawsOnlyItsEventsAndSaysSo() throws {
    let reader = try JournalReader(path: try showcaseJournal())
    let report = try ReportDocument(html: try HTMLReport.render(reader, window: ReportWindow(from: 10, to: 20)))
    let session = try #require(report.sessions.first)
    #expect(session.rows.map(\.seq) == Array(10...20))
    #expect(report.html.contains("<p class=\"note\">Only the events from seq 10 to seq 20 are drawn (11 of 46); the findings are those of the whole session. Run obsreplay report without --from, --to and --around for all of it.</p>"))
    // The findings are the whole session's, and the missed changes at seqs 18 and 20 are drawn.
    #expect(report.count("<li class=\"finding ") == 11)
    #expect(try marks(session).missed == ["seq 18 r1", "seq 20 r1"])
}

@Test func aroundIsAWindowOfAHundredEachSideThatNeverOverflows() {
    #expect(ReportWindow.around(5) == ReportWindow(from: 1, to: 105))
    #expect(ReportWindow.around(1000) == ReportWindow(from: 900, to: 1100))
    #expect(ReportWindow.around(.max - 1) == ReportWindow(from: .max - 101, to: .max))
}

@Test func aSessionBeyondTheDetailLimitIsSummarisedPerChannelAndSaysSo() throws {
    let reader = try JournalReader(path: try showcaseJournal())
    let report = try ReportDocument(html: try HTMLReport.render(reader, detailLimit: 40))
    let session = try #require(report.sessions.first)
    // Rows: what the shown findings cite (1 9 10 11 14 17 23 26 33 35 36 37 38 43 44 46),
    // the beginnings and ends of the registrations those name (41: r7's owner deallocated),
    // and the changes at seqs 18 and 20 that FloatingWindow#2 missed.
    #expect(session.rows.map(\.seq) == [1, 9, 10, 11, 14, 17, 18, 20, 23, 26, 33, 35, 36, 37, 38, 41, 43, 44, 46])
    #expect(try marks(session).missed == ["seq 18 r1", "seq 20 r1"])
    let density = try #require(session.json["density"] as? [String: Any])
    #expect(density["bins"] as? Int == 400 && density["lastSeq"] as? Int == 46)
    // Every change and delivery not drawn as a row is counted on its channel.
    let counted = try #require(density["channels"] as? [[Any]]).reduce(0) { total, entry in
        total + (entry[1] as! [Int]).reduce(0, +) + (entry[2] as! [Int]).reduce(0, +)
    }
    let drawn = session.rows.count { ["changed", "delivered", "skipped"].contains($0.kind) }
    #expect(counted + drawn == 14 + 15 + 1)
    #expect(report.count("<li class=\"finding ") == 11)
    #expect(report.html.contains("<p class=\"note\">This session has 46 events, more than the report draws one by one (40): each channel&#39;s changes and deliveries are drawn as counts per 1/400 of the session, and only what the findings shown cite is drawn event by event (19 events, 8 registrations). For every event of a stretch, run obsreplay report with --from SEQ --to SEQ (up to 40 events) or --around SEQ.</p>"))
    #expect(report.html.contains("<div><dt>events</dt><dd>46 (summarised)</dd></div>"))
    // Below the limit nothing is summarised.
    let full = try ReportDocument(html: try HTMLReport.render(reader, detailLimit: 46))
    #expect(full.sessions.first?.json["density"] == nil && full.sessions.first?.rows.count == 46)
}

/// A summarised session draws the first `missedPerOwner` (100) changes an owner missed
/// after its registration was replaced, not every later one, and says how many it left out.
@Test func aSummarisedSessionDrawsTheFirstHundredMissedChangesOfAnOwner() throws {
    let path = try temporaryDirectory().appendingPathComponent("long-miss.sqlite").path
    let fixture = try JournalFixture(path: path)
    let session = try fixture.session(label: "long miss")
    let player = try session.object("Player")
    let slot = try session.channel(player, "onChange", singleSlot: true)
    let floating = try session.object("FloatingWindow")
    let video = try session.object("VideoScreen")
    try session.register(slot, owner: floating, at: "FloatingWindow.swift:31")  // seq 1
    // Each post is a change and its one delivery: FloatingWindow#2 replaced at seq 6, alive,
    // misses the 103 changes at seqs 7, 9, ..., 211.
    var changes: [Int64] = []
    for index in 0..<105 {
        if index == 2 { try session.register(slot, owner: video, at: "VideoScreen.swift:20") }
        changes.append(try session.post(slot, new: "\(index)", at: "Player.swift:40"))
    }
    try fixture.finish()
    let missedChanges = Array(changes.dropFirst(2))
    #expect(missedChanges.first == 7 && missedChanges.last == 211)
    let html = try HTMLReport.render(try JournalReader(path: path), detailLimit: 50)
    let report = try ReportDocument(html: html)
    let drawn = try #require(report.sessions.first)
    #expect(try marks(drawn).missed == missedChanges.prefix(100).map { "seq \($0) r1" })
    #expect(report.html.contains("<p class=\"note\">Of the changes an owner missed on a channel after its registration there was replaced, the first 100 are drawn; 3 later misses are not (the findings count them all).</p>"))
    // Below the detail limit every change is a row, and every miss is drawn.
    let fullHTML = try HTMLReport.render(try JournalReader(path: path))
    let full = try #require(try ReportDocument(html: fullHTML).sessions.first)
    #expect(try marks(full).missed == missedChanges.map { "seq \($0) r1" })
    #expect(!fullHTML.contains("later misses are not"))
}
