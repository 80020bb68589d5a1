import ObserverCore
import Testing

// Seed 004. What a diagnosis needs: on the single-slot channel, who replaced whom and
// where (last-callback-wins), who was told of each change, and how the closed screen's
// registration went.

@Test func musicPlayerBuggyOnlyTheLastAssignmentIsTold() throws {
    let run = try ScenarioRecording("music-player", .buggy)
    let channel = "Player#1.isPlayingChanged"
    #expect(run.shapes == [
        "registered Player#1.isPlayingChanged r1 MiniPlayerWindow#2 by attach(to:) [new]",
        "replaced Player#1.isPlayingChanged r2 NowPlayingScreen#3 by viewDidLoad(player:) [new] replacing r1 MiniPlayerWindow#2 by attach(to:)",
        "replaced Player#1.isPlayingChanged r3 SongListScreen#4 by viewDidLoad(player:) [new] replacing r2 NowPlayingScreen#3 by viewDidLoad(player:)",
        "changed Player#1.isPlayingChanged nil -> true live 1 at setPlaying(_:)",
        "delivered Player#1.isPlayingChanged r3 SongListScreen#4",
        "changed Player#1.isPlayingChanged nil -> false live 1 at setPlaying(_:)",
        "delivered Player#1.isPlayingChanged r3 SongListScreen#4",
        "changed Player#1.isPlayingChanged nil -> true live 1 at setPlaying(_:)",
        "delivered Player#1.isPlayingChanged r3 SongListScreen#4",
        "changed Player#1.isPlayingChanged nil -> false live 1 at setPlaying(_:)",
        "removed Player#1.isPlayingChanged r3 SongListScreen#4 ownerDeallocated",
    ])
    #expect(run.events.allSatisfy { $0.channel?.policy == .singleSlot })
    #expect(run.events(.registered, on: channel).count == 1)
    let replacements = run.events(.replaced, on: channel)
    #expect(replacements.map { "\($0.replaced!.owner) -> \($0.registration!.owner)" } == [
        "MiniPlayerWindow#2 -> NowPlayingScreen#3", "NowPlayingScreen#3 -> SongListScreen#4",
    ])
    // Each assignment comes from its own call site, so the journal can point at all three.
    let callSites = [replacements[0].replaced!.callSite] + replacements.map { $0.registration!.callSite }
    #expect(Set(callSites).count == 3)
    #expect(callSites.map(\.file) == Array(repeating: "DemoApps/MusicPlayerScenario.swift", count: 3))
    #expect(run.deliveriesPerChange(on: channel) == [["SongListScreen#4"], ["SongListScreen#4"], ["SongListScreen#4"], []])
    #expect(run.events(.removeUnregistered).isEmpty)
}

@Test func musicPlayerFixedEveryLiveScreenIsToldOfEveryChange() throws {
    let run = try ScenarioRecording("music-player", .fixed)
    let channel = "Player#1.isPlaying"
    let all = ["MiniPlayerWindow#2", "NowPlayingScreen#3", "SongListScreen#4"]
    #expect(run.shapes == [
        "registered Player#1.isPlaying r1 MiniPlayerWindow#2 by attach(to:) [new]",
        "registered Player#1.isPlaying r2 NowPlayingScreen#3 by viewDidLoad(player:) [new]",
        "registered Player#1.isPlaying r3 SongListScreen#4 by viewDidLoad(player:) [new]",
        "changed Player#1.isPlaying false -> true live 3 at play()",
        "delivered Player#1.isPlaying r1 MiniPlayerWindow#2",
        "delivered Player#1.isPlaying r2 NowPlayingScreen#3",
        "delivered Player#1.isPlaying r3 SongListScreen#4",
        "changed Player#1.isPlaying true -> false live 3 at pause()",
        "delivered Player#1.isPlaying r1 MiniPlayerWindow#2",
        "delivered Player#1.isPlaying r2 NowPlayingScreen#3",
        "delivered Player#1.isPlaying r3 SongListScreen#4",
        "changed Player#1.isPlaying false -> true live 3 at play()",
        "delivered Player#1.isPlaying r1 MiniPlayerWindow#2",
        "delivered Player#1.isPlaying r2 NowPlayingScreen#3",
        "delivered Player#1.isPlaying r3 SongListScreen#4",
        "removed Player#1.isPlaying r3 SongListScreen#4 ownerDeallocated",
        "changed Player#1.isPlaying true -> false live 2 at pause()",
        "delivered Player#1.isPlaying r1 MiniPlayerWindow#2",
        "delivered Player#1.isPlaying r2 NowPlayingScreen#3",
        "removed Player#1.isPlaying r2 NowPlayingScreen#3 ownerDeallocated",
        "removed Player#1.isPlaying r1 MiniPlayerWindow#2 ownerDeallocated",
    ])
    #expect(run.events.allSatisfy { $0.channel?.policy == .multicast })
    #expect(run.events(.registered, on: channel).count == 3)
    #expect(run.events(.replaced).isEmpty)
    #expect(run.deliveriesPerChange(on: channel) == [all, all, all, Array(all.prefix(2))])
    // Every change reached exactly the registrations live when it was posted.
    #expect(run.events(.changed, on: channel).map(\.liveCount) == [3, 3, 3, 2])
    // Closing the song list removed its registration at once, before the next change: its
    // token went in its deinit, so the removal is recorded as its deallocation.
    let closing = try #require(run.events.firstIndex { $0.kind == .removed })
    #expect(run.events[closing].registration?.owner.description == "SongListScreen#4")
    #expect(run.events[closing].removalReason == .ownerDeallocated)
    #expect(run.events[closing + 1].kind == .changed)
    #expect(run.events(.removeUnregistered).isEmpty)
}
