import Dispatch
import Synchronization

/// `diagnose` over many journals at once: each journal is read on its own connection,
/// several in parallel (one per core), and only its findings are kept, so memory follows
/// the largest journals being read at the moment, not the sum of all of them.
package enum FleetDiagnosis {
    /// What happened to one journal.
    package enum Outcome: Sendable {
        /// Read: its sessions and findings (configuration applied).
        case diagnosed(sessions: [Int64], findings: [Finding])
        /// Not opened: not a journal (or not readable); skipped with a notice.
        case skipped(AnalysisError)
        /// Opened but could not be read to the end (damaged).
        case failed(AnalysisError)
    }

    /// One journal's result.
    package struct JournalResult: Sendable {
        package var path: String
        package var outcome: Outcome
    }

    /// Diagnoses every session of each of `paths`, in parallel; results come back in the
    /// order of `paths`. `progress` is called (serialised) after each journal with the
    /// number done.
    package static func diagnose(
        _ paths: [String], options: DiagnosisOptions, configuration: DiagnosisConfiguration = DiagnosisConfiguration(),
        progress: (@Sendable (Int) -> Void)? = nil
    ) -> [JournalResult] {
        let results = Mutex<[JournalResult?]>(Array(repeating: nil, count: paths.count))
        let done = Atomic<Int>(0)
        let progressLock = Mutex<Void>(())
        DispatchQueue.concurrentPerform(iterations: paths.count) { index in
            let result = JournalResult(path: paths[index], outcome: diagnoseOne(paths[index], options: options, configuration: configuration))
            results.withLock { $0[index] = result }
            let count = done.add(1, ordering: .relaxed).newValue
            if let progress { progressLock.withLock { _ in progress(count) } }
        }
        return results.withLock { $0.compactMap { $0 } }
    }

    static func diagnoseOne(_ path: String, options: DiagnosisOptions, configuration: DiagnosisConfiguration) -> Outcome {
        let reader: JournalReader
        do {
            reader = try JournalReader(path: path)
        } catch {
            return .skipped(error)
        }
        do {
            let sessions = try reader.sessions()
            var findings: [Finding] = []
            for session in sessions {
                findings += configuration.apply(try Diagnoser.diagnose(reader, session: session, options: options))
            }
            return .diagnosed(sessions: sessions.map(\.id), findings: findings)
        } catch {
            return .failed(error)
        }
    }
}
