import JournalAnalysis
import JournalFixtures
import TestSupport
import Testing

/// Registrations and objects are read by id through a statement kept open in id order
/// (`ForwardLookup`): whatever order ids are asked in — ahead, far ahead, behind, past
/// the end, ids the table skips, another session in between — each answer must be the
/// row a primary-key search gives.
@Test func registrationsAndObjectsReadByIdInAnyOrderAreTheRowsOfThatId() throws {
    let scratch = try ScratchDirectory()
    let path = scratch.path()
    let fixture = try JournalFixture(path: path)
    // Two sessions with their own ids 1…60: owner and channel tell the rows apart.
    var owners: [Int64: [Int64: Int64]] = [:]
    var types: [Int64: [Int64: String]] = [:]
    for round in 0..<2 {
        let s = try fixture.session(label: "s\(round)")
        let subject = try s.object("Subject\(round)")
        let channel = try s.channel(subject, "value")
        types[s.id, default: [:]][subject] = "Subject\(round)"
        for index in 0..<59 {
            let type = "Owner\(round)_\(index)"
            let owner = try s.object(type)
            types[s.id, default: [:]][owner] = type
            let registration = try s.register(channel, owner: owner, at: "Screen.swift:\(index + 1)")
            owners[s.id, default: [:]][registration] = owner
        }
    }
    try fixture.finish()
    // Gaps: every third registration and every fifth object of both sessions is gone.
    try JournalFixture.edit(path, "DELETE FROM registrations WHERE id % 3 = 0; DELETE FROM objects WHERE id % 5 = 0")
    for (session, ids) in owners { for id in ids.keys where id % 3 == 0 { owners[session]?[id] = nil } }
    for (session, ids) in types { for id in ids.keys where id % 5 == 0 { types[session]?[id] = nil } }

    let reader = try JournalReader(path: path)
    let sessions = owners.keys.sorted()
    #expect(sessions.count == 2)
    // Ascending with gaps, repeats, steps back, jumps past the end and back, ids no
    // table holds, then a random walk across both sessions.
    var asks: [(session: Int64, id: Int64)] = []
    let fixed: [Int64] = [1, 1, 2, 3, 4, 5, 7, 6, 8, 40, 41, 39, 42, 59, 60, 59, 61, 1_000, 12, 13, 0, -4, .max, .min, 14, 15]
    asks += fixed.map { (sessions[0], $0) }
    asks += fixed.map { (sessions[1], $0) }
    var random = SplitMix64(state: 7)
    for _ in 0..<2_000 {
        asks.append((sessions[random.below(2)], Int64(random.below(66)) - 2))
    }

    for (session, id) in asks {
        let row = try reader.registration(session: session, id: id)
        #expect(row?.id == owners[session]?[id].map { _ in id }, "registration \(id) of session \(session)")
        #expect(row?.ownerID == owners[session]?[id], "registration \(id) of session \(session)")
    }
    // Objects go through the catalog's cache: a fresh catalog per round asks the table.
    for round in 0..<4 {
        var catalogs: [Int64: JournalCatalog] = [:]
        for session in sessions { catalogs[session] = try reader.catalog(session: session) }
        for (session, id) in asks.dropFirst(round * 500).prefix(500) {
            #expect(catalogs[session]?.objects[id]?.type == types[session]?[id], "object \(id) of session \(session)")
        }
        for catalog in catalogs.values { #expect(catalog.failure == nil) }
    }
}
