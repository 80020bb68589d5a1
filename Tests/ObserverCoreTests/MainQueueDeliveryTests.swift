import Dispatch
import ObserverCore
import Testing

private final class Subject {}
private final class Owner {}

// Asking for the main queue implies expecting the main thread, however the main queue
// was obtained (on Linux every `DispatchQueue.main` is a new wrapper object).
@Test func deliveryOnTheMainQueueRecordsThatItExpectsTheMainThread() {
    let registry = ObserverRegistry()
    let subject = Subject()
    let owner = Owner()
    let value = ObservableValue(0, subject: subject, key: "count", registry: registry)
    let main = value.observe(owner: owner, queue: DispatchQueue.main) { _, _ in }
    let other = value.observe(owner: owner, queue: DispatchQueue(label: "com.apple.main-thread")) { _, _ in }
    let none = value.observe(owner: owner) { _, _ in }
    #expect(main.registration.expectsMainThread)
    #expect(main.registration.queueLabel == DispatchQueue.main.label)
    #expect(!other.registration.expectsMainThread)
    #expect(!none.registration.expectsMainThread)
}
