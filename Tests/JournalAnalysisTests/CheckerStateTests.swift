import Foundation
@testable import JournalAnalysis
import JournalFixtures
import Testing

// A checker's state follows what is still alive (owners, registrations), not the
// session's history: a long session must not make a diagnosis grow with every owner that
// came and went. Asserted on the counts the checkers expose, not on memory.

/// Streams the session through `checker` and `tracker` as the diagnoser does, and returns
/// them after the last event, with the context a `finish` needs.
private func stream<Checker: RuleChecker>(
    _ start: Checker, _ build: (FixtureSession) throws -> Void
) throws -> (Checker, DispatchTracker, DiagnosisContext) {
    var checker = start
    let (reader, session) = try journal(build)
    defer { try? FileManager.default.removeItem(atPath: (reader.path as NSString).deletingLastPathComponent) }
    let context = DiagnosisContext(
        reader: reader, session: session, catalog: try reader.catalog(session: session.id), options: DiagnosisOptions()
    )
    var tracker = DispatchTracker()
    try reader.forEachEvent(session: session.id) { event in
        _ = tracker.feed(event)
        try? checker.observe(event, context)
        try? context.live.apply(event) { id throws(AnalysisError) in try context.storedRegistration(id) }
        return true
    }
    return (checker, tracker, context)
}

/// `owners` owners each register on one channel, release their token (which does not count
/// as asking to stop) and, when `deallocated`, go away; then the channel changes once.
private func releasedTokens(_ owners: Int, deallocated: Bool) -> (FixtureSession) throws -> Void {
    { s in
        let subject = try s.object("Player")
        let channel = try s.channel(subject, "rate")
        for _ in 0..<owners {
            let owner = try s.object("Label")
            let registration = try s.register(channel, owner: owner, at: "Label.swift:10")
            try s.remove(registration, reason: .tokenReleased)
            if deallocated { try s.deallocate(owner, autoRemove: false) }
        }
        try s.post(channel, new: "1", at: "Player.swift:40")
    }
}

@Test func silentChangeForgetsOwnersOnceTheyAreDeallocated() throws {
    let (gone, _, _) = try stream(SilentChangeChecker(), releasedTokens(300, deallocated: true))
    #expect(gone.heldOwners == 0)
    // Owners still alive are still waiting to be told: they stay.
    let (alive, _, _) = try stream(SilentChangeChecker(), releasedTokens(300, deallocated: false))
    #expect(alive.heldOwners == 300)
}

@Test func silentChangeKnowsTheLatestUnaskedEndingWithoutPassingOverEveryOwner() {
    var owners = SilentChangeChecker.UnaskedOwners()
    owners.set(1, seq: 10)
    owners.set(2, seq: 20)
    owners.set(3, seq: 30)
    #expect(owners.latest() == 30)
    owners.remove(3)
    #expect(owners.latest() == 20)
    // Owner 1 ends again later: its earlier ending must not count as a separate one.
    owners.set(1, seq: 40)
    #expect(owners.count == 2)
    #expect(owners.latest() == 40)
    owners.remove(1)
    #expect(owners.latest() == 20)
    owners.remove(2)
    #expect(owners.latest() == nil)
    #expect(owners.isEmpty)

    // Thousands of owners leaving from the middle: the kept endings stay bounded by the
    // owners still there, and the latest is still right.
    var many = SilentChangeChecker.UnaskedOwners()
    for owner in Int64(1)...5_000 { many.set(owner, seq: owner * 2) }
    for owner in Int64(1)...5_000 where owner % 100 != 0 && owner != 4_999 { many.remove(owner) }
    #expect(many.count == 51)
    #expect(many.keptEndings <= 2 * 51 + 32)
    #expect(many.latest() == 10_000)
    many.remove(5_000)
    #expect(many.latest() == 9_998)
}

@Test func lastCallbackWinsDropsVictimsThatMissedNothingOnceTheyAreGone() throws {
    // 200 rounds of two screens taking the delegate in turn and going away before the
    // player changes: each replaced screen missed nothing, and is forgotten at the change.
    let (checker, tracker, _) = try stream(LastCallbackWinsChecker()) { s in
        let player = try s.object("Player")
        let slot = try s.channel(player, "delegate", singleSlot: true)
        var previous: Int64?
        for _ in 0..<200 {
            let first = try s.object("ListScreen"), second = try s.object("DetailScreen")
            try s.register(slot, owner: first, at: "ListScreen.swift:12")
            try s.register(slot, owner: second, at: "DetailScreen.swift:30")
            try s.deallocate(first, autoRemove: false)
            if let previous { try s.deallocate(previous, autoRemove: false) }
            previous = second
            try s.post(slot, new: "1", at: "Player.swift:40")
        }
    }
    #expect(checker.heldVictims == 0)
    // 400 registrations, each replaced or removed but the last: the tracker keeps the live one.
    #expect(tracker.trackedRegistrations == 1)
}

@Test func lastCallbackWinsKeepsVictimsThatStillMissChanges() throws {
    let (checker, _, _) = try stream(LastCallbackWinsChecker()) { s in
        let player = try s.object("Player")
        let slot = try s.channel(player, "delegate", singleSlot: true)
        for index in 0..<50 { try s.register(slot, owner: try s.object("Screen"), at: "Screen.swift:\(index + 1)") }
        try s.post(slot, new: "1", at: "Player.swift:40")
    }
    #expect(checker.heldVictims == 49)
}

