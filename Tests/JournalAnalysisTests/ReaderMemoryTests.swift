import CSQLite
import Foundation
@testable import JournalAnalysis
import JournalFixtures
import JournalStore
import Testing

// Readers' memory follows what is live, not the session's history (issue 14): findings
// are spooled, catalog objects and scopes are read on demand into a bounded cache.
// Asserted on what they hold and hand back, not on memory.

/// Files named like SQLite's temporary files (`etilqs_…`) in the directories SQLite puts
/// them in: the temporary directory, and /var/tmp where TMPDIR is not set. A scratch
/// database's file is deleted as soon as SQLite has opened it, so there are none.
private func scratchFiles() throws -> [String] {
    var found: [String] = []
    for directory in Set([FileManager.default.temporaryDirectory.path, "/var/tmp"]) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        found += names.filter { $0.hasPrefix("etilqs_") }.map { directory + "/" + $0 }
    }
    return found
}

/// How many of SQLite's temporary files this process has open, already deleted (where the
/// system lists a process's open files: `nil` elsewhere).
private func deletedScratchFilesOpen() -> Int? {
    #if os(Linux)
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return descriptors.count { name in
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name) else { return false }
        return target.contains("/etilqs_") && target.hasSuffix(" (deleted)")
    }
    #else
    return nil
    #endif
}

@Test func spoolHandsFindingsBackBySessionSeqAndCodeThroughItsDatabaseIntact() throws {
    // A 1 KiB page cache: the spool's pages go to its file.
    let spool = FindingSpool(cacheKiB: 1, faults: nil)
    func finding(_ rule: Rule, session: Int64, seqs: [Int64], message: String) -> Finding {
        Finding(
            rule: rule, sessionID: session, message: message, evidence: ["line 1", "línea 2 ✓"], seqs: seqs,
            callSites: ["App/A.swift:1", "App/B.swift:2"], owners: ["Screen#3"], channel: message == "c" ? nil : "Player#1.rate",
            count: Int(seqs.count)
        )
    }
    spool.nextGroup()
    spool.append(finding(.slowCallback, session: 1, seqs: [9, 12], message: "a"))
    spool.append(finding(.lastCallbackWins, session: 1, seqs: [9], message: "b"))
    spool.append(finding(.lastCallbackWins, session: 1, seqs: [3, 40], message: "c"))
    spool.append(finding(.lastCallbackWins, session: 1, seqs: [9, 10], message: "d"))
    spool.nextGroup()
    spool.append(finding(.offMainDelivery, session: 2, seqs: [1], message: "e"))
    #expect(spool.count == 5)
    #expect(try scratchFiles().isEmpty)
    var out: [Finding] = []
    try spool.drain { out.append($0) }
    #expect(out.map(\.message) == ["c", "b", "d", "a", "e"])
    #expect(out[0] == finding(.lastCallbackWins, session: 1, seqs: [3, 40], message: "c"))
    #expect(out[4] == finding(.offMainDelivery, session: 2, seqs: [1], message: "e"))
    #expect(spool.count == 0)
}

@Test func diagnosisThroughASpoolWritingItsPagesOutEqualsTheDefaultOne() throws {
    let (reader, session) = try journal { s in
        let player = try s.object("Player")
        let slot = try s.channel(player, "delegate", singleSlot: true)
        for index in 0..<30 {
            try s.register(slot, owner: try s.object("Screen"), at: "Screen.swift:\(index + 1)")
            try s.post(slot, new: "\(index)", at: "Player.swift:40")
        }
    }
    defer { try? FileManager.default.removeItem(atPath: (reader.path as NSString).deletingLastPathComponent) }
    let expected = try Diagnoser.diagnose(reader, session: session)
    #expect(expected.count(where: { $0.rule == .lastCallbackWins }) == 29)
    let spool = FindingSpool(cacheKiB: 1, faults: nil)
    try Diagnoser.diagnose(reader, session: session, into: spool)
    var spooled: [Finding] = []
    try spool.drain { spooled.append($0) }
    #expect(spooled == expected)
}

