import Foundation
@testable import ObservationJournal
import ObserverCore

/// A directory of its own for one test, removed afterwards.
final class Scratch {
    let directory: String

    init() {
        directory = NSTemporaryDirectory() + "ObservationJournalTests-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A path in the directory.
    func path(_ name: String = "journal.sqlite") -> String { directory + "/" + name }
}

/// The rows of `sql`, read through a separate read-only connection (as `obsreplay` reads),
/// each as its columns joined by `|`, NULL as `NULL`.
func rows(_ path: String, _ sql: String) throws -> [String] {
    // Not `JournalFile.openForReading`: its connection runs no views, and tests read them.
    let database = try SQLiteDatabase(path: path, mode: .readOnly)
    let statement = try database.prepare(sql)
    var result: [String] = []
    while try statement.step() {
        result.append((0..<statement.columnCount).map { statement.optionalText($0) ?? "NULL" }.joined(separator: "|"))
    }
    return result
}

/// One integer from `sql` through a read-only connection.
func scalar(_ path: String, _ sql: String) throws -> Int64 {
    try SQLiteDatabase(path: path, mode: .readOnly).scalarInt(sql)
}

/// The registry's thread number and main-thread flag for the calling thread, found through
/// a throw-away registry (the numbers are process-wide).
func currentThread() -> (number: UInt64, isMain: Bool) {
    let sink = InMemoryEventSink()
    _ = ObserverRegistry(sink: sink).beginScope("probe")
    let event = sink.events[0]
    return (event.thread, event.isMainThread)
}

/// Whether every session's events are numbered 1…k without gaps.
func eventsAreGapFree(_ path: String) throws -> Bool {
    try rows(path, """
        SELECT session_id FROM events GROUP BY session_id
        HAVING min(seq) != 1 OR max(seq) != count(*)
        """).isEmpty
}

final class Player {}

final class Screen {
    let name: String
    var tokens: [ObservationToken] = []
    init(_ name: String) { self.name = name }
}

/// The bytes of a file, to prove a refused file was left untouched.
func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

/// Runs a command-line tool and returns its standard output; fails the test's `try` when
/// it exits non-zero.
@discardableResult
func run(_ executable: String, _ arguments: [String], input: String? = nil) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    let inputPipe = Pipe()
    if input != nil { process.standardInput = inputPipe }
    try process.run()
    if let input {
        inputPipe.fileHandleForWriting.write(Data(input.utf8))
        try inputPipe.fileHandleForWriting.close()
    }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw ToolFailure(command: ([executable] + arguments).joined(separator: " "),
                          status: process.terminationStatus,
                          stderr: String(decoding: errorData, as: UTF8.self))
    }
    return String(decoding: data, as: UTF8.self)
}

struct ToolFailure: Error, CustomStringConvertible {
    let command: String
    let status: Int32
    let stderr: String
    var description: String { "\(command) exited with \(status): \(stderr)" }
}

/// The `Migrations` folder of this package.
let migrationsFolder: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("Migrations").path
}()
