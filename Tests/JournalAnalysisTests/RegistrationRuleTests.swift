import JournalAnalysis
import Testing

// MARK: - OJ002 duplicate-registration

@Test func duplicateRegistrationCountsTheChangesDeliveredTwice() throws {
    let found = try findings(.duplicateRegistration) { s in
        let player = try s.object("Player")
        let screen = try s.object("Screen")
        let rate = try s.channel(player, "rate")
        try s.register(rate, owner: screen, at: "Screen.swift:14")  // seq 1
        try s.post(rate, old: "1", new: "2")  // seqs 2-3
        try s.register(rate, owner: screen, at: "Screen.swift:14")  // seq 4: viewWillAppear again
        try s.post(rate, old: "2", new: "3")  // seqs 5-7
        try s.post(rate, old: "3", new: "4")  // seqs 8-10
    }
    #expect(found.count == 1)
    let finding = try #require(found.first)
    #expect(finding.severity == .warning)
    #expect(finding.message == "Screen#2 registered Player#1.rate twice from Screen.swift:14 (seq 1 and seq 4); its callback ran twice for 2 changes.")
    #expect(finding.seqs == [1, 4])
    #expect(finding.count == 2)
    #expect(finding.evidence == [
        "seq 1: registration 1 by Screen#2 at Screen.swift:14",
        "seq 4: registration 2 by Screen#2 at Screen.swift:14 while 1 was live",
        "2 changes reached both registrations",
    ])
}

/// Thousands of duplicates of one registration: each pair counts the changes of its channel
/// while both were live, and ends when one is removed. (Each registration scanned every live
/// registration of its channel and each change every pair: 50,000 of each in an 8 MB journal
/// from elsewhere kept `diagnose` busy for over two minutes.)
@Test func thousandsOfDuplicatesOfOneRegistrationAreCountedPerPair() throws {
    let found = try findings(.duplicateRegistration) { s in
        let player = try s.object("Player")
        let screen = try s.object("Screen")
        let rate = try s.channel(player, "rate")
        var first: Int64?
        for _ in 0..<1000 {
            let id = try s.register(rate, owner: screen, at: "Screen.swift:14")  // seqs 1-1000
            if first == nil { first = id }
        }
        try s.change(rate, new: "a")  // seq 1001
        for _ in 0..<1000 { try s.register(rate, owner: screen, at: "Screen.swift:14") }  // seqs 1002-2001
        try s.change(rate, new: "b")  // seq 2002
        try s.change(rate, new: "c")  // seq 2003
        try s.remove(try #require(first), reason: .tokenCancelled, at: "Screen.swift:30")  // seq 2004
        try s.change(rate, new: "d")  // seq 2005
        try s.register(rate, owner: screen, at: "Screen.swift:14")  // seq 2006: a duplicate of registration 2
        try s.change(rate, new: "e")  // seq 2007
    }
    #expect(found.count == 2000)
    var byCount: [Int: Int] = [:]
    for finding in found { byCount[finding.count, default: 0] += 1 }
    #expect(byCount == [3: 999, 2: 1000, 1: 1])
    #expect(found.first?.message == "Screen#2 registered Player#1.rate twice from Screen.swift:14 (seq 1 and seq 2); its callback ran twice for 3 changes.")
    #expect(found.last?.message == "Screen#2 registered Player#1.rate twice from Screen.swift:14 (seq 2 and seq 2006); its callback ran twice for 1 change.")
}

@Test func reRegisteringAfterRemovingIsNotADuplicate() throws {
    let found = try findings(.duplicateRegistration) { s in
        let player = try s.object("Player")
        let screen = try s.object("Screen")
        let other = try s.object("Other")
        let rate = try s.channel(player, "rate")
        let first = try s.register(rate, owner: screen, at: "Screen.swift:14")
        try s.remove(first, reason: .tokenCancelled, at: "Screen.swift:30")
        try s.register(rate, owner: screen, at: "Screen.swift:14")
        // Same site, another owner: two screens, not a duplicate.
        try s.register(rate, owner: other, at: "Screen.swift:14")
        try s.post(rate, old: "1", new: "2")
    }
    #expect(found.isEmpty)
}

// MARK: - OJ003 remove-unregistered

@Test func removingTwiceSaysWhereTheFirstRemovalHappened() throws {
    let found = try findings(.removeUnregistered) { s in
        let player = try s.object("Player")
        let view = try s.object("ProgressView")
        let progress = try s.channel(player, "progress")
        let registration = try s.register(progress, owner: view, at: "ProgressView.swift:10")  // seq 1
        try s.remove(registration, at: "ProgressView.swift:40 in removeFromSuperview()")  // seq 2
        try s.removeUnregistered(at: "ProgressView.swift:55 in deinit", channel: progress, owner: view)  // seq 3
    }
    #expect(found.map(\.message) == [
        "Removal at ProgressView.swift:55 in deinit (seq 3) matched no live registration: ProgressView#2's registration on Player#1.progress was already removed at seq 2 (explicit, at ProgressView.swift:40 in removeFromSuperview()).",
    ])
    #expect(found.first?.severity == .warning)
    #expect(found.first?.seqs == [1, 2, 3])
    #expect(found.first?.evidence == [
        "seq 3: removal requested at ProgressView.swift:55 in deinit for ProgressView#2",
        "seq 1: registered at ProgressView.swift:10",
        "seq 2: removed (explicit, at ProgressView.swift:40 in removeFromSuperview())",
    ])
}