/// A finding the spool could not write is not silently missing from the output: the drain
/// fails, saying why.
@Test func spoolThatCannotWriteAFindingFailsItsDrain() throws {
    let spool = FindingSpool(
        cacheKiB: 1, faults: SQLiteFaultPlan(failing: 2, at: .step, sqlContains: "INSERT", with: SQLITE_FULL)
    )
    spool.nextGroup()
    for index in 0..<3 { spool.append(Finding(rule: .slowCallback, sessionID: 1, message: "\(index)", seqs: [Int64(index)])) }
    #expect(spool.count == 3)
    var out: [Finding] = []
    #expect(throws: AnalysisError.output(path: "temporary database", detail: "SQLITE_FULL: database or disk is full")) {
        try spool.drain { out.append($0) }
    }
    #expect(out.isEmpty)
}

@Test func catalogObjectsAreReadOnDemandAndTheCacheStaysBounded() throws {
    let (reader, session) = try journal { s in
        for _ in 0..<50 {
            let owner = try s.object("Label")
            try s.deallocate(owner, autoRemove: false)
        }
        _ = try s.object("Player")
    }
    defer { try? FileManager.default.removeItem(atPath: (reader.path as NSString).deletingLastPathComponent) }
    let catalog = try reader.catalog(session: session.id)
    let small = CatalogTable<JournalCatalog.Object>(capacity: 8) { id throws(AnalysisError) in catalog.objects[id] }
    for round in 0..<3 {
        for id in Int64(1)...51 {
            let object = small[id]
            #expect(object?.type == (id == 51 ? "Player" : "Label"), "round \(round), id \(id)")
            #expect((object?.deallocSeq != nil) == (id != 51))
        }
        #expect(small.heldEntries <= 16)
    }
    #expect(small[999] == nil)
    #expect(catalog.objectName(999) == "?#999")
    #expect(catalog.objectName(51) == "Player#51")
}

@Test func catalogChannelsAreReadOnDemandAndTheCacheStaysBounded() throws {
    // A channel per round, as a session making a subject per screen visit has them.
    let (reader, session) = try journal { s in
        let player = try s.object("Player")
        for index in 0..<10_000 { _ = try s.channel(player, "key\(index)", singleSlot: index == 9_999) }
    }
    defer { try? FileManager.default.removeItem(atPath: (reader.path as NSString).deletingLastPathComponent) }
    let catalog = try reader.catalog(session: session.id)
    var misread: [Int64] = []
    for id in Int64(1)...10_000 where catalog.channels[id]?.key != "key\(id - 1)" { misread.append(id) }
    #expect(misread.isEmpty)
    // Two generations of 1,024: the older one full, the recent one the last 784 read.
    #expect(catalog.channels.heldEntries == 1_808)
    #expect(catalog.channels[10_001] == nil)
    #expect(catalog.channelName(2) == "Player#1.key1")
    #expect(catalog.channelName(10_001) == "channel#10001")
    var ids: [Int64] = [], singleSlot: [Int64] = []
    try reader.forEachChannel(session: session.id) { id, channel in
        ids.append(id)
        if channel.isSingleSlot { singleSlot.append(id) }
    }
    #expect(ids == Array(1...10_000))
    #expect(singleSlot == [10_000])
}

