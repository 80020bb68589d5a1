import Dispatch
@testable import ObserverCore
import Testing

// The main-queue check in this process (under `swift test` nothing runs on the main
// thread; `MainQueueAnswerTests` runs the main loops in a child process).

@Test func codeOnAnotherQueueIsNotOnTheMainQueue() {
    let serial = DispatchQueue(label: "test.main-queue.serial")
    #expect(serial.sync { MainQueue.isCurrent } == false)
    // The label is text: a queue named like the main queue is another queue.
    let namesake = DispatchQueue(label: DispatchQueue.main.label)
    #expect(namesake.sync { MainQueue.isCurrent } == false)
    #expect(DispatchQueue.global().sync { MainQueue.isCurrent } == false)
}

@Test func theMainQueueIsRecognisedThroughAnyWrapper() {
    #expect(MainQueue.isMain(DispatchQueue.main))
    #expect(!MainQueue.isMain(DispatchQueue(label: DispatchQueue.main.label)))
    #expect(!MainQueue.isMain(DispatchQueue.global()))
}
