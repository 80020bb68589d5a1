import JournalAnalysis
import JournalFixtures
import Testing

// MARK: - OJ006 delivery-after-owner-gone

@Test func aDeliveryAfterTheOwnerWasSeenDeallocatedIsAnError() throws {
    let found = try findings(.deliveryAfterOwnerGone) { s in
        let player = try s.object("Player")
        let screen = try s.object("Screen")
        let rate = try s.channel(player, "rate")
        let registration = try s.register(rate, owner: screen, at: "Screen.swift:12")  // seq 1
        try s.deallocate(screen, autoRemove: false)  // seen at seq 2
        try s.change(rate, old: "1", new: "2")  // seq 2
        try s.deliver(registration)  // seq 3: a legacy observer still calls it
        try s.change(rate, old: "2", new: "3")  // seq 4
        try s.deliver(registration)  // seq 5
    }
    #expect(found.map(\.message) == [
        "Screen#2's callback on Player#1.rate (Screen.swift:12) ran 2 times after Screen#2 was deallocated at seq 2 (first at seq 3).",
    ])
    #expect(found.first?.severity == .error)
    #expect(found.first?.seqs == [2, 3])
    #expect(found.first?.count == 2)
}

@Test func deliveriesBeforeTheOwnerWentAreFine() throws {
    let found = try findings(.deliveryAfterOwnerGone) { s in
        let player = try s.object("Player")
        let screen = try s.object("Screen")
        let rate = try s.channel(player, "rate")
        try s.register(rate, owner: screen, at: "Screen.swift:12")
        try s.post(rate, old: "1", new: "2")
        try s.deallocate(screen)
        try s.post(rate, old: "2", new: "3")
    }
    #expect(found.isEmpty)
}

// MARK: - OJ007 redundant-change

@Test func unchangedValuesDeliveredAnywayAreRedundant() throws {
    let found = try findings(.redundantChange) { s in
        let player = try s.object("Player")
        let rate = try s.channel(player, "volume")
        try s.register(rate, owner: try s.object("Slider"), at: "Slider.swift:9")
        try s.register(rate, owner: try s.object("Label"), at: "Label.swift:4")
        try s.post(rate, old: "0.5", new: "0.5", at: "Player.swift:50")  // seqs 3-5
        try s.post(rate, old: "0.5", new: "0.7", at: "Player.swift:50")  // seqs 6-8
        try s.post(rate, old: "0.7", new: "0.7", at: "Player.swift:51")  // seqs 9-11
    }
    #expect(found.map(\.message) == [
        "Player#1.volume was set to the value it already had 2 times (\"0.5\" → \"0.5\") and these changes were delivered 4 times (first at seq 3, posted at Player.swift:50).",
    ])
    #expect(found.first?.severity == .info)
    #expect(found.first?.callSites == ["App/Player.swift:50", "App/Player.swift:51"])
}

/// Changes complete out of order: one whose dispatch found an owner dead stays open until
/// the end, while later ones complete. The finding's first change is still the earliest.
@Test func theFirstRedundantChangeIsTheEarliestNotTheFirstCompleted() throws {
    let found = try findings(.redundantChange) { s in
        let player = try s.object("Player")
        let volume = try s.channel(player, "volume")
        try s.register(volume, owner: try s.object("Slider"), at: "Slider.swift:9")  // seq 1
        let label = try s.object("Label")
        try s.register(volume, owner: label, at: "Label.swift:4")  // seq 2
        try s.deallocate(label, autoRemove: false)
        // seqs 3-5: delivered to the slider; the label is found dead (removed, no receipt).
        try s.inThread(3) { try s.post(volume, old: "0.5", new: "0.5", at: "Player.swift:10") }
        try s.post(volume, old: "0.5", new: "0.5", at: "Player.swift:20")  // seqs 6-7
        try s.post(volume, old: "0.5", new: "0.7", at: "Player.swift:30")  // seqs 8-9
    }
    #expect(found.map(\.message) == [
        "Player#1.volume was set to the value it already had 2 times (\"0.5\" → \"0.5\") and these changes were delivered 2 times (first at seq 3, posted at Player.swift:10).",
    ])
    #expect(found.first?.callSites == ["App/Player.swift:10", "App/Player.swift:20"])
}

