import ObserverCore
import Testing

// Seed 002, stretchy header. What a diagnosis needs: the removal that found nothing,
// with the call site in deinit (remove-unregistered), and a registration on a key that
// is never posted while a key one letter away is (never-posted-key).

@Test func stretchyHeaderBuggyRemovesTwiceAndObservesAMisspelledKey() throws {
    let run = try ScenarioRecording("stretchy-header", .buggy)
    #expect(run.shapes == [
        "registered ScrollView#1.contentOffset r1 StretchyHeaderView#2 by scrollView [new]",
        "registered ScrollView#1.contenOffset r2 StretchyHeaderView#2 by addStretchyHeader(height:variant:) [new]",
        "changed ScrollView#1.contentOffset (0.0, 0.0) -> (0.0, -40.0) live 1 at scroll(to:)",
        "delivered ScrollView#1.contentOffset r1 StretchyHeaderView#2",
        "changed ScrollView#1.contentOffset (0.0, -40.0) -> (0.0, -80.0) live 1 at scroll(to:)",
        "delivered ScrollView#1.contentOffset r1 StretchyHeaderView#2",
        "changed ScrollView#1.contentOffset (0.0, -80.0) -> (0.0, 0.0) live 1 at scroll(to:)",
        "delivered ScrollView#1.contentOffset r1 StretchyHeaderView#2",
        "removed ScrollView#1.contentOffset r1 StretchyHeaderView#2 explicit at scrollView",
        "registered ScrollView#3.contentOffset r3 StretchyHeaderView#2 by scrollView [new]",
        "changed ScrollView#3.contentOffset (0.0, 0.0) -> (0.0, -20.0) live 1 at scroll(to:)",
        "delivered ScrollView#3.contentOffset r3 StretchyHeaderView#2",
        "changed ScrollView#3.contentOffset (0.0, -20.0) -> (0.0, 0.0) live 1 at scroll(to:)",
        "delivered ScrollView#3.contentOffset r3 StretchyHeaderView#2",
        "removed ScrollView#3.contentOffset r3 StretchyHeaderView#2 explicit at removeFromSuperview()",
        "removeUnregistered ScrollView#3.contentOffset owner StretchyHeaderView#2 at deinit",
        "removed ScrollView#1.contenOffset r2 StretchyHeaderView#2 ownerDeallocated",
    ])
    let unregistered = run.events(.removeUnregistered)
    #expect(unregistered.count == 1)
    #expect(unregistered.first?.owner?.description == "StretchyHeaderView#2")
    #expect(unregistered.first?.callSite?.function == "deinit")
    #expect(unregistered.first?.callSite?.file == "DemoApps/StretchyHeaderScenario.swift")
    // The first removal of the same channel, by the same owner, from another call site.
    let first = run.events(.removed, on: "ScrollView#3.contentOffset")
    #expect(first.map { $0.callSite?.function } == ["removeFromSuperview()"])
    #expect(first.first?.callSite != unregistered.first?.callSite)

    #expect(run.events(.registered, on: "ScrollView#1.contenOffset").count == 1)
    #expect(run.events(.changed, on: "ScrollView#1.contenOffset").isEmpty)
    #expect(run.events(.delivered, on: "ScrollView#1.contenOffset").isEmpty)
    #expect(run.events(.changed, on: "ScrollView#1.contentOffset").count == 3)
}

@Test func stretchyHeaderFixedRemovesOnceWithTheRightKey() throws {
    let run = try ScenarioRecording("stretchy-header", .fixed)
    #expect(run.shapes == [
        "registered ScrollView#1.contentOffset r1 StretchyHeaderView#2 by scrollView [new]",
        "changed ScrollView#1.contentOffset (0.0, 0.0) -> (0.0, -40.0) live 1 at scroll(to:)",
        "delivered ScrollView#1.contentOffset r1 StretchyHeaderView#2",
        "changed ScrollView#1.contentOffset (0.0, -40.0) -> (0.0, -80.0) live 1 at scroll(to:)",
        "delivered ScrollView#1.contentOffset r1 StretchyHeaderView#2",
        "changed ScrollView#1.contentOffset (0.0, -80.0) -> (0.0, 0.0) live 1 at scroll(to:)",
        "delivered ScrollView#1.contentOffset r1 StretchyHeaderView#2",
        "removed ScrollView#1.contentOffset r1 StretchyHeaderView#2 explicit at scrollView",
        "registered ScrollView#3.contentOffset r2 StretchyHeaderView#2 by scrollView [new]",
        "changed ScrollView#3.contentOffset (0.0, 0.0) -> (0.0, -20.0) live 1 at scroll(to:)",
        "delivered ScrollView#3.contentOffset r2 StretchyHeaderView#2",
        "changed ScrollView#3.contentOffset (0.0, -20.0) -> (0.0, 0.0) live 1 at scroll(to:)",
        "delivered ScrollView#3.contentOffset r2 StretchyHeaderView#2",
        "removed ScrollView#3.contentOffset r2 StretchyHeaderView#2 explicit at removeFromSuperview()",
    ])
    #expect(run.events(.removeUnregistered).isEmpty)
    #expect(Set(run.events.compactMap { $0.channel?.key }) == ["contentOffset"])
    // Every registration is removed exactly once.
    #expect(run.events(.registered).map { $0.registration!.id } == run.events(.removed).map { $0.registration!.id })
}
