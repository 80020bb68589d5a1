import FieldCorpus
import Foundation
import JournalAnalysis
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
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("field-corpus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("journal.sqlite").path
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

/// Runs `FieldCorpusRunner` (built next to the test bundle) with `arguments`.
func runRunner(_ arguments: [String]) throws -> RunnerResult {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let process = Process()
    process.executableURL = directory.appendingPathComponent("FieldCorpusRunner")
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    // Every app ends on its own; this only guards the suite against a hung runner, whose
    // output then fails the test.
    DispatchQueue.global().asyncAfter(deadline: .now() + 120) { [process] in
        if process.isRunning { process.terminate() }
    }
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return RunnerResult(
        status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
        error: String(decoding: errorData, as: UTF8.self)
    )
}
