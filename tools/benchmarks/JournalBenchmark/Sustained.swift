import Foundation
import ObservationJournal
import ObserverCore

/// (b) One thread sets a value observed by one owner as fast as it can (2 events per
/// change); the clock stops when `close()` has committed every event.
enum Sustained {
    static func run(path: String, events: Int) throws -> Double {
        let recording = try Journal.open(path: path).startSession(label: "sustained")
        let subject = Subject()
        let owner = Owner()
        let value = ObservableValue(0, subject: subject, key: "value", registry: recording.registry)
        let token = value.observe(owner: owner) { _, _ in }
        let start = now()
        for number in 0..<(events / 2) { value.value = number }
        recording.close()
        let elapsed = now() - start
        _ = token
        let counters = recording.counters
        // Sustained means every event written: none dropped, none left unwritten.
        precondition(
            counters.written == counters.accepted && counters.dropped == 0 && counters.written >= events
                && recording.lastError == nil,
            "\(counters)"
        )
        return Double(counters.written) / (Double(elapsed) / 1e9)
    }
}
