import ObservationJournal
import ObserverCore
import Testing
import TestSupport

// `changes()`: the loop's call site, its end as `streamEnded`, the buffering policy, and
// a loop still waiting at the session's end diagnosed as a leak.

private final class Counter {}

/// A value on `Counter#1.count` with a sink that keeps the registry's events.
private func counted() -> (ObservableValue<Int>, ObserverRegistry, InMemoryEventSink, Counter) {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let subject = Counter()
    return (ObservableValue(0, subject: subject, key: "count", registry: registry), registry, sink, subject)
}

/// The events as `kind channel owner detail` lines.
private func lines(_ sink: InMemoryEventSink) -> [String] {
    sink.events.map { event in
        var line = "\(event.kind) \(event.channel?.description ?? "-") \(event.registration?.owner.description ?? "-")"
        if event.kind == .registered, let site = event.registration?.callSite { line += " at \(site) in \(site.function)" }
        if let reason = event.removalReason { line += " \(reason)" }
        if let new = event.new { line += " new=\(new)" }
        return line
    }
}

@Test func aLoopIsRegisteredAtItsCallSiteAndEndsAsStreamEndedWhenItBreaks() async {
    let (value, registry, sink, subject) = counted()
    var seen: [Int?] = []
    for await change in value.changes(options: [.initial, .new]) {
        seen.append(change.new)
        if change.new == 0 { value.set(1) } else { break }
    }
    #expect(seen == [0, 1])
    #expect(registry.statistics.registrations == 0)
    #expect(lines(sink) == [
        "registered Counter#1.count ChangeStream#2 at ChangeStreamTests.swift:33 in aLoopIsRegisteredAtItsCallSiteAndEndsAsStreamEndedWhenItBreaks()",
        "delivered Counter#1.count ChangeStream#2 new=0",
        "changed Counter#1.count - new=1",
        "delivered Counter#1.count ChangeStream#2",
        "removed Counter#1.count ChangeStream#2 streamEnded",
    ])
    withExtendedLifetime(subject) {}
}

@Test func cancellingTheLoopsTaskEndsItsRegistrationAsStreamEnded() async throws {
    let (value, registry, sink, subject) = counted()
    let loop = Task {
        var count = 0
        for await _ in value.changes() { count += 1 }
        return count
    }
    try #require(await yieldUntil("a registration") { registry.statistics.registrations > 0 })
    loop.cancel()
    #expect(await loop.value == 0)
    #expect(registry.statistics.registrations == 0)
    #expect(sink.events.compactMap(\.removalReason) == [.streamEnded])
    withExtendedLifetime(subject) {}
}

@Test func aSequenceDroppedUnusedEndsItsRegistration() {
    let (value, registry, sink, subject) = counted()
    _ = value.changes()
    #expect(registry.statistics.registrations == 0)
    #expect(sink.kinds == [.registered, .removed])
    #expect(sink.events.compactMap(\.removalReason) == [.streamEnded])
    withExtendedLifetime(subject) {}
}

// The documented policy: a consumer slower than the producer sees the newest change.
@Test func bySlowConsumersOnlyTheLatestChangeIsSeenByDefault() async {
    let (value, _, sink, subject) = counted()
    let changes = value.changes()
    var iterator = changes.makeAsyncIterator()
    value.set(1)
    value.set(2)
    value.set(3)
    #expect(await iterator.next()?.new == 3)
    // Every change was handed to the sequence, and the journal says so.
    #expect(sink.kinds.filter { $0 == .delivered }.count == 3)
    withExtendedLifetime(subject) {}
}

@Test func aLargerBufferKeepsThatManyNewestChangesInOrder() async {
    let (value, _, _, subject) = counted()
    let changes = value.changes(bufferingNewest: 2)
    var iterator = changes.makeAsyncIterator()
    value.set(1)
    value.set(2)
    value.set(3)
    #expect(await iterator.next()?.new == 2)
    #expect(await iterator.next()?.new == 3)
    withExtendedLifetime(subject) {}
}

@Test func aLoopStillWaitingWhenTheSessionEndsIsALeakedRegistration() async throws {
    let scratch = try ScratchDirectory()
    let recording = try Journal.open(path: scratch.path()).startSession(label: "waiting loop")
    let subject = Counter()
    let value = ObservableValue(false, subject: subject, key: "isReady", registry: recording.registry)
    let loop = Task {
        for await _ in value.changes() {}
    }
    try #require(await yieldUntil("a registration") { recording.registry.statistics.registrations > 0 })
    recording.close()
    loop.cancel()
    await loop.value
    let found = try findings(scratch.path())
    #expect(found == [
        "OJ004 leaked-registration: ChangeStream#2's registration on Counter#1.isReady (ChangeStreamTests.swift:105) was still registered when the session ended.",
        "OJ005 never-posted-key: ChangeStream#2 observed Counter#1.isReady (ChangeStreamTests.swift:105), which was never posted in this session.",
    ])
}