@Test func removingAMisspelledKeySaysNoSuchChannelWasObserved() throws {
    let found = try findings(.removeUnregistered) { s in
        let view = try s.object("ProgressView")
        try s.removeUnregistered(at: "ProgressView.swift:55", channel: 0, owner: view, detail: "key=progres")
        try s.removeUnregistered(at: "ProgressView.swift:55", channel: 0, owner: view, detail: "key=progres")
    }
    #expect(found.map(\.message) == [
        "Removal at ProgressView.swift:55 in f() (2 times, first at seq 1) matched no live registration: no channel (key=progres) was ever observed for ProgressView#1: check the key's spelling.",
    ])
    #expect(found.first?.count == 2)
}

@Test func removingAllOfAnOwnersRegistrationsWhenNoneAreLeftSaysWhichWentLast() throws {
    let found = try findings(.removeUnregistered) { s in
        let player = try s.object("Player")
        let cell = try s.object("Cell")
        let stranger = try s.object("Stranger")
        let rate = try s.channel(player, "rate")
        try s.register(rate, owner: cell, at: "Cell.swift:8")  // seq 1
        try s.remove(1, reason: .tokenReleased)  // seq 2
        try s.removeUnregistered(at: "Cell.swift:40", owner: cell)  // seq 3: removeObservers(owner:)
        try s.removeUnregistered(at: "Stranger.swift:2", owner: stranger)  // seq 4
    }
    #expect(found.map(\.message) == [
        "Removal at Cell.swift:40 in f() (seq 3) matched no live registration: Cell#2's last registration (on Player#1.rate) was already removed at seq 2 (tokenReleased).",
        "Removal at Stranger.swift:2 in f() (seq 4) matched no live registration: Stranger#3 had never registered anything.",
    ])
}

/// The registration named is the one removed last before each removal, not the owner's
/// last one in the whole session (they are found from the table when the findings are made).
@Test func eachOwnerWideRemovalNamesTheRegistrationRemovedLastBeforeIt() throws {
    let found = try findings(.removeUnregistered) { s in
        let player = try s.object("Player")
        let cell = try s.object("Cell")
        let rate = try s.channel(player, "rate")
        let volume = try s.channel(player, "volume")
        try s.register(rate, owner: cell, at: "Cell.swift:8")  // seq 1: registration 1
        try s.remove(1, reason: .tokenReleased)  // seq 2
        try s.removeUnregistered(at: "Cell.swift:40", owner: cell)  // seq 3
        try s.register(volume, owner: cell, at: "Cell.swift:9")  // seq 4: registration 2
        try s.remove(2, reason: .explicit)  // seq 5
        try s.removeUnregistered(at: "Cell.swift:41", owner: cell)  // seq 6
    }
    #expect(found.map(\.message) == [
        "Removal at Cell.swift:40 in f() (seq 3) matched no live registration: Cell#2's last registration (on Player#1.rate) was already removed at seq 2 (tokenReleased).",
        "Removal at Cell.swift:41 in f() (seq 6) matched no live registration: Cell#2's last registration (on Player#1.volume) was already removed at seq 5 (explicit).",
    ])
}

@Test func selfRemovalInsideACallbackIsNotRemoveUnregistered() throws {
    let found = try findings(.removeUnregistered) { s in
        let player = try s.object("Player")
        let once = try s.object("OneShot")
        let other = try s.object("Screen")
        let ended = try s.channel(player, "didFinish")
        let registration = try s.register(ended, owner: once, at: "OneShot.swift:5")
        try s.register(ended, owner: other, at: "Screen.swift:9")
        try s.post(ended, new: "true") { current in
            if current == registration { try s.remove(registration, at: "OneShot.swift:7") }
        }
        try s.post(ended, new: "true")
    }
    #expect(found.isEmpty)
}

