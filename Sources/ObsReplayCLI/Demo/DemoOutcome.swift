package import JournalAnalysis

/// What a demo journal holds, read back: its sessions with their findings, and the
/// commands worth running next.
package struct DemoOutcome {
    /// One recorded session and its diagnosis.
    package struct Session {
        package var summary: SessionSummary
        package var label: DemoLabel
        package var findings: [Finding]

        /// The findings at warning or above: what makes a variant not clean.
        package var problems: [Finding] { findings.filter { $0.severity >= .warning } }
    }

    /// A command to try, and what it shows.
    package struct NextStep: Equatable {
        /// The arguments after the program name.
        package var arguments: [String]
        package var note: String
    }

    package var journalPath: String
    /// The HTML report written beside the journal, once it is.
    package var reportPath: String?
    package var sessions: [Session]
    /// Where `replay --what-if multicast` shows owners that missed changes: the music
    /// player's buggy session and the last change some owner missed, if recorded.
    package var missedChange: (session: Int64, seq: Int64)?

    /// Reads the journal at `path` and diagnoses every session (all must be demo sessions).
    package static func read(path: String) throws(AnalysisError) -> DemoOutcome {
        let reader = try JournalReader(path: path)
        var sessions: [Session] = []
        var missedChange: (session: Int64, seq: Int64)?
        for summary in try reader.sessions() {
            guard let label = DemoLabel(label: summary.label) else { continue }
            let findings = try Diagnoser.diagnose(reader, session: summary)
            sessions.append(Session(summary: summary, label: label, findings: findings))
            if missedChange == nil, findings.contains(where: { $0.rule == .lastCallbackWins }) {
                // The same replay the suggested command runs, so the seq shown is one
                // where `missed:` names somebody.
                let state = try ReplayEngine.replay(reader, session: summary, at: summary.lastSeq, whatIfMulticast: true)
                if let change = state.whatIf?.last(where: { !$0.missed.isEmpty }) {
                    missedChange = (summary.id, change.seq)
                }
            }
        }
        return DemoOutcome(journalPath: path, reportPath: nil, sessions: sessions, missedChange: missedChange)
    }

    /// The sessions grouped by scenario, in the order they were recorded.
    package var byScenario: [(scenario: String, sessions: [Session])] {
        var groups: [(scenario: String, sessions: [Session])] = []
        for session in sessions {
            if let index = groups.firstIndex(where: { $0.scenario == session.label.scenario.name }) {
                groups[index].sessions.append(session)
            } else {
                groups.append((session.label.scenario.name, [session]))
            }
        }
        return groups
    }

    /// The commands to try next: a buggy session's timeline, the what-if replay that
    /// shows who missed changes, `diagnose` as a CI gate, and the findings as CSV.
    package var nextSteps: [NextStep] {
        let journal = journalPath
        var steps: [NextStep] = []
        let timeline = sessions.first { $0.label.description == "music-player/buggy" }
            ?? sessions.first { !$0.problems.isEmpty } ?? sessions.first
        if let timeline {
            steps.append(NextStep(
                arguments: ["timeline", journal, "--session", String(timeline.summary.id)],
                note: "\(timeline.label), event by event"
            ))
        }
        if let (session, seq) = missedChange {
            steps.append(NextStep(
                arguments: ["replay", journal, "--session", String(session), "--at", String(seq), "--what-if", "multicast"],
                note: "who would have been told with a multicast channel"
            ))
        }
        let failing = sessions.contains { !$0.problems.isEmpty }
        steps.append(NextStep(
            arguments: ["diagnose", journal, "--all", "--fail-on", "warning"],
            note: failing ? "the CI gate: exits 1, the buggy variants have warnings and errors" : "the CI gate: exits 0 here"
        ))
        steps.append(NextStep(
            arguments: ["export", journal, "--what", "findings", "--format", "csv", "-o", Self.findingsCSVPath(journal)],
            note: "every finding as a spreadsheet"
        ))
        return steps
    }

    /// `obsreplay-demo-findings.csv` beside `obsreplay-demo.sqlite`.
    static func findingsCSVPath(_ journal: String) -> String {
        let stem = journal.hasSuffix(".sqlite") ? String(journal.dropLast(".sqlite".count)) : journal
        return stem + "-findings.csv"
    }
}
