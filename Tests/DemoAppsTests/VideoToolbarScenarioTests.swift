import ObserverCore
import Testing

// Seed 000. What a diagnosis needs: registrations declared for a scope that are still
// live, and still called, after the scope ended (leaked-registration), and the delivery
// made on the auto-hide timer's thread (off-main-delivery; the main-thread facts are
// checked in MainThreadRunTests, since no test runs on the main thread).

/// The events both variants share up to the screen's disappearance; `queued` marks the
/// fixed variant's registration that asks for the UI queue.
private func visibleShapes(queued: Bool) -> [String] {
    [
        "scopeBegan \"VideoPlayerScreen visible\"#1",
        "registered *.handleSingleTap r1 VideoPlayerScreen#1 by viewDidAppear() [new] sender VideoPlayerView#2 for \"VideoPlayerScreen visible\"",
        "changed *.handleSingleTap nil -> nil live 1 at handleSingleTap()",
        "registered ToolbarContainer#3.hidden r2 VideoPlayerScreen#1 by playerWasTapped() [old,new,onlyWhenChanged]\(queued ? " queued" : "") for \"VideoPlayerScreen visible\" depth 1",
        "delivered *.handleSingleTap r1 VideoPlayerScreen#1",
        "changed ToolbarContainer#3.hidden false -> true live 1 at handleSingleTap()",
        "delivered ToolbarContainer#3.hidden r2 VideoPlayerScreen#1",
        "changed *.handleSingleTap nil -> nil live 1 at handleSingleTap()",
        "delivered *.handleSingleTap r1 VideoPlayerScreen#1",
        "changed ToolbarContainer#3.hidden true -> false live 1 at handleSingleTap()",
        "delivered ToolbarContainer#3.hidden r2 VideoPlayerScreen#1",
        "changed ToolbarContainer#3.hidden false -> false live 1 at layoutToolbar()",
        "skipped ToolbarContainer#3.hidden r2 VideoPlayerScreen#1 unchanged",
        "changed ToolbarContainer#3.hidden false -> true live 1 at autoHideControls(_:)",
        "delivered ToolbarContainer#3.hidden r2 VideoPlayerScreen#1",
    ]
}

@Test func videoToolbarBuggyHookAndObservationOutliveTheScreen() throws {
    let run = try ScenarioRecording("video-toolbar", .buggy)
    #expect(run.shapes == visibleShapes(queued: false) + [
        "scopeEnded \"VideoPlayerScreen visible\"#1",
        "changed *.handleSingleTap nil -> nil live 1 at handleSingleTap()",
        "delivered *.handleSingleTap r1 VideoPlayerScreen#1",
        "changed ToolbarContainer#3.hidden true -> false live 1 at handleSingleTap()",
        "delivered ToolbarContainer#3.hidden r2 VideoPlayerScreen#1",
        "removed *.handleSingleTap r1 VideoPlayerScreen#1 ownerDeallocated",
        "removed ToolbarContainer#3.hidden r2 VideoPlayerScreen#1 ownerDeallocated",
    ])
    let scopeEnd = try #require(run.index(of: .scopeEnded))
    let scope = try #require(run.events[scopeEnd].scope)
    let afterScope = run.events[(scopeEnd + 1)...]
    // Both registrations were declared for the scope, and both were called after it ended.
    #expect(run.events(.registered).allSatisfy { $0.registration?.scope == scope })
    #expect(afterScope.filter { $0.kind == .delivered }.map { $0.registration!.id } == [1, 2])
    #expect(afterScope.filter { $0.kind == .removed }.map(\.removalReason) == [.ownerDeallocated, .ownerDeallocated])
    // The hook filters by the player view; the toolbar's hidden skips unchanged values.
    #expect(run.events(.registered).map { $0.registration?.sender?.description } == ["VideoPlayerView#2", nil])
    #expect(run.events(.skipped).map(\.skipReason) == [.unchanged])
    // The auto-hide change and its delivery happen on the timer's thread: a delivery on
    // another thread than the screen's, although the registration asked for no queue.
    let storyThread = run.events[0].thread
    let elsewhere = run.events(.delivered).filter { $0.thread != storyThread }
    #expect(elsewhere.count == 1)
    #expect(elsewhere.first?.registration?.queueLabel == nil)
    #expect(elsewhere.first?.channel?.description == "ToolbarContainer#3.hidden")
}

@Test func videoToolbarFixedRemovesBothBeforeTheScopeEnds() throws {
    let run = try ScenarioRecording("video-toolbar", .fixed)
    #expect(run.shapes == visibleShapes(queued: true) + [
        "removed *.handleSingleTap r1 VideoPlayerScreen#1 tokenCancelled at viewDidDisappear()",
        "removed ToolbarContainer#3.hidden r2 VideoPlayerScreen#1 tokenCancelled at viewDidDisappear()",
        "scopeEnded \"VideoPlayerScreen visible\"#1",
        "changed *.handleSingleTap nil -> nil live 0 at handleSingleTap()",
        "changed ToolbarContainer#3.hidden true -> false live 0 at handleSingleTap()",
    ])
    let scopeEnd = try #require(run.index(of: .scopeEnded))
    #expect(!run.events[(scopeEnd + 1)...].contains { $0.kind == .delivered || $0.kind == .removed })
    // The auto-hide change is posted on the timer's thread but delivered on the UI queue.
    let autoHide = try #require(run.events.firstIndex { $0.callSite?.function == "autoHideControls(_:)" })
    let delivery = run.events[autoHide + 1]
    #expect(delivery.kind == .delivered)
    #expect(delivery.thread != run.events[autoHide].thread)
    #expect(delivery.registration?.queueLabel == "DemoApps.ui")
}
