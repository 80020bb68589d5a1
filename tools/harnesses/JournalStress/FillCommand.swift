import SystemShim
import Foundation
import ObservationJournal
import ObserverCore
import Synchronization

/// `fill`: records until the journal cannot grow, then goes on using the registry.
enum FillCommand {
    final class Subject {}
    final class Owner {}

    /// Changes made after recording stopped: the registry must still deliver them.
    static let changesAfterFailure = 1_000
    /// Gives up if the journal never fills (the limit was not reached).
    static let maximumChanges = 5_000_000

    static func run(path: String, maxFileBytes: UInt64?) {
        let recording: RecordingSession
        do {
            // Small batches, so that several commit before the one that finds the disk full.
            recording = try Journal.open(path: path, options: .init(bufferCapacity: 256)).startSession(label: "fill")
        } catch {
            JournalStress.fail("\(error)")
        }
        if let maxFileBytes {
            // Writes past the limit fail with EFBIG instead of killing the process.
            signal(SIGXFSZ, SIG_IGN)
            var limit = rlimit(rlim_cur: rlim_t(maxFileBytes), rlim_max: rlim_t(maxFileBytes))
            // RLIMIT_FSZ is 1 on Linux; Swift does not import that constant.
            let fileSize: Int32 = 1
            guard setrlimit(fileSize, &limit) == 0 else {
                JournalStress.fail("setrlimit: \(String(cString: strerror(errno)))")
            }
        }
        let delivered = Atomic<Int>(0)
        let subject = Subject()
        let owner = Owner()
        // Long values fill the file quickly.
        let value = ObservableValue("", subject: subject, key: "text", registry: recording.registry)
        let token = value.observe(owner: owner) { _, _ in delivered.add(1, ordering: .relaxed) }
        let padding = String(repeating: "x", count: 150)
        var changes = 0
        var afterFailure = 0
        while changes < maximumChanges && afterFailure < changesAfterFailure {
            changes += 1
            value.value = "\(changes) \(padding)"
            if !recording.isRecording { afterFailure += 1 }
        }
        recording.close()
        _ = token
        let counters = recording.counters
        JournalStress.report([
            "session": recording.sessionID, "accepted": counters.accepted, "written": counters.written,
            "dropped": counters.dropped, "unwritten": counters.unwritten, "changes": changes,
            "delivered": delivered.load(ordering: .relaxed), "error": recording.lastError?.description ?? "",
        ])
    }
}
