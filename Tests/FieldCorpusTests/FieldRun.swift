import FieldCorpus
import Foundation
import JournalAnalysis
import TestSupport
import Testing

/// One field-app variant, run in its own `FieldCorpusRunner` process under one main loop,
/// recorded into a fresh journal and diagnosed through the library.
struct FieldRun: CustomStringConvertible, Sendable {
    let app: String
    let variant: FieldVariant
    let loop: MainLoop

    var description: String { "\(app)/\(variant.rawValue)/\(loop.rawValue)" }

    /// Every app, both variants, under each of the app's main loops.
    static var all: [FieldRun] {
        FieldApp.all.flatMap { app in
            FieldVariant.allCases.flatMap { variant in
                app.mainLoops.map { FieldRun(app: app.name, variant: variant, loop: $0) }
            }
        }
    }

    /// Runs the variant and returns the findings of its session; the journal is deleted.
    func diagnose() throws -> [Finding] {
        let scratch = try ScratchDirectory("field-corpus")
        let path = scratch.path("journal.sqlite")
        let result = try runRunner([app, variant.rawValue, path, "--main-loop", loop.rawValue])
        guard result.status == 0, result.error.isEmpty else {
            throw FieldRunError.runnerFailed(run: description, status: result.status, error: result.error)
        }
        let reader = try JournalReader(path: path)
        let sessions = try reader.sessions()
        guard sessions.count == 1, let session = sessions.first, session.cleanEnd else {
            throw FieldRunError.badJournal(run: description)
        }
        return try Diagnoser.diagnose(reader, session: session)
    }
}

enum FieldRunError: Error, CustomStringConvertible {
    case runnerFailed(run: String, status: Int32, error: String)
    case badJournal(run: String)

    var description: String {
        switch self {
        case .runnerFailed(let run, let status, let error): "\(run): runner exited \(status): \(error)"
        case .badJournal(let run): "\(run): the journal does not hold exactly one cleanly ended session"
        }
    }
}

/// What a runner process did.
struct RunnerResult {
    var status: Int32
    var output: String
    var error: String
}

/// Runs `FieldCorpusRunner` (built next to the test bundle) with `arguments`. Every app
/// ends on its own; the time limit only guards the suite against a hung runner, whose
/// output then fails the test.
func runRunner(_ arguments: [String]) throws -> RunnerResult {
    let result = try ChildProcess.run(try ChildProcess.built("FieldCorpusRunner"), arguments, timeout: 120)
    return RunnerResult(status: result.status, output: result.stdout, error: result.stderr)
}
