import Foundation
@testable import ObservationJournal
import ObserverCore
import TestSupport

/// The registry's thread number and main-thread flag for the calling thread, found through
/// a throw-away registry (the numbers are process-wide).
func currentThread() -> (number: UInt64, isMain: Bool) {
    let sink = InMemoryEventSink()
    _ = ObserverRegistry(sink: sink).beginScope("probe")
    let event = sink.events[0]
    return (event.thread, event.isMainThread)
}

/// Whether every session's events are numbered 1…k without gaps.
func eventsAreGapFree(_ path: String, session: Int64? = nil) throws -> Bool {
    try rows(path, """
        SELECT session_id FROM events \(session.map { "WHERE session_id = \($0) " } ?? "")GROUP BY session_id
        HAVING min(seq) != 1 OR max(seq) != count(*)
        """).isEmpty
}

final class Player {}

final class Screen {
    let name: String
    var tokens: [ObservationToken] = []
    init(_ name: String) { self.name = name }
}

/// The bytes of a file, to prove a refused file was left untouched.
func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

/// Runs a command-line tool and returns its standard output; fails the test's `try` with
/// `ChildFailure` when it exits non-zero.
@discardableResult
func run(_ executable: String, _ arguments: [String], input: String? = nil) throws -> String {
    try ChildProcess.output(URL(fileURLWithPath: executable), arguments, input: input)
}

/// The `Migrations` folder of this package.
let migrationsFolder: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("Migrations").path
}()

/// Claims `buffer`'s next place lock-free as a producer does (`nil` when a producer would
/// take the lock), leaving its entry unwritten until the test `write`s it: a producer
/// preempted between its claim and its copy. A function, so that `#require` and `#expect`
/// can take its result (they cannot capture the noncopyable ring).
func claimPlace(_ buffer: EventBuffer) -> Int? {
    buffer.ring.claim()
}
