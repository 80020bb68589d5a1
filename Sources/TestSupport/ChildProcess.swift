import Dispatch
package import Foundation
import SystemShim

/// What one child process did.
package struct ChildResult: Equatable, CustomStringConvertible, Sendable {
    /// The exit status, or the signal's number when `signalled`.
    package var status: Int32
    /// Whether a signal ended it (a crash, or the kill after `timeout`).
    package var signalled: Bool
    /// Whether it was killed for running longer than its time limit.
    package var timedOut: Bool
    package var stdout: String
    package var stderr: String

    package var description: String {
        "status \(status)\(signalled ? " (signal)" : "")\(timedOut ? " (killed: time limit)" : "")\n--- stdout\n\(stdout)--- stderr\n\(stderr)"
    }
}

/// A command that exited non-zero, for tests that only want its output.
package struct ChildFailure: Error, CustomStringConvertible {
    package let command: String
    package let result: ChildResult

    package init(command: String, result: ChildResult) {
        self.command = command
        self.result = result
    }

    package var description: String { "\(command) failed: \(result)" }
}

/// Runs child processes for tests: built tools found next to the test bundle, `python3`,
/// `swift`. Output goes through files (a large output cannot block on a full pipe), the
/// child's `TMPDIR` is the tests' scratch root (whatever it leaves there is removed with
/// it), and a child running past its time limit is killed, so a hung tool fails its test
/// instead of the suite.
package enum ChildProcess {
    /// Runs `executable` to completion.
    /// - Parameters:
    ///   - environment: the child's whole environment; `nil` inherits this process's.
    ///     `TMPDIR` is set to the scratch root unless given here.
    ///   - directory: the working directory; `nil` keeps this process's.
    ///   - input: written to its standard input, which is otherwise empty.
    ///   - timeout: seconds before it is killed with `SIGKILL`.
    package static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, in directory: URL? = nil,
        input: String? = nil, timeout: Double = 300
    ) throws -> ChildResult {
        let scratch = try ScratchDirectory("child")
        let out = scratch.appendingPathComponent("stdout"), err = scratch.appendingPathComponent("stderr")
        let inURL = scratch.appendingPathComponent("stdin")
        for url in [out, err] { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
        _ = FileManager.default.createFile(atPath: inURL.path, contents: Data((input ?? "").utf8))
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var childEnvironment = environment ?? ProcessInfo.processInfo.environment
        if environment?["TMPDIR"] == nil { childEnvironment["TMPDIR"] = ScratchDirectory.processRoot.path }
        process.environment = childEnvironment
        if let directory { process.currentDirectoryURL = directory }
        let outHandle = try FileHandle(forWritingTo: out), errHandle = try FileHandle(forWritingTo: err)
        let inHandle = try FileHandle(forReadingFrom: inURL)
        defer {
            try? outHandle.close()
            try? errHandle.close()
            try? inHandle.close()
        }
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = inHandle
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        var timedOut = false
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
        }
        process.waitUntilExit()
        return ChildResult(
            status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
            timedOut: timedOut,
            stdout: String(decoding: (try? Data(contentsOf: out)) ?? Data(), as: UTF8.self),
            stderr: String(decoding: (try? Data(contentsOf: err)) ?? Data(), as: UTF8.self)
        )
    }

    /// Runs `executable` and returns its standard output; throws `ChildFailure` when it
    /// exits non-zero.
    @discardableResult
    package static func output(
        _ executable: URL, _ arguments: [String], input: String? = nil, timeout: Double = 300
    ) throws -> String {
        let result = try run(executable, arguments, input: input, timeout: timeout)
        guard result.status == 0, !result.signalled else {
            throw ChildFailure(command: ([executable.path] + arguments).joined(separator: " "), result: result)
        }
        return result.stdout
    }

    /// A program found on `PATH` (`python3`, `swift`), run through `/usr/bin/env`.
    package static let env = URL(fileURLWithPath: "/usr/bin/env")

    /// An executable target of this package, built next to the test bundle by `swift test`.
    package static func built(_ name: String) throws -> URL {
        var candidates: [URL] = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for directory in candidates {
            let binary = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: binary.path) { return binary }
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "\(name) next to \(candidates.map(\.path))"])
    }
}
