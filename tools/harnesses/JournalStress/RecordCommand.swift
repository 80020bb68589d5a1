import Foundation
import ObservationJournal
import ObserverCore
import Synchronization

/// `record`: a workload on two threads into a new session of JOURNAL; prints the
/// session's id and counters, and the deliveries the app saw.
enum RecordCommand {
    final class Subject {}
    final class Owner {}

    static func run(path: String, label: String, changes: Int) {
        let recording: RecordingSession
        do {
            recording = try Journal.open(path: path).startSession(label: label)
        } catch {
            JournalStress.fail("\(error)")
        }
        let registry = recording.registry
        let delivered = Atomic<Int>(0)
        let group = DispatchGroup()
        for worker in 0..<2 {
            group.enter()
            Thread {
                let subject = Subject()
                let value = ObservableValue(0, subject: subject, key: "value\(worker)", registry: registry)
                let owners = (0..<3).map { _ in Owner() }
                let tokens = owners.map { owner in value.observe(owner: owner) { _, _ in delivered.add(1, ordering: .relaxed) } }
                for number in 1...changes {
                    value.value = number
                    if number % 50 == 0 { registry.post(notification: "tick", payload: number) }
                }
                tokens.forEach { $0.cancel() }
                group.leave()
            }.start()
        }
        group.wait()
        recording.close()
        let counters = recording.counters
        JournalStress.report([
            "session": recording.sessionID, "accepted": counters.accepted, "written": counters.written,
            "dropped": counters.dropped, "unwritten": counters.unwritten,
            "delivered": delivered.load(ordering: .relaxed), "error": recording.lastError?.description ?? "",
        ])
    }
}
