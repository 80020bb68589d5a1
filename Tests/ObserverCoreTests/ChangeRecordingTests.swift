import Dispatch
import Foundation
import ObserverCore
import Testing

// What the registry records about changes must agree with what happened to the value:
// the journal's old → new chain is how obsreplay explains a session.

@Test func concurrentSetsRecordAnUnbrokenOldToNewChain() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let position = ObservableValue(0, subject: player, key: "position", registry: registry)
    let threads = 4, setsPerThread = 500
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
        for index in 0..<setsPerThread {
            position.set(thread * setsPerThread + index + 1)
        }
    }
    let changes = sink.events(.changed)
    #expect(changes.count == threads * setsPerThread)
    // Each recorded change starts from the value the previous one left.
    var expectedOld = "0"
    var broken = 0
    for change in changes {
        if change.old?.description != expectedOld { broken += 1 }
        expectedOld = change.new?.description ?? ""
    }
    #expect(broken == 0)
    #expect(expectedOld == String(position.value))
}

@Test func theSetterRecordsNoCallSiteWhileSetRecordsItsCaller() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let isPlaying = ObservableValue(false, subject: player, key: "isPlaying", registry: registry)
    isPlaying.value = true
    isPlaying.set(false); let line = #line
    let sites = sink.events(.changed).map(\.callSite)
    #expect(sites.count == 2)
    #expect(sites[0] == nil)
    #expect(sites[1]?.line == line)
    #expect(sites[1]?.file == "ObserverCoreTests/ChangeRecordingTests.swift")
}
