import ObserverCore
import Testing

// The seeds remove observers in `dealloc`. In Swift's `deinit` the object can no longer
// be referenced weakly, so the registry must still recognise it as the owner it knew.

private final class DeinitSubject {}

private final class DeinitRemover {
    let registry: ObserverRegistry
    let subject: DeinitSubject
    let removeEarly: Bool
    var tokens: [ObservationToken] = []

    init(registry: ObserverRegistry, subject: DeinitSubject, value: ObservableValue<Int>, removeEarly: Bool) {
        self.registry = registry
        self.subject = subject
        self.removeEarly = removeEarly
        tokens.append(value.observe(owner: self) { _, _ in })
        if removeEarly { registry.removeObservers(owner: self, subject: subject, key: "count") }
    }

    deinit {
        registry.removeObservers(owner: self, subject: subject, key: "count")
    }
}

@Test func removalInDeinitRemovesTheOwnersRegistration() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let subject = DeinitSubject()
    let value = ObservableValue(0, subject: subject, key: "count", registry: registry)
    var remover: DeinitRemover? = DeinitRemover(registry: registry, subject: subject, value: value, removeEarly: false)
    _ = remover
    remover = nil
    #expect(sink.kinds == [.registered, .removed])
    #expect(sink.events[1].removalReason == .explicit)
    #expect(sink.events[1].registration?.owner.description == "DeinitRemover#2")
    #expect(sink.events[1].callSite?.function == "deinit")
    #expect(registry.statistics.registrations == 0)
}

@Test func secondRemovalInDeinitNamesTheRealOwner() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let subject = DeinitSubject()
    let value = ObservableValue(0, subject: subject, key: "count", registry: registry)
    var remover: DeinitRemover? = DeinitRemover(registry: registry, subject: subject, value: value, removeEarly: true)
    _ = remover
    remover = nil
    #expect(sink.kinds == [.registered, .removed, .removeUnregistered])
    #expect(sink.events[2].owner?.description == "DeinitRemover#2")
    #expect(sink.events[2].channel?.description == "DeinitSubject#1.count")
    #expect(sink.events[2].callSite?.function == "deinit")
}