@Test func unchangedValuesSkippedByOnlyWhenChangedAreNotRedundant() throws {
    let found = try findings(.redundantChange) { s in
        let player = try s.object("Player")
        let rate = try s.channel(player, "volume")
        let registration = try s.register(rate, owner: try s.object("Slider"), at: "Slider.swift:9", options: "new,onlyWhenChanged")
        try s.change(rate, old: "0.5", new: "0.5")
        try s.skip(registration, reason: .unchanged)
    }
    #expect(found.isEmpty)
}

// MARK: - OJ008 off-main-delivery

@Test func aMainThreadRegistrationCalledOnAnotherThreadIsAnError() throws {
    let found = try findings(.offMainDelivery) { s in
        let uploader = try s.object("Uploader")
        let bar = try s.object("ProgressBar")
        let progress = try s.channel(uploader, "progress")
        let registration = try s.register(progress, owner: bar, at: "ProgressBar.swift:22", expectsMain: true)  // seq 1
        try s.post(progress, old: "0", new: "0.1")  // seqs 2-3 on main
        try s.inThread(4) {
            try s.change(progress, old: "0.1", new: "0.2")  // seq 4
            try s.deliver(registration)  // seq 5
            try s.change(progress, old: "0.2", new: "0.3")  // seq 6
            try s.deliver(registration)  // seq 7
        }
    }
    #expect(found.map(\.message) == [
        "ProgressBar#2's callback on Uploader#1.progress (ProgressBar.swift:22) expects the main thread but ran 2 times on thread 4 (first at seq 5).",
    ])
    #expect(found.first?.evidence == [
        "seq 1: ProgressBar#2 registered at ProgressBar.swift:22 and declared it expects the main thread",
        "seq 5: delivered on thread 4, not the main thread",
    ])
}

// Issue 11 point 2: under dispatchMain() on Linux the main queue is drained on a thread
// that is not the main thread; a `queue: .main` delivery there is on main.
@Test func aMainQueueDeliveryOnAnotherThreadIsNotOffMain() throws {
    let found = try findings(.offMainDelivery) { s in
        let uploader = try s.object("Uploader")
        let bar = try s.object("ProgressBar")
        let progress = try s.channel(uploader, "progress")
        let registration = try s.register(progress, owner: bar, at: "ProgressBar.swift:22", queue: "com.apple.main-thread", expectsMain: true)
        try s.inThread(3) {
            try s.change(progress, old: "0.1", new: "0.2")  // posted from a worker
        }
        try s.inThread(2) {
            try s.deliver(registration, mainQueue: true)  // drained by dispatchMain()'s thread
        }
        try s.inThread(3) {
            try s.change(progress, old: "0.2", new: "0.3")
            try s.deliver(registration, mainQueue: false)  // really off main: still reported
        }
    }
    #expect(found.map(\.message) == [
        "ProgressBar#2's callback on Uploader#1.progress (ProgressBar.swift:22) expects the main thread but ran once on thread 3 (first at seq 5).",
    ])
}

@Test func offMainDeliveryToARegistrationThatDidNotAskForMainIsFine() throws {
    let found = try findings(.offMainDelivery) { s in
        let uploader = try s.object("Uploader")
        let progress = try s.channel(uploader, "progress")
        let registration = try s.register(progress, owner: try s.object("Logger"), at: "Logger.swift:3")
        try s.inThread(4) {
            try s.change(progress, old: "0.1", new: "0.2")
            try s.deliver(registration)
        }
    }
    #expect(found.isEmpty)
}

// MARK: - OJ009 feedback-loop