// MARK: - OJ004 leaked-registration

@Test func aHookThatOutlivesItsScopeIsAWarningWithTheLateDeliveries() throws {
    let found = try findings(.leakedRegistration) { s in
        let player = try s.object("Player")
        let hook = try s.object("ScrubHook")
        let rate = try s.channel(player, "rate")
        let scope = try s.beginScope("VideoScreen visible")  // seq 1
        try s.register(rate, owner: hook, at: "VideoScreen.swift:44", scope: scope)  // seq 2
        try s.post(rate, old: "1", new: "2")  // seqs 3-4
        try s.endScope(scope)  // seq 5
        try s.post(rate, old: "2", new: "1")  // seqs 6-7
        try s.post(rate, old: "1", new: "2")  // seqs 8-9
    }
    #expect(found.map(\.severity) == [.warning])
    #expect(found.first?.message == "ScrubHook#2's registration on Player#1.rate (VideoScreen.swift:44) outlived scope \"VideoScreen visible\" (ended at seq 5) and was delivered 2 times after it.")
    #expect(found.first?.seqs == [2, 5, 7])
    #expect(found.first?.evidence == [
        "seq 2: ScrubHook#2 registered Player#1.rate at VideoScreen.swift:44 for scope \"VideoScreen visible\"",
        "seq 5: the scope ended while the registration was live",
        "seq 7: first of 2 deliveries after the scope ended",
    ])
}

@Test func stillRegisteredAtTheEndWithALiveOwnerIsOnlyInfo() throws {
    let found = try findings(.leakedRegistration) { s in
        let player = try s.object("Player")
        let app = try s.object("AppDelegate")
        let rate = try s.channel(player, "rate")
        try s.register(rate, owner: app, at: "AppDelegate.swift:20")
    }
    #expect(found.map(\.severity) == [.info])
    #expect(found.first?.message == "AppDelegate#2's registration on Player#1.rate (AppDelegate.swift:20) was still registered when the session ended.")
}

@Test func anOwnerDeallocatedAndAutoRemovedIsNotLeaked() throws {
    let found = try findings(.leakedRegistration) { s in
        let player = try s.object("Player")
        let screen = try s.object("Screen")
        let rate = try s.channel(player, "rate")
        let scope = try s.beginScope("Screen visible")
        try s.register(rate, owner: screen, at: "Screen.swift:20", scope: scope)
        try s.deallocate(screen)
        try s.endScope(scope)
        try s.post(rate, old: "1", new: "2")
    }
    #expect(found.isEmpty)
}

@Test func removedRightAfterItsScopeEndedBeforeAnyDeliveryIsNotLeaked() throws {
    let found = try findings(.leakedRegistration) { s in
        let player = try s.object("Player")
        let screen = try s.object("Screen")
        let rate = try s.channel(player, "rate")
        let scope = try s.beginScope("Screen visible")
        let registration = try s.register(rate, owner: screen, at: "Screen.swift:20", scope: scope)
        try s.endScope(scope)
        try s.remove(registration, reason: .tokenReleased)
        try s.post(rate, old: "1", new: "2")
    }
    #expect(found.isEmpty)
}

@Test func anUncleanSessionReportsNoEndOfSessionLeaks() throws {
    let found = try findings(.leakedRegistration, clean: false) { s in
        let player = try s.object("Player")
        let app = try s.object("AppDelegate")
        try s.register(try s.channel(player, "rate"), owner: app, at: "AppDelegate.swift:20")
    }
    #expect(found.isEmpty)
}

// MARK: - OJ005 never-posted-key

@Test func aNeverPostedKeyOneEditFromAPostedOneIsATypo() throws {
    let found = try findings(.neverPostedKey) { s in
        let player = try s.object("Player")
        let screen = try s.object("Screen")
        let typo = try s.channel(player, "isPlayng")
        let real = try s.channel(player, "isPlaying")
        try s.register(typo, owner: screen, at: "Screen.swift:14")  // seq 1
        try s.change(real, old: "false", new: "true")  // seq 2
        try s.change(real, old: "true", new: "false")  // seq 3
    }
    #expect(found.map(\.severity) == [.warning])
    #expect(found.first?.message == "Screen#2 observed Player#1.isPlayng (Screen.swift:14), which was never posted; Player posted \"isPlaying\", 1 edit away: a typo?")
    #expect(found.first?.evidence == [
        "seq 1: Screen#2 registered Player#1.isPlayng at Screen.swift:14",
        "seq 2: Player#1.isPlaying was posted (2 times in all)",
    ])
    #expect(found.first?.seqs == [1, 2])
}

