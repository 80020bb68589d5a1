@testable import JournalAnalysis
import JournalFixtures
import JournalStore
import Testing

// Issue 11: verdicts a CI gate can trust on code the project did not write. Each test
// here failed before the change it names.

// MARK: - Point 1: the seed's own bug, one owner assigning the slot from two places

/// The seed 004 demo: the player screen assigns the single callback in viewDidLoad (seq 1)
/// and again in a second place (seq 2); the first callback never runs again.
private func sameOwnerTwoSites(_ s: FixtureSession) throws {
    let player = try s.object("Player")
    let screen = try s.object("PlayerScreen")
    let slot = try s.channel(player, "isPlayingChanged", singleSlot: true)
    try s.register(slot, owner: screen, at: "PlayerScreen.swift:14", function: "viewDidLoad()")  // seq 1
    try s.register(slot, owner: screen, at: "PlayerScreen.swift:40", function: "showMiniBar()")  // seq 2
    try s.post(slot, new: "true", at: "Player.swift:9")  // seqs 3-4
    try s.post(slot, new: "false", at: "Player.swift:9")  // seqs 5-6
}

@Test func anOwnerReplacingItsOwnCallbackFromAnotherCallSiteIsLastCallbackWins() throws {
    let found = try findings(.lastCallbackWins, sameOwnerTwoSites)
    #expect(found.map(\.message) == [
        "PlayerScreen#2 assigned Player#1.isPlayingChanged from two call sites; its callback from PlayerScreen.swift:14 was replaced by its own from PlayerScreen.swift:40 at seq 2 and missed 2 changes.",
    ])
    let finding = try #require(found.first)
    #expect(finding.severity == .error)
    #expect(finding.callSites == ["App/PlayerScreen.swift:14", "App/PlayerScreen.swift:40"])
    #expect(finding.owners == ["PlayerScreen#2"])
    #expect(finding.count == 2)
    #expect(finding.evidence == [
        "seq 1: PlayerScreen#2 assigned Player#1.isPlayingChanged at PlayerScreen.swift:14",
        "seq 2: PlayerScreen#2 assigned it again at PlayerScreen.swift:40, another call site, replacing its own callback from PlayerScreen.swift:14",
        "PlayerScreen#2 missed the changes at seqs 3, 5",
        "PlayerScreen#2 was not seen deallocated before the session ended",
    ])
}

@Test func whatIfMulticastCountsRegistrationsNotOwners() throws {
    let (reader, session) = try journal(sameOwnerTwoSites)
    let state = try ReplayEngine.replay(reader, session: session, at: 6, whatIfMulticast: true)
    let whatIf = try #require(state.whatIf)
    let both = ["PlayerScreen#2 (PlayerScreen.swift:14)", "PlayerScreen#2 (PlayerScreen.swift:40)"]
    #expect(whatIf == [
        ReplayState.WhatIfChange(seq: 3, channel: "Player#1.isPlayingChanged", received: [both[1]], wouldReceive: both),
        ReplayState.WhatIfChange(seq: 5, channel: "Player#1.isPlayingChanged", received: [both[1]], wouldReceive: both),
    ])
    #expect(whatIf.map(\.missed) == [[both[0]], [both[0]]])
}

@Test func reRunningTheSameSetupIsSilentAndMissesNothingUnderWhatIf() throws {
    let build = { (s: FixtureSession) throws in
        let player = try s.object("Player")
        let screen = try s.object("PlayerScreen")
        let slot = try s.channel(player, "isPlayingChanged", singleSlot: true)
        try s.register(slot, owner: screen, at: "PlayerScreen.swift:14")  // seq 1
        try s.post(slot, new: "true")  // seqs 2-3
        try s.register(slot, owner: screen, at: "PlayerScreen.swift:14")  // seq 4: setup runs again
        try s.post(slot, new: "false")  // seqs 5-6
    }
    #expect(try findings(.lastCallbackWins, build).isEmpty)
    let (reader, session) = try journal(build)
    let whatIf = try #require(try ReplayEngine.replay(reader, session: session, at: 6, whatIfMulticast: true).whatIf)
    #expect(whatIf.map(\.missed) == [[], []])
}

// MARK: - Point 6: delegate hand-over between screens

