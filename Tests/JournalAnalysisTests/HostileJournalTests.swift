import Foundation
import JournalAnalysis
import JournalFixtures
import ObservationJournal
import Testing
import TestSupport

/// Bugs the mutation harness found in the analysis of hostile journals (RELIABILITY.md).

/// Writes a journal with one session built by `build` in `scratch`; returns its path.
private func oneSessionJournal(
    in scratch: ScratchDirectory, _ build: (FixtureSession) throws -> Void = { _ in }
) throws -> String {
    let path = scratch.path()
    let fixture = try JournalFixture(path: path)
    try build(try fixture.session())
    try fixture.finish()
    return path
}

/// A change claiming a dispatch depth of 2³¹−1 made the feedback-loop rule fill its
/// dispatch stack with two billion placeholders: `diagnose` ran out of time and memory.
/// Only the depths that occur are kept now; the missing levels show as one `?`.
@Test func aHugeDispatchDepthIsOneLevelNotTwoBillion() throws {
    let path = try temporaryDirectory().appendingPathComponent("journal.sqlite").path
    let fixture = try JournalFixture(path: path)
    let s = try fixture.session()
    let player = try s.object("Player")
    let volume = try s.channel(player, "volume")
    try s.register(volume, owner: try s.object("Slider"), at: "Slider.swift:20")  // seq 1
    try s.post(volume, old: "1", new: "2") { _ in  // seq 2
        try s.change(volume, old: "2", new: "3", at: "Player.swift:72")  // seq 3, depth 1
    }
    try fixture.finish()
    try JournalFixture.edit(path, "UPDATE events SET flags = (2147483647 << 4) | (flags & 15) WHERE seq = 3")
    let reader = try JournalReader(path: path)
    let found = try Diagnoser.diagnose(reader, session: try reader.session(nil), options: DiagnosisOptions())
        .filter { $0.rule == .feedbackLoop }
    #expect(found.map(\.message) == [
        "Player#1.volume was changed again from inside its own delivery once, up to depth 2147483647 (chain Player#1.volume → ? → Player#1.volume; first at seq 3, posted at Player.swift:72).",
    ])
    #expect(found.first?.evidence.first == "seq 3: re-entrant change at depth 2147483647, posted at Player.swift:72")
}

/// Found by the mutation harness: `check` computed the next expected seq as `seq + 1`,
/// which traps on a journal holding seq 2⁶³−1; replaying a change there did the same.
@Test func theLargestSeqIsCheckedAndReplayedWithoutOverflow() throws {
    let path = try temporaryDirectory().appendingPathComponent("journal.sqlite").path
    let fixture = try JournalFixture(path: path)
    let s = try fixture.session()
    let player = try s.object("Player")
    let rate = try s.channel(player, "rate")
    try s.register(rate, owner: try s.object("Screen"), at: "Screen.swift:5")  // seq 1
    s.skipSeqs(Int64.max - 2)
    try s.change(rate, old: "1", new: "2")  // seq 2⁶³−1
    try fixture.finish()
    let reader = try JournalReader(path: path)
    let check = try JournalCheck.run(reader)
    #expect(check.seqGaps.map { "\($0.from)-\($0.to)" } == ["2-9223372036854775806"])
    let state = try ReplayEngine.replay(reader, session: try reader.session(nil), at: .max)
    #expect(state.change?.seq == .max)
}

/// Found by the mutation harness: a delivery claiming to have taken 2⁶³−1 ns made
/// `timeline`, `replay` and `diagnose` trap rounding it to tenths of a millisecond.
@Test func durationsAtTheEdgesOfInt64PrintWithoutOverflow() {
    #expect(milliseconds(.max) == "9223372036854.8 ms")
    #expect(milliseconds(.min) == "-9223372036854.8 ms")
    #expect(milliseconds(1_250_000) == "1.3 ms")
    #expect(milliseconds(1_249_999) == "1.2 ms")
    #expect(milliseconds(48_200_000) == "48.2 ms")
    #expect(milliseconds(0) == "0.0 ms")
    #expect(milliseconds(-300_000) == "-0.3 ms")
}

/// Every read connection is set up for a file from elsewhere: no views, no attaching
/// other files, functions in the schema not trusted, cell sizes checked, no mapping.
@Test func theReadConnectionIsHardened() throws {
    let scratch = try ScratchDirectory()
    let path = try oneSessionJournal(in: scratch)
    let database = try JournalFile.openForReading(path: path)
    #expect(try database.scalarInt("PRAGMA trusted_schema") == 0)
    #expect(try database.scalarInt("PRAGMA cell_size_check") == 1)
    #expect(try database.scalarInt("PRAGMA mmap_size") == 0)
    #expect(throws: SQLiteError.self) { try database.scalarInt("SELECT count(*) FROM event_log") }
    #expect(throws: SQLiteError.self) { try database.execute("ATTACH ':memory:' AS other") }
    #expect(throws: SQLiteError.self) { try database.scalarInt("SELECT load_extension('x')") }
}

/// A statement that runs past its budget is stopped with a message that says so, and the
/// journal is refused (exit 2 in the CLI) instead of hanging the command.
@Test func aQueryPastItsBudgetIsStoppedWithAClearError() throws {
    let scratch = try ScratchDirectory()
    let path = try oneSessionJournal(in: scratch)
    let database = try JournalFile.openForReading(path: path)
    database.setStepBudget(steps: 1_000_000)
    let endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
    do {
        _ = try database.scalarInt(endless)
        Issue.record("the endless query returned")
    } catch {
        #expect(JournalFile.classify(error, path: "J").description
            == "J: refused: a query was stopped after 1000000 steps, far more than a journal of this size needs (a damaged or hostile journal)")
    }
    // The budget is per statement: the next one starts from nothing.
    #expect(try database.scalarInt("SELECT count(*) FROM sessions") == 1)
}