@Test func aChangeThatComesBackThroughAnotherChannelIsAFeedbackLoop() throws {
    let found = try findings(.feedbackLoop) { s in
        let player = try s.object("Player")
        let slider = try s.object("Slider")
        let volume = try s.channel(player, "volume")
        let value = try s.channel(slider, "value")
        try s.register(volume, owner: slider, at: "Slider.swift:20")  // seq 1
        try s.register(value, owner: player, at: "Player.swift:70")  // seq 2
        try s.post(volume, old: "0.5", new: "0.6") { _ in  // seq 3
            try s.post(value, old: "0.5", new: "0.6", at: "Slider.swift:22") { _ in  // seq 4
                try s.post(volume, old: "0.6", new: "0.6", at: "Player.swift:72")  // seq 5
            }
        }
    }
    #expect(found.map(\.message) == [
        "Player#1.volume was changed again from inside its own delivery once, up to depth 2 (chain Player#1.volume → Slider#2.value → Player#1.volume; first at seq 5, posted at Player.swift:72, through Slider#2's callback (Slider.swift:20) → Player#1's callback (Player.swift:70)).",
    ])
    // Both owners and every call site of the chain: the callbacks' and where they posted.
    #expect(found.first?.owners == ["Slider#2", "Player#1"])
    #expect(found.first?.callSites == ["App/Player.swift:72", "App/Slider.swift:20", "App/Slider.swift:22", "App/Player.swift:70"])
    #expect(found.first?.severity == .warning)
}

@Test func nestedChangesOfOtherChannelsAreNoLoop() throws {
    let found = try findings(.feedbackLoop) { s in
        let player = try s.object("Player")
        let label = try s.object("Label")
        let volume = try s.channel(player, "volume")
        let text = try s.channel(label, "text")
        try s.register(volume, owner: label, at: "Label.swift:20")
        try s.register(text, owner: player, at: "Player.swift:70")
        try s.post(volume, old: "0.5", new: "0.6") { _ in
            try s.post(text, old: "50%", new: "60%")
        }
        // The same channel again, but after the first dispatch returned: no loop.
        try s.post(volume, old: "0.6", new: "0.7")
    }
    #expect(found.isEmpty)
}

// MARK: - OJ010 slow-callback

@Test func deliveriesOverTheBudgetAreSlowAndTheBudgetIsConfigurable() throws {
    let build = { (s: JournalFixtures.FixtureSession) throws in
        let player = try s.object("Player")
        let rate = try s.channel(player, "rate")
        let registration = try s.register(rate, owner: try s.object("Chart"), at: "Chart.swift:8")  // seq 1
        try s.change(rate, old: "1", new: "2")  // seq 2
        try s.deliver(registration, duration: 20_000_000)  // seq 3
        try s.change(rate, old: "2", new: "3")  // seq 4
        try s.deliver(registration, duration: 48_240_000)  // seq 5
        try s.change(rate, old: "3", new: "4")  // seq 6
        try s.deliver(registration, duration: 16_000_000)  // seq 7: exactly the budget is fine
    }
    let found = try findings(.slowCallback, build)
    #expect(found.map(\.message) == [
        "Chart#2's callback on Player#1.rate (Chart.swift:8) blocked the main thread longer than 16.0 ms 2 times, up to 48.2 ms (first at seq 3).",
    ])
    #expect(found.first?.seqs == [3, 5])
    #expect(found.first?.severity == .warning)
    let relaxed = try findings(.slowCallback, options: DiagnosisOptions(slowCallbackBudgetNs: 50_000_000), build)
    #expect(relaxed.isEmpty)
}