@Test func aHandOverAfterTheScopeEndedIsNotLastCallbackWins() throws {
    let found = try findings(.lastCallbackWins) { s in
        let player = try s.object("Player")
        let list = try s.object("ListScreen")
        let detail = try s.object("DetailScreen")
        let slot = try s.channel(player, "delegate", singleSlot: true)
        let listVisible = try s.beginScope("ListScreen visible")  // seq 1
        try s.register(slot, owner: list, at: "ListScreen.swift:20", scope: listVisible)  // seq 2
        try s.post(slot, new: "a")  // seqs 3-4
        try s.endScope(listVisible)  // seq 5: viewWillDisappear
        let detailVisible = try s.beginScope("DetailScreen visible")  // seq 6
        try s.register(slot, owner: detail, at: "DetailScreen.swift:11", scope: detailVisible)  // seq 7: takes it
        try s.post(slot, new: "b")  // seqs 8-9: the list is not visible, it needs nothing
        try s.post(slot, new: "c")  // seqs 10-11
    }
    #expect(found.isEmpty)
}

@Test func aReplacedOwnerThatReTakesTheSlotBeforeTheNextChangeIsNotLastCallbackWins() throws {
    let found = try findings(.lastCallbackWins) { s in
        let player = try s.object("Player")
        let list = try s.object("ListScreen")
        let detail = try s.object("DetailScreen")
        let slot = try s.channel(player, "delegate", singleSlot: true)
        try s.register(slot, owner: list, at: "ListScreen.swift:20")  // seq 1: viewWillAppear
        try s.post(slot, new: "a")  // seqs 2-3
        try s.register(slot, owner: detail, at: "DetailScreen.swift:11")  // seq 4: pushed, takes it
        try s.register(slot, owner: list, at: "ListScreen.swift:20")  // seq 5: popped back, re-takes it
        try s.post(slot, new: "b")  // seqs 6-7
    }
    // The detail screen was replaced by the list while alive, but the list is the one
    // visible now; the detail screen is still alive at the end and would miss the next
    // change, so only a replacement that missed nothing *and* ended is a hand-over.
    #expect(found.map(\.owners) == [["DetailScreen#3", "ListScreen#2"]])
    #expect(found.first?.count == 1)
}

@Test func aHandOverWhereTheReplacedScreenGoesAwayIsSilent() throws {
    let found = try findings(.lastCallbackWins) { s in
        let player = try s.object("Player")
        let list = try s.object("ListScreen")
        let detail = try s.object("DetailScreen")
        let slot = try s.channel(player, "delegate", singleSlot: true)
        try s.register(slot, owner: list, at: "ListScreen.swift:20")  // seq 1
        try s.post(slot, new: "a")  // seqs 2-3
        try s.register(slot, owner: detail, at: "DetailScreen.swift:11")  // seq 4: pushed
        try s.register(slot, owner: list, at: "ListScreen.swift:20")  // seq 5: popped back
        try s.deallocate(detail, autoRemove: false)  // the detail screen is gone
        try s.post(slot, new: "b")  // seqs 6-7
    }
    #expect(found.isEmpty)
}

@Test func aReplacementInsideALiveScopeIsStillLastCallbackWins() throws {
    let found = try findings(.lastCallbackWins) { s in
        let player = try s.object("Player")
        let window = try s.object("MiniPlayerWindow")
        let list = try s.object("ListScreen")
        let slot = try s.channel(player, "isPlayingChanged", singleSlot: true)
        let always = try s.beginScope("app running")  // seq 1
        try s.register(slot, owner: window, at: "MiniPlayerWindow.swift:8", scope: always)  // seq 2
        try s.register(slot, owner: list, at: "ListScreen.swift:20")  // seq 3
        try s.post(slot, new: "true")  // seqs 4-5
    }
    #expect(found.map(\.count) == [1])
    #expect(found.first?.owners == ["MiniPlayerWindow#2", "ListScreen#3"])
}

// MARK: - Point 7: OJ013 subject-replaced