@Test func spoolWithManyFindingsHandsThemBackInExactlyTheOrderOfOneStableSort() throws {
    // 3,000 findings of 200-byte messages, a 1 KiB page cache: the table goes to its file,
    // and SQLite's sorter writes sorted runs and merges them; ties on session, seq and rule
    // keep the order the findings were added in.
    let rules: [Rule] = [.slowCallback, .lastCallbackWins, .offMainDelivery, .leakedRegistration]
    var added: [Finding] = []
    let spool = FindingSpool(cacheKiB: 1, faults: nil)
    var state: UInt64 = 42
    func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
    let padding = String(repeating: "x", count: 200)
    for session in Int64(1)...2 {
        spool.nextGroup()
        for index in 0..<1_500 {
            let finding = Finding(
                rule: rules[next(rules.count)], sessionID: session, message: "\(session)-\(index) \(padding)",
                seqs: [Int64(next(400)) - 20], count: index
            )
            added.append(finding)
            spool.append(finding)
        }
    }
    #expect(spool.count == 3_000)
    if let open = deletedScratchFilesOpen() { #expect(open >= 1) }
    #expect(try scratchFiles().isEmpty)
    let expected = added.enumerated().sorted { a, b in
        (a.element.sessionID, a.element.firstSeq, a.element.rule.code, a.offset)
            < (b.element.sessionID, b.element.firstSeq, b.element.rule.code, b.offset)
    }.map(\.element)
    var out: [Finding] = []
    try spool.drain { out.append($0) }
    #expect(out.count == 3_000)
    #expect(out == expected)
    #expect(spool.count == 0)
    #expect(try scratchFiles().isEmpty)
    // Drained, the spool starts afresh.
    spool.nextGroup()
    spool.append(added[0])
    var again: [Finding] = []
    try spool.drain { again.append($0) }
    #expect(again == [added[0]])
}

private struct Group: Equatable {
    var firstSeq: Int64
    var count: Int
    var channel: Int64?
}

@Test func scratchTableAnswersLikeADictionaryWithMostEntriesWrittenOutAndDrainsInOrder() throws {
    // Two generations of 4 in memory, a 1 KiB page cache: nearly everything goes through
    // the database and its file, and entries come back from it, are changed, removed and
    // written out again. Any entry lost or damaged on the way differs from the model.
    let table = ScratchTable<Group>(capacity: 4, orderedBy: \.firstSeq, cacheKiB: 1)
    var model: [Int64: Group] = [:]
    var state: UInt64 = 7
    func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
    var mostWrittenOut = 0
    for step in 0..<2_000 {
        let key = Int64(next(120)) - 20
        switch next(10) {
        case 0:
            table[key] = nil
            model[key] = nil
        case 1...3:
            #expect(table[key] == model[key], "step \(step), key \(key)")
        default:
            if var group = table[key] {
                #expect(group == model[key], "step \(step), key \(key)")
                group.count += 1
                table[key] = group
                model[key] = group
            } else {
                #expect(model[key] == nil, "step \(step), key \(key)")
                let group = Group(firstSeq: Int64(next(50)), count: 1, channel: step.isMultiple(of: 3) ? nil : Int64(step))
                table[key] = group
                model[key] = group
            }
        }
        #expect(table.count == model.count)
        #expect(table.entriesInMemory <= 8)
        mostWrittenOut = max(mostWrittenOut, table.entriesWrittenOut)
    }
    #expect(model.count > 20)
    #expect(mostWrittenOut > 20)
    #expect(try scratchFiles().isEmpty)
    var drained: [(Int64, Group)] = []
    try table.drain { key, group in drained.append((key, group)) }
    let expected = model.sorted { ($0.value.firstSeq, $0.key) < ($1.value.firstSeq, $1.key) }
    #expect(drained.map(\.0) == expected.map(\.key))
    #expect(drained.map(\.1) == expected.map(\.value))
    #expect(table.count == 0)
    #expect(table.entriesWrittenOut == 0)
}

/// Where no temporary database can be made, or a write to it fails (a full temporary
/// directory), the table stops spilling and keeps every later entry in memory: it answers
/// and drains as before, those written out before included, and the diagnosis goes on.
@Test(arguments: [
    // The database cannot be opened: nothing is ever written out.
    (SQLiteFaultPlan(failing: 1, at: .open, with: SQLITE_CANTOPEN), 0),
    // The third write out fails from its first insert on: two written out, eight entries.
    (SQLiteFaultPlan(failing: 9, at: .step, sqlContains: "INSERT", with: SQLITE_FULL, persists: true), 8),
    // The third write out fails at its last insert: undone whole.
    (SQLiteFaultPlan(failing: 12, at: .step, sqlContains: "INSERT", with: SQLITE_FULL), 8),
])
func scratchTableThatCannotWriteKeepsTheRestInMemoryAndDrainsInOrder(faults: SQLiteFaultPlan, writtenOut: Int) throws {
    let table = ScratchTable<Int64>(capacity: 4, orderedBy: { $0 }, faults: faults)
    for key in Int64(0)..<100 { table[key] = 1_000 - key }
    #expect(table.count == 100)
    #expect(table.entriesWrittenOut == writtenOut)
    #expect(table.entriesInMemory == 100 - writtenOut)
    #expect(table[3] == 997)
    table[3] = nil
    table[200] = 5
    var drained: [(Int64, Int64)] = []
    try table.drain { key, value in drained.append((key, value)) }
    let keys: [Int64] = Array(Int64(0)..<100).filter { $0 != 3 } + [200]
    let expected: [(key: Int64, value: Int64)] = keys.map { (key: $0, value: $0 == 200 ? 5 : 1_000 - $0) }
        .sorted { ($0.value, $0.key) < ($1.value, $1.key) }
    #expect(drained.map { $0.0 } == expected.map { $0.key })
    #expect(drained.map { $0.1 } == expected.map { $0.value })
    #expect(faults.injectedCount >= 1)
}

/// An entry written out that cannot be read back would make the rule's verdict wrong: the
/// lookup answers nothing and the drain fails, saying why.
@Test func scratchTableThatCannotReadAnEntryBackFailsItsDrain() throws {
    let faults = SQLiteFaultPlan(failing: 1, at: .step, sqlContains: "DELETE", with: SQLITE_IOERR)
    let table = ScratchTable<Int64>(capacity: 4, orderedBy: { $0 }, faults: faults)
    for key in Int64(0)..<20 { table[key] = key }
    #expect(table.entriesWrittenOut > 0)
    #expect(table[0] == nil)
    #expect(throws: AnalysisError.output(path: "temporary database", detail: "SQLITE_IOERR: disk I/O error")) {
        try table.drain { _, _ in }
    }
}