// Issue 11 point 3: wall time alone flaps under load. On main a delivery counts when its
// own CPU (at least half the budget) or a voluntary wait explains the wall time.
@Test func aMainCallbackIsSlowOnlyWhenItsOwnCPUOrAWaitExplainsItsWallTime() throws {
    let found = try findings(.slowCallback) { s in
        let player = try s.object("Player")
        let rate = try s.channel(player, "rate")
        let chart = try s.register(rate, owner: try s.object("Chart"), at: "Chart.swift:8")  // seq 1
        try s.change(rate, old: "1", new: "2")  // seq 2
        // Preempted: 30 ms of wall time, 20 µs of CPU, no wait. Not the callback's doing.
        try s.deliver(chart, duration: 30_000_000, cpu: 20_000, mainQueue: false, waits: 0)  // seq 3
        try s.change(rate, old: "2", new: "3")  // seq 4
        // Slept on main: 40 ms of wall time, almost no CPU, but it gave up the CPU itself.
        try s.deliver(chart, duration: 40_000_000, cpu: 30_000, mainQueue: false, waits: 1)  // seq 5
        try s.change(rate, old: "3", new: "4")  // seq 6
        // Computed on main: 25 ms wall, 9 ms CPU (over half the budget).
        try s.deliver(chart, duration: 25_000_000, cpu: 9_000_000, mainQueue: false, waits: 0)  // seq 7
    }
    #expect(found.map(\.message) == [
        "Chart#2's callback on Player#1.rate (Chart.swift:8) blocked the main thread longer than 16.0 ms 2 times, up to 40.0 ms (first at seq 5).",
    ])
    #expect(found.first?.evidence == [
        "seq 5: first delivery on main over 16.0 ms",
        "seq 5: the slowest, 40.0 ms, 0.0 ms of it on the CPU",
    ])
    #expect(found.first?.severity == .warning)
}

// Background callbacks are judged on CPU time only, and reported as info: they drop no frame.
@Test func aBackgroundCallbackIsJudgedOnCPUTimeAtInfo() throws {
    let found = try findings(.slowCallback) { s in
        let player = try s.object("Player")
        let rate = try s.channel(player, "rate")
        let cache = try s.register(rate, owner: try s.object("Cache"), at: "Cache.swift:12")  // seq 1
        try s.inThread(3) {
            try s.change(rate, old: "1", new: "2")  // seq 2
            try s.deliver(cache, duration: 90_000_000, cpu: 50_000, mainQueue: false)  // seq 3: preempted
            try s.change(rate, old: "2", new: "3")  // seq 4
            try s.deliver(cache, duration: 35_000_000, cpu: 33_000_000, mainQueue: false)  // seq 5: real work
        }
    }
    #expect(found.map(\.message) == [
        "Cache#2's callback on Player#1.rate (Cache.swift:12) used more than 16.0 ms of CPU once off the main thread, up to 33.0 ms (first at seq 5).",
    ])
    #expect(found.first?.severity == .info)
}

// A delivery through the main queue on a thread that is not the main thread (dispatchMain()
// on Linux) is on main: judged as main, with its wait.
@Test func aMainQueueDeliveryOnAnotherThreadIsJudgedAsMain() throws {
    let found = try findings(.slowCallback) { s in
        let player = try s.object("Player")
        let rate = try s.channel(player, "rate")
        let label = try s.register(rate, owner: try s.object("Label"), at: "Label.swift:3", queue: "com.apple.main-thread", expectsMain: true)
        try s.inThread(2) {
            try s.change(rate, old: "1", new: "2")  // seq 2
            try s.deliver(label, duration: 30_000_000, cpu: 10_000, mainQueue: true, waits: 2)  // seq 3
        }
    }
    #expect(found.map(\.severity) == [.warning])
    #expect(found.first?.seqs == [3])
}

// MARK: - OJ011 unclean-session

