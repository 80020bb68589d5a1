import Foundation
import Testing
import JournalAnalysis
@testable import ObservationJournal

/// The findings of the journal's only session, as `code name: message` lines.
func findings(_ path: String) throws -> [String] {
    let reader = try JournalReader(path: path)
    return try Diagnoser.diagnose(reader, session: try reader.session(nil)).map {
        "\($0.rule.code) \($0.rule.name): \($0.message)"
    }
}

/// The fixes of the journal's only session's findings, in the findings' order.
func fixes(_ path: String) throws -> [String] {
    let reader = try JournalReader(path: path)
    return try Diagnoser.diagnose(reader, session: try reader.session(nil)).map(\.fix)
}

/// Returns once the main queue has run everything enqueued on it before this call.
@MainActor
func mainQueueDrained() async {
    await withCheckedContinuation { continuation in
        DispatchQueue.main.async { continuation.resume() }
    }
}

/// Yields until `done` holds, for at most 20 seconds: false, with an issue naming `what`,
/// if it never does (a loop that never registers or never delivers fails the test instead
/// of hanging the suite). `done` runs in the caller's isolation.
func yieldUntil(
    _ what: @autoclosure () -> String, isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation, _ done: () -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(20)
    while !done() {
        guard ContinuousClock.now < deadline else {
            Issue.record("timed out waiting for \(what())", sourceLocation: sourceLocation)
            return false
        }
        await Task.yield()
    }
    return true
}