@Test func aNeverPostedKeyWithNoNearKeyIsInfoAndAPostedKeyIsSilent() throws {
    let found = try findings(.neverPostedKey) { s in
        let player = try s.object("Player")
        let screen = try s.object("Screen")
        let lowMemory = try s.channel(0, "didReceiveMemoryWarning")
        let rate = try s.channel(player, "rate")
        try s.register(lowMemory, owner: screen, at: "Screen.swift:3")
        try s.register(rate, owner: screen, at: "Screen.swift:4")
        try s.post(rate, old: "1", new: "2")
        // A key three edits away on the same type is no typo hint.
        try s.change(try s.channel(player, "rating"), old: "1", new: "2")
    }
    #expect(found.map(\.message) == [
        "Screen#2 observed *.didReceiveMemoryWarning (Screen.swift:3), which was never posted in this session.",
    ])
    #expect(found.map(\.severity) == [.info])
}

@Test func aTypoHintNeedsTheSameSubjectType() throws {
    let found = try findings(.neverPostedKey) { s in
        let player = try s.object("Player")
        let recorder = try s.object("Recorder")
        let screen = try s.object("Screen")
        try s.register(try s.channel(player, "isPlayng"), owner: screen, at: "Screen.swift:14")
        try s.change(try s.channel(recorder, "isPlaying"), old: "false", new: "true")
    }
    #expect(found.map(\.severity) == [.info])
}

// MARK: - OJ002 with sender filters

@Test func perSenderRegistrationsAreNotDuplicatesButTheSameSenderTwiceIs() throws {
    let found = try findings(.duplicateRegistration) { s in
        let screen = try s.object("DownloadsScreen")
        let first = try s.object("DownloadTask")
        let second = try s.object("DownloadTask")
        let finished = try s.channel(0, "DownloadDidFinish")
        let a = try s.register(finished, owner: screen, at: "Downloads.swift:20", sender: first)  // seq 1
        let b = try s.register(finished, owner: screen, at: "Downloads.swift:20", sender: second)  // seq 2
        let retry = try s.register(finished, owner: screen, at: "Downloads.swift:20", sender: first)  // seq 3
        // The first task finishes: both of its registrations run.
        try s.change(finished, new: "first")  // seq 4
        try s.deliver(a)
        try s.skip(b, reason: .senderMismatch)
        try s.deliver(retry)
        // The second task finishes: only its own registration runs.
        try s.change(finished, new: "second")  // seq 8
        try s.skip(a, reason: .senderMismatch)
        try s.deliver(b)
        try s.skip(retry, reason: .senderMismatch)
    }
    #expect(found.count == 1)
    let finding = try #require(found.first)
    #expect(finding.message == "DownloadsScreen#1 registered *.DownloadDidFinish twice from Downloads.swift:20 (seq 1 and seq 3); its callback ran twice for 1 change.")
    #expect(finding.evidence == [
        "seq 1: registration 1 by DownloadsScreen#1 at Downloads.swift:20",
        "seq 3: registration 3 by DownloadsScreen#1 at Downloads.swift:20 while 1 was live",
        "1 change reached both registrations",
    ])
    #expect(finding.count == 1)
}

@Test func oneRegistrationPerSenderFromOneCallSiteIsNotADuplicate() throws {
    let found = try findings(.duplicateRegistration) { s in
        let screen = try s.object("DownloadsScreen")
        let first = try s.object("DownloadTask")
        let second = try s.object("DownloadTask")
        let finished = try s.channel(0, "DownloadDidFinish")
        let a = try s.register(finished, owner: screen, at: "Downloads.swift:20", sender: first)
        let b = try s.register(finished, owner: screen, at: "Downloads.swift:20", sender: second)
        try s.change(finished, new: "first")
        try s.deliver(a)
        try s.skip(b, reason: .senderMismatch)
    }
    #expect(found.isEmpty)
}

// MARK: - OJ002 with observations loops