@Test func anUncleanSessionShowsItsLastEvents() throws {
    let found = try findings(.uncleanSession, clean: false) { s in
        let player = try s.object("Player")
        let rate = try s.channel(player, "rate")
        try s.register(rate, owner: try s.object("Chart"), at: "Chart.swift:8")  // seq 1
        for value in 1...3 { try s.post(rate, old: "\(value)", new: "\(value + 1)") }  // seqs 2-7
    }
    #expect(found.map(\.message) == [
        "Session 1 (\"test\") did not end cleanly; its last recorded event is seq 7 (delivered Player#1.rate).",
    ])
    #expect(found.first?.severity == .warning)
    #expect(found.first?.evidence == [
        "seq 3: delivered Player#1.rate Chart#2",
        "seq 4: changed Player#1.rate",
        "seq 5: delivered Player#1.rate Chart#2",
        "seq 6: changed Player#1.rate",
        "seq 7: delivered Player#1.rate Chart#2",
    ])
}

@Test func aCleanSessionIsNotUnclean() throws {
    let found = try findings(.uncleanSession) { s in _ = try s.object("Player") }
    #expect(found.isEmpty)
}

// MARK: - OJ012 silent-change

@Test func changesAfterTheLastObserverWentAreSilent() throws {
    let found = try findings(.silentChange) { s in
        let player = try s.object("Player")
        let screen = try s.object("Screen")
        let rate = try s.channel(player, "rate")
        try s.change(rate, old: "0", new: "1")  // seq 1: nobody ever registered: not silent
        let registration = try s.register(rate, owner: screen, at: "Screen.swift:12")  // seq 2
        try s.post(rate, old: "1", new: "2")  // seqs 3-4
        try s.remove(registration, reason: .tokenReleased)  // seq 5
        try s.post(rate, old: "2", new: "3")  // seq 6
        try s.post(rate, old: "3", new: "4")  // seq 7
    }
    #expect(found.map(\.message) == [
        "Player#1.rate changed 2 times with nobody to tell, although 1 owner had registered on it and never asked to stop (first at seq 6).",
    ])
    #expect(found.first?.evidence == [
        "seq 6: first change that reached nobody",
        "seq 5: the last registration before it, Screen#2's (Screen.swift:12), ended without its owner asking (tokenReleased)",
    ])
    #expect(found.first?.seqs == [5, 6])
}

/// A silent change whose dispatch found an owner dead completes only at the end, after
/// later silent changes: the finding still starts at the earliest.
@Test func theFirstSilentChangeIsTheEarliestNotTheFirstCompleted() throws {
    let found = try findings(.silentChange) { s in
        let player = try s.object("Player")
        let screen = try s.object("Screen")
        let rate = try s.channel(player, "rate")
        let registration = try s.register(rate, owner: screen, at: "Screen.swift:12")  // seq 1
        try s.remove(registration, reason: .tokenReleased)  // seq 2
        let label = try s.object("Label")
        try s.register(rate, owner: label, at: "Label.swift:4")  // seq 3
        try s.deallocate(label, autoRemove: false)
        try s.inThread(3) { try s.post(rate, old: "1", new: "2") }  // seqs 4-5: the label found dead
        try s.post(rate, old: "2", new: "3")  // seq 6
        try s.post(rate, old: "3", new: "4")  // seq 7
    }
    #expect(found.map(\.message) == [
        "Player#1.rate changed 3 times with nobody to tell, although 1 owner had registered on it and never asked to stop (first at seq 4).",
    ])
    #expect(found.first?.evidence == [
        "seq 4: first change that reached nobody",
        "seq 2: the last registration before it, Screen#2's (Screen.swift:12), ended without its owner asking (tokenReleased)",
    ])
}

@Test func aChangeSkippedByItsObserverIsNotSilent() throws {
    let found = try findings(.silentChange) { s in
        let player = try s.object("Player")
        let rate = try s.channel(player, "rate")
        let registration = try s.register(rate, owner: try s.object("Screen"), at: "Screen.swift:12", options: "new,onlyWhenChanged")
        try s.change(rate, old: "1", new: "1")
        try s.skip(registration)
        try s.post(rate, old: "1", new: "2")
    }
    #expect(found.isEmpty)
}