/// A value longer than any the writer stores fails its query instead of being loaded:
/// a 900 MB value per row once took `timeline` to 6 GB.
@Test func aValueLongerThanSixteenMebibytesIsRefused() throws {
    let scratch = try ScratchDirectory()
    let path = try oneSessionJournal(in: scratch) { s in
        let rate = try s.channel(try s.object("Player"), "rate")
        try s.register(rate, owner: try s.object("Screen"), at: "Screen.swift:5")
        try s.post(rate, old: "1", new: "2")
    }
    try JournalFixture.edit(path, "UPDATE events SET new_value = printf('%.*c', \(16 << 20 + 1), 'x') WHERE kind = (SELECT code FROM event_kinds WHERE name = 'changed')")
    let reader = try JournalReader(path: path)
    #expect(try reader.session(nil).eventCount == 3)
    #expect(throws: AnalysisError.journal(.refused(
        path: path, reason: "refused: it holds a value longer than 16 MiB, which ObservationJournal never writes"
    ))) {
        try reader.forEachEvent(session: 1) { _ in true }
    }
}

/// The expected schema is what the migrations make, so a journal the fixture writes
/// from `Migrations/*.sql` is accepted as it is, and one more object is not.
@Test func theExpectedSchemaComesFromTheMigrations() throws {
    let expected = try JournalSchemaObjects.expected(version: JournalSchema.latestVersion)
    #expect(expected.objects["events"]?.type == "table")
    #expect(expected.objects["event_details"]?.type == "table")
    #expect(expected.objects["event_log"]?.type == "view")
    #expect(expected.objects["events_no_update"]?.type == "trigger")
    let scratch = try ScratchDirectory()
    let path = scratch.path()
    try JournalFixture(path: path).finish()
    #expect(try JournalSchemaObjects.difference(JournalFile.openForReading(path: path), version: JournalSchema.latestVersion, path: path) == nil)
    try SQLiteDatabase(path: path, mode: .readWrite).execute("CREATE INDEX extra ON events (kind)")
    #expect(throws: JournalError.refused(path: path, reason: "refused: it has an index 'extra' that journal schema \(JournalSchema.latestVersion) does not have (the schema was changed outside ObservationJournal)")) {
        try JournalFile.openForReading(path: path)
    }
}

/// Timestamps are read exactly and fast; what is not one is `nil`.
@Test func isoTimestampsAreReadExactly() {
    #expect(ISOTimestamp("1970-01-01T00:00:00Z") == ISOTimestamp(seconds: 0, nanoseconds: 0))
    #expect(ISOTimestamp("2026-11-29T14:46:22.123Z") == ISOTimestamp(seconds: 1_795_963_582, nanoseconds: 123_000_000))
    #expect(ISOTimestamp("2026-11-29T16:46:22.123+02:00") == ISOTimestamp(seconds: 1_795_963_582, nanoseconds: 123_000_000))
    #expect(ISOTimestamp("2024-02-29T00:00:00.000000001Z")?.nanoseconds == 1)
    #expect(ISOTimestamp("0001-01-01T00:00:00Z")?.seconds == -62_135_596_800)
    for bad in ["", "2025-02-29T00:00:00Z", "2025-01-01 00:00:00Z", "2025-01-01T00:00:00", "2025-01-01T00:00:00.Z", "yesterday"] {
        #expect(ISOTimestamp(bad) == nil, "\(bad)")
    }
    let start = ISOTimestamp("0001-01-01T00:00:00Z")!, end = ISOTimestamp("9999-12-31T23:59:59Z")!
    #expect(end.nanoseconds(since: start) == nil)
    #expect(ISOTimestamp("2025-01-01T10:00:02.5Z")!.nanoseconds(since: ISOTimestamp("2025-01-01T10:00:00Z")!) == 2_500_000_000)
}

/// Schema 5 stores a channel's policy and a registration's removal reason as codes checked
/// by a range; a file written with its checks off may hold codes nobody defined. They are
/// read as `column#code`, kept for output like an unknown name, and decide nothing.
@Test func policyAndRemovalCodesNobodyDefinedReadAsTheirNumbers() throws {
    let scratch = try ScratchDirectory()
    let path = try oneSessionJournal(in: scratch) { s in
        let player = try s.object("Player")
        let rate = try s.channel(player, "rate", singleSlot: true)
        let registration = try s.register(rate, owner: try s.object("Screen"), at: "Screen.swift:5")
        _ = try s.remove(registration, reason: .ownerDeallocated)
    }
    try JournalFixture.edit(path, """
        PRAGMA ignore_check_constraints = 1;
        UPDATE channels SET policy = 7; UPDATE registrations SET removal_reason = -1
        """)
    let reader = try JournalReader(path: path)
    let session = try reader.session(nil).id
    let channel = try #require(try reader.catalog(session: session).channels[1])
    #expect(channel.policy == "policy#7" && !channel.isSingleSlot)
    let registration = try #require(try reader.registration(session: session, id: 1))
    #expect(registration.removalReason == "removal_reason#-1" && registration.removal == nil)
}
