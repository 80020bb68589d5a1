import ObserverCore
import DemoApps
import Testing

// Seed 002, upload progress. Clean in both variants: a self-removal from inside the
// callback is a cancellation, not a bug, and the diagnosis must stay silent.

@Test(arguments: ScenarioVariant.allCases)
func uploadProgressCancelsItsOwnTokenOnceAtCompletion(_ variant: ScenarioVariant) throws {
    let run = try ScenarioRecording("upload-progress", variant)
    let queued = variant == .fixed ? " queued" : ""
    #expect(run.shapes == [
        "registered Upload#1.fractionCompleted r1 UploadScreen#2 by observeProgress(of:deliveredOnMainQueue:) [old,new]\(queued)",
        "changed Upload#1.fractionCompleted 0.0 -> 0.25 live 1 at chunkFinished(_:_:)",
        "delivered Upload#1.fractionCompleted r1 UploadScreen#2",
        "changed Upload#1.fractionCompleted 0.25 -> 0.5 live 1 at chunkFinished(_:_:)",
        "delivered Upload#1.fractionCompleted r1 UploadScreen#2",
        "changed Upload#1.fractionCompleted 0.5 -> 0.75 live 1 at chunkFinished(_:_:)",
        "delivered Upload#1.fractionCompleted r1 UploadScreen#2",
        "changed Upload#1.fractionCompleted 0.75 -> 1.0 live 1 at chunkFinished(_:_:)",
        "removed Upload#1.fractionCompleted r1 UploadScreen#2 tokenCancelled depth 1 at observeProgress(of:deliveredOnMainQueue:)",
        "delivered Upload#1.fractionCompleted r1 UploadScreen#2",
    ])
    let removals = run.events(.removed)
    #expect(removals.count == 1)
    #expect(removals.first?.removalReason == .tokenCancelled)
    // Cancelled from inside the delivery of the change to 1.0.
    #expect(removals.first?.depth == 1)
    #expect(run.events(.changed).last?.new?.description == "1.0")
    #expect(run.events(.removeUnregistered).isEmpty)
    #expect(run.events(.delivered).count == 4)
    // Progress is reported on the upload's threads, never the thread that ran the story.
    let storyThread = run.events[0].thread
    #expect(run.events(.changed).allSatisfy { $0.thread != storyThread })
    // The seed's shape runs on the upload's thread and does not claim the main thread.
    if variant == .buggy { #expect(run.events.allSatisfy { $0.registration?.expectsMainThread == false || $0.registration == nil }) }
}