@Test func anOwnerLeftOnADeadSubjectWhenANewOneAppearedIsSubjectReplaced() throws {
    let found = try findings(.subjectReplaced) { s in
        let first = try s.object("Document")
        let editor = try s.object("EditorScreen")
        let title = try s.channel(first, "title")
        let registration = try s.register(title, owner: editor, at: "EditorScreen.swift:30")  // seq 1
        try s.post(title, old: "a", new: "b")  // seqs 2-3
        let second = try s.object("Document")
        let newTitle = try s.channel(second, "title")
        try s.change(newTitle, old: "x", new: "y")  // seq 4: the new document is first seen
        try s.deallocate(first, autoRemove: false)
        try s.remove(registration, reason: .subjectDeallocated)  // seq 5: swept, the editor alive
    }
    #expect(found.map(\.message) == [
        "EditorScreen#2 observed Document#1.title (EditorScreen.swift:30), whose subject Document#1 was deallocated while EditorScreen#2 lived on; Document#3, a new Document with key \"title\", appeared at seq 4 and EditorScreen#2 never registered on it.",
    ])
    let finding = try #require(found.first)
    #expect(finding.severity == .info)
    #expect(finding.seqs == [1, 4, 5])
    #expect(finding.owners == ["EditorScreen#2", "Document#1", "Document#3"])
    #expect(finding.callSites == ["App/EditorScreen.swift:30"])
    #expect(finding.evidence == [
        "seq 1: EditorScreen#2 registered on Document#1.title at EditorScreen.swift:30",
        "seq 4: Document#3 appeared (Document#3.title), of the same type Document",
        "seq 5: Document#1 was seen deallocated and EditorScreen#2's registration removed with it, EditorScreen#2 still alive",
        "EditorScreen#2 never registered on Document#3.title",
    ])
}

@Test func anOwnerThatFollowsTheNewSubjectIsNotSubjectReplaced() throws {
    let found = try findings(.subjectReplaced) { s in
        let first = try s.object("Document")
        let editor = try s.object("EditorScreen")
        let title = try s.channel(first, "title")
        let registration = try s.register(title, owner: editor, at: "EditorScreen.swift:30")  // seq 1
        let second = try s.object("Document")
        let newTitle = try s.channel(second, "title")
        try s.register(newTitle, owner: editor, at: "EditorScreen.swift:30")  // seq 2: follows it
        try s.deallocate(first, autoRemove: false)
        try s.remove(registration, reason: .subjectDeallocated)  // seq 3
    }
    #expect(found.isEmpty)
}

@Test func anOwnerThatWentWithItsSubjectIsNotSubjectReplaced() throws {
    let found = try findings(.subjectReplaced) { s in
        let first = try s.object("Document")
        let editor = try s.object("EditorScreen")
        let title = try s.channel(first, "title")
        try s.register(title, owner: editor, at: "EditorScreen.swift:30")  // seq 1
        try s.deallocate(editor)  // seq 2: ownerDeallocated, not subjectDeallocated
        let second = try s.object("Document")
        try s.change(try s.channel(second, "title"), old: "x", new: "y")  // seq 3
    }
    #expect(found.isEmpty)
}

// MARK: - Point 4: lazy removal must not leak into verdicts

/// A list screen deallocated without its slot being cleared; the change at seq 4 finds it
/// dead (its removal, seq 5, is where the writer records the deallocation).
private func deadBeforeTheChange(_ s: FixtureSession) throws {
    let player = try s.object("Player")
    let list = try s.object("SongList")
    let slot = try s.channel(player, "isPlayingChanged", singleSlot: true)
    try s.register(slot, owner: list, at: "List.swift:20")  // seq 1
    try s.post(slot, new: "true", at: "Player.swift:40")  // seqs 2-3
    try s.deallocate(list, autoRemove: false, seenAt: 5)
    try s.post(slot, new: "false", at: "Player.swift:40")  // seq 4, and seq 5: found dead
}

@Test func replayAtTheChangeSaysTheDeadOwnerIsGoneNotAlive() throws {
    let (reader, session) = try journal(deadBeforeTheChange)
    let state = try ReplayEngine.replay(reader, session: session, at: 4)
    // Live at seq 4 (the registry has not swept it yet), but not alive: the change's own
    // dispatch found its owner deallocated.
    #expect(state.channels.flatMap(\.registrations).map { "\($0.owner) \($0.ownerAlive)" } == ["SongList#2 false"])
    #expect(state.change?.notReceived.map(\.reason) == ["owner deallocated (seen at seq 5)"])
    #expect(state.change?.notReceived.map(\.ownerAlive) == [false])
    // One step earlier (the change before) it was alive and told.
    let before = try ReplayEngine.replay(reader, session: session, at: 3)
    #expect(before.channels.flatMap(\.registrations).map(\.ownerAlive) == [true])
}

@Test func aCancelAfterAutoRemovalIsNotRemoveUnregistered() throws {
    let found = try findings(.removeUnregistered) { s in
        let player = try s.object("Player")
        let screen = try s.object("Screen")
        let rate = try s.channel(player, "rate")
        let registration = try s.register(rate, owner: screen, at: "Screen.swift:12")  // seq 1
        try s.deallocate(screen, autoRemove: false)
        try s.post(rate, old: "1", new: "2")  // seq 2, seq 3: found dead and removed
        // Schema 2 records the token's cancel as the no-op event ...
        try s.event(
            .cancelAfterAutoRemoval, channel: rate, registration: registration, owner: screen, site: "Owner.swift:9",
            reason: "ownerDeallocated"
        )
        // ... schema 1 recorded it as removeUnregistered naming the registration.
        try s.removeUnregistered(at: "Owner.swift:9", channel: rate, registration: registration, owner: screen)
    }
    #expect(found.isEmpty)
}

