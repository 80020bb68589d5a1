import Foundation
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