@Test func deathQueueReturnsEntriesInSeqOrderWhenDue() {
    var queue = DeathQueue()
    for seq: Int64 in [9, 3, 7, 1, 5, 3] { queue.push(Death(seq: seq, channel: 1, owner: seq)) }
    #expect(queue.popFirst(atOrBefore: 0) == nil)
    var popped: [Int64] = []
    while let death = queue.popFirst(atOrBefore: 7) { popped.append(death.seq) }
    #expect(popped == [1, 3, 3, 5, 7])
    #expect(queue.count == 1)
}

@Test func theDispatchTrackerForgetsChangesOfChannelsThatAreNeverPostedAgain() throws {
    // The soak's rounds: each makes a subject with its own channel, posts on it from one
    // of four threads, and never posts there again. A change completes once every
    // registration live at it has answered, so none stays open, on any thread.
    let (_, observed, _) = try stream(SilentChangeChecker()) { s in
        for round in 0..<300 {
            let channel = try s.channel(try s.object("Model"), "value")
            let registration = try s.register(channel, owner: try s.object("Screen"), at: "Screen.swift:12")
            try s.inThread(Int64(2 + round % 4)) {
                for step in 0..<3 { try s.post(channel, old: String(step), new: String(step + 1), at: "Model.swift:40") }
            }
            try s.remove(registration, reason: .tokenCancelled)
        }
    }
    #expect(observed.openChanges == 0)
    // Emptied entries are kept for reuse only up to a fixed allowance, not one per channel.
    #expect(observed.heldKeys <= DispatchTracker.spareKeys)
    // Changes nobody was registered for complete at the next event.
    let (_, unobserved, _) = try stream(SilentChangeChecker()) { s in
        for round in 0..<300 {
            let channel = try s.channel(try s.object("Model"), "value")
            try s.inThread(Int64(2 + round % 4)) { try s.change(channel, old: "0", new: "1", at: "Model.swift:40") }
        }
        _ = try s.beginScope("after")
    }
    #expect(unobserved.openChanges == 0)
    // A registration whose owner is found dead during the dispatch answers with its
    // removal: the change completes then, not when its thread posts on the channel again
    // (for a channel never posted again, never).
    let (_, unanswered, _) = try stream(SilentChangeChecker()) { s in
        let channel = try s.channel(try s.object("Model"), "value")
        try s.register(channel, owner: try s.object("Screen"), at: "Screen.swift:12")
        let gone = try s.object("Label")
        try s.register(channel, owner: gone, at: "Label.swift:4")
        try s.deallocate(gone, autoRemove: false)
        try s.inThread(3) { try s.post(channel, old: "0", new: "1", at: "Model.swift:40") }
    }
    #expect(unanswered.openChanges == 0)
}

@Test func removeUnregisteredKeepsAFewGroupsInMemoryAndWritesTheRestOut() throws {
    // 40 registrations each cancelled twice (the soak's rounds): one group each, of which
    // the checker keeps at most twice its capacity in memory.
    var (checker, _, context) = try stream(RemoveUnregisteredChecker(capacity: 4)) { s in
        let player = try s.object("Player")
        let rate = try s.channel(player, "rate")
        for _ in 0..<40 {
            let owner = try s.object("Cell")
            let registration = try s.register(rate, owner: owner, at: "Cell.swift:8")
            try s.remove(registration, reason: .tokenCancelled)
            try s.removeUnregistered(at: "Cell.swift:40", channel: rate, registration: registration, owner: owner)
            try s.removeUnregistered(at: "Cell.swift:40", channel: rate, registration: registration, owner: owner)
        }
    }
    #expect(checker.heldGroups == 40)
    #expect(checker.groupsInMemory <= 8)
    // Every group comes back, written out or not: round i's cell is Cell#(i+2) (the
    // player is object 1); it registered at seq 4i+1, was removed at 4i+2, and removal was
    // asked for again at 4i+3 and 4i+4.
    var found: [(owners: [String], seqs: [Int64], count: Int)] = []
    try checker.finish(context) { found.append(($0.owners, $0.seqs, $0.count)) }
    found.sort { $0.seqs.lexicographicallyPrecedes($1.seqs) }
    let owners: [[String]] = (0..<40).map { (round: Int) -> [String] in ["Cell#\(round + 2)"] }
    let seqs: [[Int64]] = (0..<40).map { (round: Int64) -> [Int64] in [1, 2, 3, 4].map { 4 * round + $0 } }
    #expect(found.map(\.owners) == owners)
    #expect(found.map(\.seqs) == seqs)
    #expect(found.allSatisfy { $0.count == 2 })
}

@Test func neverPostedKeyKeepsTheNumbersOfTheChannelsInUseOnly() throws {
    // A subject and its channel per round, as the soak makes them: 5,000 channels.
    let (checker, _, _) = try stream(NeverPostedKeyChecker()) { s in
        let label = try s.object("Label")
        for _ in 0..<5_000 {
            try s.register(try s.channel(try s.object("Player"), "isSelected"), owner: label, at: "Label.swift:10")
        }
    }
    #expect(checker.keptChannelNumbers == 5_000 - NeverPostedKeyChecker.keptChannels)
}