/// A loop records its own change where it computes the new value, on the actor it iterates
/// on: loops of one line run one after another, on any thread (a main queue drained by a
/// dispatch worker that may change between two jobs, tasks on the global executor).
@Test func loopsStartedAgainFromOneLineAreDuplicatesWhateverThreadEachRunsOn() throws {
    let found = try findings(.duplicateRegistration) { s in
        let total = try s.channel(0, "Observations@TillScreen.swift:20")
        var loops: [Int64] = []
        for _ in 0..<3 {  // seqs 1-6: a loop started on each appearance, with its first value
            let loop = try s.register(total, owner: try s.object("ChangeStream"), at: "TillScreen.swift:20", options: "initial,new")
            try s.deliver(loop, initial: "0")
            loops.append(loop)
        }
        // Three writes, the last of the same value as the one before: each reaches every loop.
        for (write, value) in ["1", "2", "2"].enumerated() {
            for (index, loop) in loops.enumerated() {
                try s.inThread(Int64(2 + (index + write) % 3)) {
                    try s.change(total, new: value)
                    try s.deliver(loop)
                }
            }
        }
    }
    #expect(found.map(\.message) == [
        "TillScreen.swift:20 started a for await loop on *.Observations@TillScreen.swift:20 again (seq 3, ChangeStream#2) while the one it started at seq 1 (ChangeStream#1) was live: 3 writes reached both, each updating twice.",
        "TillScreen.swift:20 started a for await loop on *.Observations@TillScreen.swift:20 again (seq 5, ChangeStream#3) while the one it started at seq 1 (ChangeStream#1) was live: 3 writes reached both, each updating twice.",
    ])
}

@Test func loopsFromOneLineOnDifferentThreadsThatReadDifferentThingsAreNotDuplicates() throws {
    let found = try findings(.duplicateRegistration) { s in
        let title = try s.channel(0, "Observations@RowView.swift:12")
        let first = try s.register(title, owner: try s.object("ChangeStream"), at: "RowView.swift:12", options: "initial,new")
        try s.deliver(first, initial: "Dune")
        let second = try s.register(title, owner: try s.object("ChangeStream"), at: "RowView.swift:12", options: "initial,new")
        try s.deliver(second, initial: "Emma")
        // Each row's item is renamed, one after the other: a write reaches its own row's loop.
        for (loop, thread, value) in [(first, Int64(2), "Dune, 2nd ed."), (second, 3, "Emma, 2nd ed."), (first, 3, "Dune")] {
            try s.inThread(thread) {
                try s.change(title, new: value)
                try s.deliver(loop)
            }
        }
    }
    #expect(found.isEmpty, "\(found.map(\.message))")
}

// MARK: - OJ005 with sibling keys

@Test func aSiblingKeyTheOwnerAlsoObservesIsNoTypoHint() throws {
    let found = try findings(.neverPostedKey) { s in
        let filter = try s.object("PriceFilter")
        let list = try s.object("ResultsList")
        try s.register(try s.channel(filter, "minPrice"), owner: list, at: "List.swift:10")
        try s.register(try s.channel(filter, "maxPrice"), owner: list, at: "List.swift:11")
        // Only the maximum moves in this session.
        try s.post(try s.channel(filter, "maxPrice"), old: "100", new: "80")
    }
    #expect(found.map(\.message) == [
        "ResultsList#2 observed PriceFilter#1.minPrice (List.swift:10), which was never posted in this session.",
    ])
    #expect(found.map(\.severity) == [.info])
}

@Test func aMisspelledSiblingTakesTheTypoHintAndTheOtherSiblingStaysInfo() throws {
    let found = try findings(.neverPostedKey) { s in
        let filter = try s.object("PriceFilter")
        let list = try s.object("ResultsList")
        try s.register(try s.channel(filter, "minPrice"), owner: list, at: "List.swift:10")  // seq 1
        try s.register(try s.channel(filter, "maxPirce"), owner: list, at: "List.swift:11")  // seq 2
        try s.change(try s.channel(filter, "maxPrice"), old: "100", new: "80")  // seq 3
        try s.change(try s.channel(filter, "maxPrice"), old: "80", new: "60")  // seq 4
    }
    // Both are two Levenshtein edits from maxPrice; maxPirce is one swap of adjacent letters.
    #expect(found.map(\.message) == [
        "ResultsList#2 observed PriceFilter#1.minPrice (List.swift:10), which was never posted in this session.",
        "ResultsList#2 observed PriceFilter#1.maxPirce (List.swift:11), which was never posted; PriceFilter posted \"maxPrice\", 2 edits away: a typo?",
    ])
    #expect(found.map(\.severity) == [.info, .warning])
    #expect(found.last?.evidence == [
        "seq 2: ResultsList#2 registered PriceFilter#1.maxPirce at List.swift:11",
        "seq 3: PriceFilter#1.maxPrice was posted (2 times in all)",
    ])
}