@Test func cancellingAnExplicitlyRemovedRegistrationIsStillRemoveUnregistered() throws {
    let found = try findings(.removeUnregistered) { s in
        let player = try s.object("Player")
        let screen = try s.object("Screen")
        let rate = try s.channel(player, "rate")
        let registration = try s.register(rate, owner: screen, at: "Screen.swift:12")  // seq 1
        try s.remove(registration, reason: .tokenCancelled, at: "Screen.swift:20")  // seq 2
        try s.removeUnregistered(at: "Screen.swift:30", channel: rate, registration: registration, owner: screen)  // seq 3
    }
    #expect(found.map(\.seqs) == [[1, 2, 3]])
}

// MARK: - Issue 26 point 3: "blocked" does not depend on the machine's load

/// A delivery on the main thread with the given times (nanoseconds).
private func mainDelivery(wall: Int64, cpu: Int64, waits: Int64, runQueue: Int64?) -> EventRow {
    var row = StoredEvent(
        sessionID: 1, seq: 3, timeNs: 0, kind: EventKind.delivered.code, thread: 1,
        flags: EventFlags.encode(isMain: true, isPrior: false, isMainQueue: true, depth: 0)
    )
    row.channelID = 1
    row.registrationID = 1
    row.durationNs = wall
    row.cpuNs = cpu
    var details = StoredEventDetails(sessionID: 1, seq: 3)
    details.waits = waits
    details.runQueueNs = runQueue
    return EventRow(row, details: details)
}

@Test func aShortRequestedSleepWokenLateOnALoadedMachineDidNotBlock() {
    let budget: Int64 = 16_000_000
    // The case: a 2 ms sleep on main seen as 19.5 ms of wall time, 0.0 ms of CPU;
    // 17.4 ms of it runnable and waiting for a CPU after the sleep ended.
    let overshoot = mainDelivery(wall: 19_500_000, cpu: 20_000, waits: 1, runQueue: 17_400_000)
    #expect(SlowCallbackChecker.slowness(of: overshoot, budget: budget) == nil)
    // Preempted while computing 3 ms: 25 ms of wall time, 22 ms of it waiting for a CPU.
    let preempted = mainDelivery(wall: 25_000_000, cpu: 3_000_000, waits: 0, runQueue: 22_000_000)
    #expect(SlowCallbackChecker.slowness(of: preempted, budget: budget) == nil)
}

@Test func aCallbackThatSleptOrComputedPastTheBudgetBlockedWhateverTheLoad() {
    let budget: Int64 = 16_000_000
    // Slept 20 ms on a quiet machine: blocked 20 ms.
    let slept = mainDelivery(wall: 20_100_000, cpu: 30_000, waits: 1, runQueue: 50_000)
    #expect(SlowCallbackChecker.slowness(of: slept, budget: budget) == 20_050_000)
    // Slept 20 ms on a loaded machine, woken 15 ms late: still blocked 20 ms.
    let sleptUnderLoad = mainDelivery(wall: 35_000_000, cpu: 30_000, waits: 1, runQueue: 15_000_000)
    #expect(SlowCallbackChecker.slowness(of: sleptUnderLoad, budget: budget) == 20_000_000)
    // Computed 18 ms: blocked 18 ms whatever the run-queue wait said.
    let computed = mainDelivery(wall: 18_500_000, cpu: 18_000_000, waits: 0, runQueue: 18_500_000)
    #expect(SlowCallbackChecker.slowness(of: computed, budget: budget) == 18_000_000)
}

@Test func withoutARecordedRunQueueWaitTheVerdictIsTheCPUOrAVoluntaryWait() {
    let budget: Int64 = 16_000_000
    #expect(SlowCallbackChecker.slowness(of: mainDelivery(wall: 19_500_000, cpu: 20_000, waits: 1, runQueue: nil), budget: budget) == 19_500_000)
    #expect(SlowCallbackChecker.slowness(of: mainDelivery(wall: 30_000_000, cpu: 20_000, waits: 0, runQueue: nil), budget: budget) == nil)
}
