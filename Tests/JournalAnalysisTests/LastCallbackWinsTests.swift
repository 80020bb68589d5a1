import JournalAnalysis
import Testing

@Test func lastCallbackWinsNamesTheReplacedOwnerAndTheChangesItMissed() throws {
    let found = try findings(.lastCallbackWins, threeAssigners)
    #expect(found.map(\.message) == [
        "3 owners assigned Player#1.isPlayingChanged; FloatingWindow#2 (FloatingWindow.swift:31) was replaced at seq 17 while alive and missed 12 changes.",
        "3 owners assigned Player#1.isPlayingChanged; VideoScreen#3 (VideoScreen.swift:20) was replaced at seq 42 while alive and missed 0 changes.",
    ])
    let first = try #require(found.first)
    #expect(first.severity == .error)
    #expect(first.seqs == [1, 17])
    #expect(first.callSites == ["App/FloatingWindow.swift:31", "App/VideoScreen.swift:20"])
    #expect(first.owners == ["FloatingWindow#2", "VideoScreen#3"])
    #expect(first.count == 12)
    #expect(first.evidence == [
        "seq 1: FloatingWindow#2 assigned Player#1.isPlayingChanged at FloatingWindow.swift:31",
        "seq 17: VideoScreen#3 assigned it at VideoScreen.swift:20, replacing FloatingWindow#2's callback while FloatingWindow#2 was alive",
        "FloatingWindow#2 missed the changes at seqs 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, …",
        "FloatingWindow#2 was not seen deallocated before the session ended",
    ])
}

@Test func replacementAfterTheFirstOwnerWasDeallocatedIsNotLastCallbackWins() throws {
    let found = try findings(.lastCallbackWins) { s in
        let player = try s.object("Player")
        let floating = try s.object("FloatingWindow")
        let video = try s.object("VideoScreen")
        let slot = try s.channel(player, "isPlayingChanged", singleSlot: true)
        try s.register(slot, owner: floating, at: "FloatingWindow.swift:31")
        try s.post(slot, new: "true")
        // The window goes away without clearing the slot; the next assignment finds it dead.
        try s.deallocate(floating, autoRemove: false)
        try s.register(slot, owner: video, at: "VideoScreen.swift:20")
        try s.post(slot, new: "false")
    }
    #expect(found.isEmpty)
}

@Test func anOwnerReassigningItsOwnCallbackIsNotLastCallbackWins() throws {
    let found = try findings(.lastCallbackWins) { s in
        let player = try s.object("Player")
        let video = try s.object("VideoScreen")
        let slot = try s.channel(player, "isPlayingChanged", singleSlot: true)
        try s.register(slot, owner: video, at: "VideoScreen.swift:20")
        try s.register(slot, owner: video, at: "VideoScreen.swift:20")
        try s.post(slot, new: "true")
    }
    #expect(found.isEmpty)
}

@Test func aReplacedOwnerStopsMissingChangesWhenItIsDeallocated() throws {
    let found = try findings(.lastCallbackWins) { s in
        let player = try s.object("Player")
        let floating = try s.object("FloatingWindow")
        let video = try s.object("VideoScreen")
        let slot = try s.channel(player, "isPlayingChanged", singleSlot: true)
        try s.register(slot, owner: floating, at: "FloatingWindow.swift:31")  // seq 1
        try s.register(slot, owner: video, at: "VideoScreen.swift:20")  // seq 2
        try s.post(slot, new: "true")  // seqs 3-4
        try s.deallocate(floating)  // seen at seq 5 (nothing to remove: it was replaced)
        try s.post(slot, new: "false")  // seqs 5-6
    }
    #expect(found.map(\.message) == [
        "2 owners assigned Player#1.isPlayingChanged; FloatingWindow#2 (FloatingWindow.swift:31) was replaced at seq 2 while alive and missed 1 change.",
    ])
    #expect(found.first?.evidence.last == "seq 5: FloatingWindow#2 was deallocated, after missing 1 change")
}