@Test func aKeyOneSlipFromOneTheOwnerAlsoObservesIsStillATypo() throws {
    let found = try findings(.neverPostedKey) { s in
        let scrollView = try s.object("ScrollView")
        let header = try s.object("Header")
        try s.register(try s.channel(scrollView, "contentOffset"), owner: header, at: "Header.swift:10")  // seq 1
        try s.register(try s.channel(scrollView, "contenOffset"), owner: header, at: "Header.swift:20")  // seq 2
        try s.post(try s.channel(scrollView, "contentOffset"), old: "0", new: "10")
    }
    #expect(found.map(\.message) == [
        "Header#2 observed ScrollView#1.contenOffset (Header.swift:20), which was never posted; ScrollView posted \"contentOffset\", 1 edit away: a typo?",
    ])
    #expect(found.map(\.severity) == [.warning])
}

/// The channels a never-posted key was registered on are counted from the registrations
/// table: a subject per round makes thousands, each counted once.
@Test func neverPostedKeyCountsEachChannelItsRegistrationsWereOnOnce() throws {
    let found = try findings(.neverPostedKey) { s in
        let label = try s.object("Label")  // object 1
        var first: Int64 = 0
        for index in 0..<5_000 {
            let channel = try s.channel(try s.object("Player"), "isSelected")
            if index == 0 { first = channel }
            try s.register(channel, owner: label, at: "Label.swift:10")  // seq index + 1
        }
        try s.register(first, owner: try s.object("Badge"), at: "Badge.swift:4")  // seq 5001
    }
    #expect(found.map(\.message) == [
        "Label#1 observed Player#2.isSelected (Label.swift:10), which was never posted in this session.",
    ])
    #expect(found.first?.evidence == [
        "seq 1: Label#1 registered Player#2.isSelected at Label.swift:10",
        "5001 registrations on 5000 channels with key \"isSelected\", none ever posted",
    ])
}

/// More groups than the checker keeps in memory (twice 256): the ones written out come
/// back in order, each with what it said before.
@Test func removeUnregisteredReportsEveryGroupInOrderPastWhatItKeepsInMemory() throws {
    let found = try findings(.removeUnregistered) { s in
        let player = try s.object("Player")  // object 1
        let rate = try s.channel(player, "rate")
        for index in 0..<600 {
            let owner = try s.object("Cell")  // object index + 2
            let registration = try s.register(rate, owner: owner, at: "Cell.swift:8")  // seq 4 index + 1
            try s.remove(registration, reason: .tokenCancelled)  // seq 4 index + 2
            try s.removeUnregistered(at: "Cell.swift:40", channel: rate, registration: registration, owner: owner)
            // The first group's second removal comes after every other group was made.
            try s.removeUnregistered(at: "Cell.swift:41", owner: owner, detail: index == 0 ? "isPlayng" : nil)
        }
        try s.removeUnregistered(at: "Cell.swift:40", channel: rate, registration: 1, owner: 2)  // seq 2401
    }
    #expect(found.count == 1_200)
    // Each round's two findings cite its registration (seq 4 index + 1) first.
    var expectedFirstSeqs: [Int64] = [1, 4]
    for index in Int64(1)..<600 { expectedFirstSeqs += [4 * index + 1, 4 * index + 1] }
    #expect(found.map(\.firstSeq) == expectedFirstSeqs)
    #expect(found.prefix(2).map(\.message) == [
        "Removal at Cell.swift:40 in f() (2 times, first at seq 3) matched no live registration: Cell#2's registration on Player#1.rate was already removed at seq 2 (tokenCancelled).",
        "Removal at Cell.swift:41 in f() (seq 4) matched no live registration: no channel (isPlayng) was ever observed for Cell#2: check the key's spelling.",
    ])
    #expect(found.first?.seqs == [1, 2, 3, 2401])
    #expect(found.suffix(2).map(\.message) == [
        "Removal at Cell.swift:40 in f() (seq 2399) matched no live registration: Cell#601's registration on Player#1.rate was already removed at seq 2398 (tokenCancelled).",
        "Removal at Cell.swift:41 in f() (seq 2400) matched no live registration: Cell#601's last registration (on Player#1.rate) was already removed at seq 2398 (tokenCancelled).",
    ])
}
