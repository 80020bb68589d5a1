@testable import JournalAnalysis
import Testing

@Test func replayShowsLiveRegistrationsAndWhoMissedTheChange() throws {
    let (reader, session) = try journal(threeAssigners)
    // Seq 20 is the change "false" after VideoScreen#3 took the slot at seq 17.
    let state = try ReplayEngine.replay(reader, session: session, at: 20)
    #expect(state.channels == [
        ReplayState.ChannelState(
            channelID: 1, channel: "Player#1.isPlayingChanged", policy: "singleSlot",
            registrations: [ReplayState.LiveEntry(
                registrationID: 2, owner: "VideoScreen#3", ownerAlive: true, callSite: "VideoScreen.swift:20",
                registeredSeq: 17, options: "new", scope: nil
            )]
        ),
    ])
    let change = try #require(state.change)
    #expect(change.seq == 20)
    #expect(change.new == "false")
    #expect(change.callSite == "Player.swift:40")
    #expect(change.received == [
        ReplayState.Receiver(registrationID: 2, owner: "VideoScreen#3", callSite: "VideoScreen.swift:20", seq: 21, durationNs: 100_000),
    ])
    #expect(change.notReceived == [
        ReplayState.NonReceiver(
            registrationID: 1, owner: "FloatingWindow#2", ownerAlive: true, callSite: "FloatingWindow.swift:31",
            reason: "replaced at seq 17 by VideoScreen#3 (VideoScreen.swift:20), owner still alive", seq: 17
        ),
    ])
    #expect(state.whatIf == nil)
}

@Test func whatIfMulticastShowsWhoWouldHaveBeenTold() throws {
    let (reader, session) = try journal(threeAssigners)
    let state = try ReplayEngine.replay(reader, session: session, at: 20, whatIfMulticast: true)
    let whatIf = try #require(state.whatIf)
    // 7 changes before the replacement reached FloatingWindow#2 alone; the two after it
    // (seqs 18 and 20) would also have reached FloatingWindow#2.
    #expect(whatIf.count == 9)
    #expect(whatIf[0] == ReplayState.WhatIfChange(seq: 2, channel: "Player#1.isPlayingChanged", received: ["FloatingWindow#2"], wouldReceive: ["FloatingWindow#2"]))
    #expect(whatIf[8] == ReplayState.WhatIfChange(
        seq: 20, channel: "Player#1.isPlayingChanged", received: ["VideoScreen#3"], wouldReceive: ["FloatingWindow#2", "VideoScreen#3"]
    ))
    #expect(whatIf[8].missed == ["FloatingWindow#2"])
    #expect(whatIf.filter { !$0.missed.isEmpty }.map(\.seq) == [18, 20])
}

/// Handed out one by one, the what-if entries are the ones the state lists (each once,
/// final), and the state keeps none.
@Test func whatIfEntriesCanBeHandedOutInsteadOfKept() throws {
    let (reader, session) = try journal(threeAssigners)
    let kept = try #require(try ReplayEngine.replay(reader, session: session, at: 20, whatIfMulticast: true).whatIf)
    var handed: [ReplayState.WhatIfChange] = []
    let state = try ReplayEngine.replay(reader, session: session, at: 20, whatIfMulticast: true) { handed.append($0) }
    #expect(state.whatIf == [])
    #expect(handed.count == 9)
    #expect(handed == kept)
    #expect(handed.filter { !$0.missed.isEmpty }.map(\.seq) == [18, 20])
}

@Test func replayExplainsSkipsAndDeallocatedOwners() throws {
    let (reader, session) = try journal { s in
        let player = try s.object("Player")
        let picky = try s.object("Picky")
        let gone = try s.object("Gone")
        let rate = try s.channel(player, "rate")
        let skipper = try s.register(rate, owner: picky, at: "Picky.swift:3", options: "new,onlyWhenChanged")  // seq 1
        try s.register(rate, owner: gone, at: "Gone.swift:8")  // seq 2
        try s.deallocate(gone, autoRemove: false)  // seen at seq 3
        try s.change(rate, old: "1", new: "1")  // seq 3
        try s.skip(skipper)  // seq 4
        try s.remove(2, reason: .ownerDeallocated)  // seq 5
    }
    let state = try ReplayEngine.replay(reader, session: session, at: 5)
    let change = try #require(state.change)
    #expect(change.received.isEmpty)
    #expect(change.notReceived.map(\.reason) == ["skipped (unchanged)", "owner deallocated (seen at seq 3)"])
    #expect(change.notReceived.map(\.seq) == [4, 3])
    #expect(state.channels.map { $0.registrations.map(\.owner) } == [["Picky#2"]])
}

@Test func replayBeyondTheLastEventIsAnError() throws {
    let (reader, session) = try journal(threeAssigners)
    #expect(throws: AnalysisError.sequenceBeyondEnd(path: reader.path, session: 1, seq: 43, last: 42)) {
        try ReplayEngine.replay(reader, session: session, at: 43)
    }
}

@Test func whatIfCountsOnlyRealDeliveriesAndDropsOwnersFoundDeadDuringTheDispatch() throws {
    // The last assigner is released before the change; the registry finds it dead while
    // dispatching (a removal right after the change), so nobody was told, and a multicast
    // channel would have told only the live, replaced first assigner. Asked at the
    // change's own seq, the replay still follows that dispatch to its end.
    var changeSeq: Int64 = 0
    let (reader, session) = try journal { s in
        let player = try s.object("Player")
        let mini = try s.object("MiniPlayer")
        let list = try s.object("SongList")
        let slot = try s.channel(player, "isPlayingChanged", singleSlot: true)
        try s.register(slot, owner: mini, at: "Mini.swift:10")
        let listRegistration = try s.register(slot, owner: list, at: "List.swift:20")
        try s.post(slot, new: "true", at: "Player.swift:40")
        // As the registry records it: the change, then the dead owner's removal.
        changeSeq = try s.change(slot, new: "false", at: "Player.swift:40")
        try s.remove(listRegistration, reason: .ownerDeallocated)
    }
    let state = try ReplayEngine.replay(reader, session: session, at: changeSeq, whatIfMulticast: true)
    let whatIf = try #require(state.whatIf)
    #expect(whatIf == [
        ReplayState.WhatIfChange(seq: 3, channel: "Player#1.isPlayingChanged", received: ["SongList#3"], wouldReceive: ["MiniPlayer#2", "SongList#3"]),
        ReplayState.WhatIfChange(seq: changeSeq, channel: "Player#1.isPlayingChanged", received: [], wouldReceive: ["MiniPlayer#2"]),
    ])
    #expect(whatIf[1].missed == ["MiniPlayer#2"])
}