@Test func offMainGroupsWrittenToDiskComeBackWhenCalledAgainAndAreReportedInOrder() throws {
    // 1,200 registrations called off main twice, on two threads: more groups than the
    // table keeps in memory (two generations of 512), so the second round reads most of
    // them back from its database.
    let count = 1_200
    let found = try findings(.offMainDelivery) { s in
        let uploader = try s.object("Uploader")
        let progress = try s.channel(uploader, "progress")
        var registrations: [Int64] = []
        for index in 0..<count {
            registrations.append(try s.register(progress, owner: try s.object("Bar\(index)"), at: "Bar.swift:\(index + 1)", expectsMain: true))
        }
        for (round, thread) in [(1, Int64(4)), (2, Int64(5))] {
            try s.inThread(thread) {
                try s.change(progress, old: "\(round - 1)", new: "\(round)")
                for registration in registrations { try s.deliver(registration) }
            }
        }
    }
    #expect(found.count == count)
    // Registrations at seqs 1...1,200 (objects are not events); the first change at 1,201.
    #expect(found.first?.message == "Bar0#2's callback on Uploader#1.progress (Bar.swift:1) expects the main thread but ran 2 times on thread 4, 5 (first at seq 1202).")
    #expect(found.last?.message == "Bar1199#1201's callback on Uploader#1.progress (Bar.swift:1200) expects the main thread but ran 2 times on thread 4, 5 (first at seq 2401).")
    #expect(found.map(\.firstSeq) == (1...Int64(count)).map { $0 })
    #expect(found.allSatisfy { $0.message.contains("ran 2 times on thread 4, 5") })
    #expect(try scratchFiles().isEmpty)
}
