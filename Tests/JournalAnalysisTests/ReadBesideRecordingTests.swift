import Foundation
import JournalAnalysis
import JournalStore
import ObservationJournal
import ObserverCore
import Testing
import TestSupport

// Issue 34 §1: a read beside an app that starts recording into the journal it reads.

/// Records `sessions` sessions of `scopes` scopes each (two events a scope) into the
/// journal at `path` through the library's recorder, as an app does.
private func record(into path: String, label: String, sessions: Int, scopes: Int) throws {
    let journal = try Journal.open(path: path)
    for index in 0..<sessions {
        let recording = try journal.startSession(label: "\(label) \(index)")
        for scope in 0..<scopes { recording.registry.beginScope("scope \(scope)").end() }
        recording.close()
    }
}

/// The side files beside the journal at `path`.
private func sideFiles(_ path: String) -> [String] {
    ["-wal", "-shm", "-journal"].filter { FileManager.default.fileExists(atPath: path + $0) }
}

/// A finished journal has no side file; an app that starts recording into it while a
/// command reads it used to change the pages under the read (`immutable=1` takes no
/// locks): the old session came back with rows missing, or as a damaged file. The read
/// now sees everything committed before it began, exactly, and what was committed
/// during it is read by the next command.
@Test func aReadBesideAnAppThatStartsRecordingSeesEverythingCommittedBeforeIt() throws {
    let scratch = try ScratchDirectory("read-beside-recording")
    let path = scratch.path()
    try record(into: path, label: "finished", sessions: 1, scopes: 20_000)
    #expect(sideFiles(path) == [])

    var expected: [Int64] = []
    do {
        let reader = try JournalReader(path: path)
        try reader.forEachEvent(session: 1) { event in
            expected.append(event.seq)
            return true
        }
    }
    #expect(expected.count == 40_000)
    #expect(sideFiles(path) == [])

    let reader = try JournalReader(path: path)
    let before = try reader.sessions()
    var seen: [Int64] = []
    try reader.forEachEvent(session: 1) { event in
        seen.append(event.seq)
        if seen.count == 1_000 {
            // The app starts recording mid-read: three sessions, 120,000 events, its
            // checkpoints copying them into the main file.
            #expect(throws: Never.self) { try record(into: path, label: "new", sessions: 3, scopes: 20_000) }
        }
        return true
    }
    #expect(seen.count == expected.count)
    #expect(seen.elementsEqual(expected))
    #expect(try reader.sessions() == before)
    #expect(before.map(\.eventCount) == [40_000])

    let after = try JournalReader(path: path).sessions()
    #expect(after.map(\.label) == ["finished 0", "new 0", "new 1", "new 2"])
    #expect(after.map(\.eventCount) == [40_000, 40_000, 40_000, 40_000])
}
