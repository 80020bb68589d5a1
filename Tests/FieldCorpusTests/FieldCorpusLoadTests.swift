import FieldCorpus
import Foundation
import JournalAnalysis
import Synchronization
import Testing
import TestSupport

// The repeated-run form of the field corpus, run by tools/scripts/field-corpus-load.sh under CPU
// load from other processes: every correct twin FIELD_CORPUS_RUNS times (false alarms:
// runs with any finding at warning or above) and every buggy app FIELD_CORPUS_BUGGY_RUNS
// times (recall: runs diagnosed with every code the bug must get), or only the apps named
// in FIELD_CORPUS_APPS. Skipped unless FIELD_CORPUS_RUNS is set.

private let environment = ProcessInfo.processInfo.environment

/// How one repeated run went.
private struct Outcome: Sendable {
    var run: FieldRun
    var problems: [String] = []
    var missing: [String] = []
    var failure: String?
}

@Test(.skippedWhenQuick, .tags(.slow, .childProcess), .enabled(if: environment["FIELD_CORPUS_RUNS"] != nil))
func fieldCorpusUnderLoad() throws {
    let twinRuns = Int(environment["FIELD_CORPUS_RUNS"] ?? "") ?? 20
    let buggyRuns = Int(environment["FIELD_CORPUS_BUGGY_RUNS"] ?? "") ?? 2
    // FIELD_CORPUS_APPS (comma-separated names): only those apps, for a quick check of new ones.
    let only = environment["FIELD_CORPUS_APPS"].flatMap { $0.isEmpty ? nil : Set($0.split(separator: ",").map(String.init)) }
    let runs = FieldRun.all.filter { only?.contains($0.app) ?? true }.flatMap { run in Array(repeating: run, count: run.variant == .correct ? twinRuns : buggyRuns) }
    let outcomes = Mutex<[Outcome]>([])
    let next = Atomic<Int>(0)
    // A few runner processes at a time (FIELD_CORPUS_JOBS, default 4): each spends part of
    // its life starting up and waiting on its journal, and the load comes from elsewhere.
    let jobs = max(1, Int(environment["FIELD_CORPUS_JOBS"] ?? "") ?? 4)
    DispatchQueue.concurrentPerform(iterations: jobs) { _ in
        while true {
            let index = next.add(1, ordering: .relaxed).oldValue
            guard index < runs.count else { return }
            let run = runs[index]
            var outcome = Outcome(run: run)
            do {
                let findings = try run.diagnose()
                outcome.problems = findings.filter { $0.severity >= .warning }.map { "\($0.severity.rawValue)[\($0.rule.code)]" }
                let codes = Set(findings.map(\.rule.code))
                outcome.missing = FieldApp.named(run.app)?.expectedCodes.filter { !codes.contains($0) } ?? []
            } catch {
                outcome.failure = "\(error)"
            }
            outcomes.withLock { $0.append(outcome) }
        }
    }
    let all = outcomes.withLock { $0 }
    let twins = all.filter { $0.run.variant == .correct }
    let buggy = all.filter { $0.run.variant == .buggy }
    let alarms = twins.filter { !$0.problems.isEmpty || $0.failure != nil }
    let found = buggy.filter { $0.missing.isEmpty && $0.failure == nil }
    print("field-corpus: correct twins: \(twins.count) runs (\(twinRuns) each), \(alarms.count) with a finding at warning or above")
    for (name, group) in Dictionary(grouping: alarms, by: { "\($0.run)" }).sorted(by: { $0.key < $1.key }) {
        let codes = Set(group.flatMap(\.problems)).sorted().joined(separator: " ")
        print("field-corpus:   false alarm \(name): \(group.count)/\(twinRuns) runs \(codes)\(group.first?.failure.map { " \($0)" } ?? "")")
    }
    print("field-corpus: buggy apps: \(buggy.count) runs (\(buggyRuns) each), \(found.count) diagnosed with the right codes")
    for (name, group) in Dictionary(grouping: buggy.filter { !$0.missing.isEmpty || $0.failure != nil }, by: { "\($0.run)" })
        .sorted(by: { $0.key < $1.key }) {
        let missing = Set(group.flatMap(\.missing)).sorted().joined(separator: " ")
        print("field-corpus:   missed \(name): \(group.count)/\(buggyRuns) runs, missing \(missing)\(group.first?.failure.map { " \($0)" } ?? "")")
    }
    let apps = Set(buggy.map(\.run.app))
    let appsAlwaysFound = apps.filter { app in buggy.filter { $0.run.app == app }.allSatisfy { $0.missing.isEmpty && $0.failure == nil } }
    let twinGroups = Set(twins.map { "\($0.run)" })
    let cleanTwinGroups = twinGroups.subtracting(alarms.map { "\($0.run)" })
    print("field-corpus: recall \(appsAlwaysFound.count)/\(apps.count) apps in every run; clean twins \(cleanTwinGroups.count)/\(twinGroups.count) (app/main-loop) in every run")
    #expect(alarms.isEmpty)
    #expect(found.count == buggy.count)
}
