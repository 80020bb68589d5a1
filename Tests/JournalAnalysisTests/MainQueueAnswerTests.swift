import Testing
import TestSupport

// Issue 25 item 6: the registry's main-queue check (`MainQueue.isCurrent`: the current
// queue's label, then libdispatch's specifics) must keep its answer in every place code
// runs under both Linux main loops. Only a child process has a main thread that runs the
// loop (`MainLoopProbe queues`); a toolchain whose libdispatch answers otherwise fails
// here, naming the place.

private func answers(_ loop: String) throws -> [String] {
    // The time limit guards the suite against a probe that never reaches its end.
    let result = try ChildProcess.run(try ChildProcess.built("MainLoopProbe"), ["queues", loop], timeout: 60)
    try #require(result.status == 0 && !result.signalled && result.stderr == "", "MainLoopProbe queues \(loop): \(result)")
    return result.stdout.split(separator: "\n").map(String.init)
}

@Test(.tags(.childProcess)) func mainQueueAnswersUnderRunLoopMainRun() throws {
    #expect(try answers("runloop") == [
        "main-thread-before-loop queue=main thread=main",
        "main-queue-block queue=main thread=main",
        "main-run-loop-timer queue=main thread=main",
        "serial-queue queue=other thread=other",
        "serial-queue-sync-from-main-queue queue=other thread=main",
        "queue-targeting-main queue=main thread=main",
        "main-queue-sync-from-thread queue=main thread=main",
        "queue-labelled-like-main queue=other thread=other",
        "thread queue=other thread=other",
    ])
}

@Test(.tags(.childProcess)) func mainQueueAnswersUnderDispatchMain() throws {
    // On Linux a dispatch worker drains the main queue: on the main queue, not the thread.
    #expect(try answers("dispatchmain") == [
        "main-thread-before-loop queue=main thread=main",
        "main-queue-block queue=main thread=other",
        "serial-queue queue=other thread=other",
        "serial-queue-sync-from-main-queue queue=other thread=other",
        "queue-targeting-main queue=main thread=other",
        "main-queue-sync-from-thread queue=main thread=other",
        "queue-labelled-like-main queue=other thread=other",
        "thread queue=other thread=other",
    ])
}
