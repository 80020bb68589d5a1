import Foundation

/// `diagnose` over many journals at once: each journal is read on its own connection,
/// several in parallel (one per core), and handed to the caller in order (`OrderedWork`):
/// memory and open files follow the journals being read, not the sum of all of them.
package enum FleetDiagnosis {
    /// What happened to one journal.
    package enum Outcome: Sendable {
        /// Read: its sessions and findings (configuration applied).
        case diagnosed(sessions: [Int64], findings: [Finding])
        /// Not a journal (see `AnalysisError.isNotAJournal`); skipped with a notice.
        case skipped(AnalysisError)
        /// A journal that could not be read (damaged, another schema version, unreadable).
        case failed(AnalysisError)
    }

    /// One journal's result.
    package struct JournalResult: Sendable {
        package var path: String
        package var outcome: Outcome
    }

    /// Diagnoses every session of each of `paths` in parallel and calls `body` on the
    /// calling thread with each journal's result, in the order of `paths`.
    package static func forEachJournal(
        _ paths: [String], options: DiagnosisOptions, configuration: DiagnosisConfiguration = DiagnosisConfiguration(),
        parallelism: Int = ProcessInfo.processInfo.activeProcessorCount, _ body: (JournalResult) -> Void
    ) {
        OrderedWork.forEach(paths.count, parallelism: parallelism, work: { index in
            JournalResult(path: paths[index], outcome: diagnoseOne(paths[index], options: options, configuration: configuration))
        }) { _, result in body(result) }
    }

    /// Diagnoses every session of each of `paths`; results in the order of `paths`.
    package static func diagnose(
        _ paths: [String], options: DiagnosisOptions, configuration: DiagnosisConfiguration = DiagnosisConfiguration()
    ) -> [JournalResult] {
        var all: [JournalResult] = []
        forEachJournal(paths, options: options, configuration: configuration) { all.append($0) }
        return all
    }

    static func diagnoseOne(_ path: String, options: DiagnosisOptions, configuration: DiagnosisConfiguration) -> Outcome {
        let reader: JournalReader
        do {
            reader = try JournalReader(path: path)
        } catch {
            return error.isNotAJournal ? .skipped(error) : .failed(error)
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