@Test(arguments: ["explicit", "ownerRemovedAll", "tokenCancelled"])
func changesAfterTheOwnerRemovedItselfAreNotSilent(_ reason: String) throws {
    let found = try findings(.silentChange) { s in
        let toolbar = try s.object("ToolbarContainer")
        let hidden = try s.channel(toolbar, "hidden")
        let registration = try s.register(hidden, owner: try s.object("VideoPlayerScreen"), at: "Screen.swift:30")
        try s.post(hidden, old: "false", new: "true")
        try s.remove(registration, reason: .init(name: reason)!, at: "Screen.swift:41 in viewDidDisappear()")  // the screen disappears
        try s.post(hidden, old: "true", new: "false")  // the player goes on: nobody asked to hear it
    }
    #expect(found.isEmpty)
}

@Test func aChangeAfterTheSlotHolderWentIsSilentForTheOwnersItHadReplaced() throws {
    let found = try findings(.silentChange) { s in
        let player = try s.object("Player")
        let window = try s.object("MiniPlayerWindow")
        let list = try s.object("SongListScreen")
        let slot = try s.channel(player, "isPlayingChanged", singleSlot: true)
        try s.register(slot, owner: window, at: "MiniPlayerWindow.swift:12")  // seq 1
        try s.register(slot, owner: list, at: "SongListScreen.swift:20")  // seq 2: replaces the window's
        try s.post(slot, new: "true")  // seqs 3-4
        try s.deallocate(list)  // seq 5: the list is closed
        try s.change(slot, new: "false")  // seq 6: nobody holds the slot
    }
    // The list went away (not counted); the window, replaced while alive, was never asked.
    #expect(found.map(\.message) == [
        "Player#1.isPlayingChanged changed once with nobody to tell, although 1 owner had registered on it and never asked to stop (first at seq 6).",
    ])
    #expect(found.first?.evidence == [
        "seq 6: first change that reached nobody",
        "seq 2: the last registration before it, MiniPlayerWindow#2's (MiniPlayerWindow.swift:12), ended without its owner asking (replaced)",
    ])
}

// Issue 11 point 5: the documented happy path, an owner released with its token (the
// registry records the removal as the owner's deallocation), is not silent-change; nor is
// an owner whose token was dropped early but that was deallocated before the change.
@Test func ownersThatWentAwayAreNotSilentChange() throws {
    let found = try findings(.silentChange) { s in
        let player = try s.object("Player")
        let rate = try s.channel(player, "rate")
        let kept = try s.object("Screen")
        let dropped = try s.object("Chart")
        try s.register(rate, owner: kept, at: "Screen.swift:12")  // seq 1
        let early = try s.register(rate, owner: dropped, at: "Chart.swift:4")  // seq 2
        try s.post(rate, old: "1", new: "2")  // seqs 3-5
        try s.remove(early, reason: .tokenReleased)  // seq 6: dropped while the chart lived
        try s.deallocate(kept)  // seq 7: the screen goes, its token with it
        try s.deallocate(dropped, autoRemove: false)  // then the chart goes too
        try s.change(rate, old: "2", new: "3")  // seq 8: nobody left, nobody waiting
    }
    #expect(found.isEmpty)
}

@Test func anOwnerThatRegistersAgainIsNoLongerCountedAsSilenced() throws {
    let found = try findings(.silentChange) { s in
        let player = try s.object("Player")
        let screen = try s.object("Screen")
        let rate = try s.channel(player, "rate")
        let first = try s.register(rate, owner: screen, at: "Screen.swift:12")  // seq 1
        try s.remove(first, reason: .tokenReleased)  // seq 2: lost without asking
        let second = try s.register(rate, owner: screen, at: "Screen.swift:12")  // seq 3: back
        try s.remove(second, reason: .tokenCancelled)  // seq 4: and this time it asked to stop
        try s.change(rate, old: "1", new: "2")  // seq 5
    }
    #expect(found.isEmpty)
}
