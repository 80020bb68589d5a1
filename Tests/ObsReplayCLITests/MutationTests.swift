import Foundation
@testable import ObsReplayCLI
import Synchronization
import SystemShim
import Testing
import TestSupport

/// The mutation harness: thousands of damaged and hostile variants of real journals, and
/// every `obsreplay` command on each. Every command must exit 0, 1 or 2; exit 2 comes
/// with one `error:` line and nothing else; no crash, no hang (a time limit per command),
/// no raw control character on a terminal; and the journal's bytes (file and `-wal`) are
/// exactly what they were.
///
/// Commands run in this process through `ObsReplay.run` (the binary's whole code path
/// but the process), and every `processEvery`-th case also runs them as the built binary,
/// which would show a crash or a trace as a process would. Tune with
/// `OBSREPLAY_MUTATION_CASES` (default 100 under `swift test`; `tools/scripts/reliability.sh ci`
/// runs 1,000), `OBSREPLAY_MUTATION_SEED`,
/// `OBSREPLAY_MUTATION_FIRST` (to rerun one failing case) and
/// `OBSREPLAY_MUTATION_PROCESS_EVERY` (default 40). A crash in process ends the whole
/// test run; the case it was running is then in `currentCaseFile`.
@Suite(.skippedWhenQuick, .tags(.slow, .childProcess)) struct MutationTests {
    /// Where the worker notes each case before running it.
    static let currentCaseFile = NSTemporaryDirectory() + "obsreplay-mutation-current-case.txt"
    static let journal = "JOURNAL"
    static let commands: [[String]] = [
        ["sessions", journal], ["sessions", journal, "--json"],
        ["timeline", journal], ["timeline", journal, "--session", "1", "--json"],
        ["timeline", journal, "--kind", "delivered,removed", "--from", "3", "--limit", "20"],
        ["replay", journal, "--at", "5"], ["replay", journal, "--session", "1", "--at", "12", "--what-if", "multicast"],
        ["replay", journal, "--at", "9223372036854775807"],
        ["diagnose", journal, "--all"], ["diagnose", journal, "--all", "--json"],
        ["diagnose", journal, "--all", "--format", "short"], ["diagnose", journal, "--all", "--format", "github"],
        ["diagnose", journal, "--all", "--format", "sarif"],
        ["export", journal, "--what", "findings", "--format", "csv"],
        ["export", journal, "--what", "events", "--format", "csv"],
        ["export", journal, "--what", "registrations", "--format", "jsonl"],
        ["export", journal, "--what", "deliveries", "--format", "csv"],
        ["export", journal, "--what", "findings", "--format", "jsonl"],
        ["export", journal, "--what", "events", "--format", "chrome-trace"],
        ["diagnose", journal], ["timeline", journal, "--key", "isPlaying", "--owner", "Screen"],
        ["report", journal, "-o", "-"], ["report", journal, "--all", "-o", "-"],
        ["stats", journal], ["check", journal], ["migrate", journal],
    ]
    /// The longest a command may take on one case before it counts as a hang.
    static let timeLimitSeconds = 30.0

    struct Settings {
        var cases: Int
        var first: Int
        var seed: UInt64
        var processEvery: Int

        init(_ environment: [String: String]) {
            cases = environment["OBSREPLAY_MUTATION_CASES"].flatMap(Int.init) ?? 100
            first = environment["OBSREPLAY_MUTATION_FIRST"].flatMap(Int.init) ?? 0
            seed = environment["OBSREPLAY_MUTATION_SEED"].flatMap { UInt64($0) } ?? 20_261_129
            processEvery = environment["OBSREPLAY_MUTATION_PROCESS_EVERY"].flatMap(Int.init) ?? 40
        }
    }

    /// What the worker did, read by the test thread (the watchdog) and at the end.
    struct Progress {
        var current = "starting"
        var since = Date()
        var finished = false
        var failures: [String] = []
        var cases = 0
        var inProcessRuns = 0
        var processRuns = 0
        var refusedSQL = 0
        var exits: [Int32: Int] = [:]
    }

    /// Shared between the worker and the watchdog.
    final class Shared: Sendable {
        let progress = Mutex(Progress())
    }

    @Test func damagedJournalsNeverCrashHangOrChangeTheFile() throws {
        let settings = Settings(ProcessInfo.processInfo.environment)
        let directory = try temporaryDirectory()
        let bases = try MutationBases(in: directory.appendingPathComponent("bases")).bases
        let binary = try obsreplayBinary()
        let shared = Shared()
        let start = Date()
        Thread {
            Self.runCases(settings, bases: bases, in: directory, binary: binary, shared: shared)
        }.start()
        // The watchdog: a command that runs past the limit is a hang (its thread is left behind).
        while true {
            Thread.sleep(forTimeInterval: 0.2)
            let (finished, current, since) = shared.progress.withLock { ($0.finished, $0.current, $0.since) }
            if finished { break }
            if Date().timeIntervalSince(since) > Self.timeLimitSeconds {
                Issue.record("hang: no result after \(Int(Self.timeLimitSeconds)) s: \(current)")
                return
            }
        }
        let result = shared.progress.withLock { $0 }
        // The note of the current case matters only when a case kills the process; a run
        // that got here leaves nothing in the temporary directory.
        try? FileManager.default.removeItem(atPath: Self.currentCaseFile)
        for failure in result.failures { Issue.record(Comment(rawValue: failure)) }
        #expect(result.cases == settings.cases)
        // Every exit status was one of the three a script may rely on.
        #expect(Set(result.exits.keys).isSubset(of: [0, 1, 2]))
        if ProcessInfo.processInfo.environment["RELIABILITY_FIGURES"] != nil {
            let exits = result.exits.sorted { $0.key < $1.key }.map { "exit \($0.key): \($0.value)" }.joined(separator: ", ")
            print("""
                mutation harness: \(result.cases) cases (seed \(settings.seed)), \(result.inProcessRuns) commands in process, \
                \(result.processRuns) as processes, \(result.refusedSQL) SQL mutations refused; \(exits); \
                \(result.failures.count) failures; \(Int(Date().timeIntervalSince(start))) s
                """)
        }
    }

    // MARK: - The worker

    static func runCases(
        _ settings: Settings, bases: [MutationBases.Base], in directory: URL, binary: URL, shared: Shared
    ) {
        defer { shared.progress.withLock { $0.finished = true } }
        let caseDirectory = directory.appendingPathComponent("case")
        guard let cli = try? InProcessCLI(directory: directory) else {
            shared.progress.withLock { $0.failures.append("cannot create output files in \(directory.path)") }
            return
        }
        for index in settings.first..<(settings.first + settings.cases) {
            let seed = caseSeed(settings.seed, index)
            var mutator = JournalMutator(seed: seed)
            let base = mutator.pick(bases)
            try? FileManager.default.removeItem(at: caseDirectory)
            try? FileManager.default.createDirectory(at: caseDirectory, withIntermediateDirectories: true)
            let path = caseDirectory.appendingPathComponent("journal.sqlite").path
            for (suffix, data) in base.files { _ = FileManager.default.createFile(atPath: path + suffix, contents: data) }
            mutator.mutate(path)
            let name = "case \(index) (OBSREPLAY_MUTATION_FIRST=\(index) OBSREPLAY_MUTATION_CASES=1), base \(base.name), \(mutator.applied.joined(separator: "; "))"
            let before = Snapshot(path)
            _ = FileManager.default.createFile(atPath: currentCaseFile, contents: Data((name + "\n").utf8))
            let asProcess = settings.processEvery > 0 && index % settings.processEvery == 0
            for command in commands {
                let arguments = command.map { $0 == journal ? path : $0 }
                let label = "\(name): obsreplay \(command.joined(separator: " "))"
                shared.progress.withLock {
                    $0.current = label
                    $0.since = Date()
                }
                let run = cli.run(arguments)
                var problems = check(run, command: command)
                // migrate is last and the one command that may write: it may change an
                // older journal when it succeeds, never when it refuses.
                let mayWrite = command[0] == "migrate" && run.status == 0
                if !mayWrite, let change = before.difference(Snapshot(path)) { problems.append(change) }
                var processRuns = 0
                if asProcess {
                    let external = runBinary(binary, arguments)
                    processRuns = 1
                    problems += check(external, command: command)
                    if external.status != run.status { problems.append("the binary exited \(external.status), in process \(run.status)") }
                    if !mayWrite, let change = before.difference(Snapshot(path)) { problems.append(change + " (binary)") }
                }
                shared.progress.withLock {
                    $0.inProcessRuns += 1
                    $0.processRuns += processRuns
                    $0.exits[run.status, default: 0] += 1
                    if !problems.isEmpty { $0.failures.append("\(label): \(problems.joined(separator: "; "))") }
                }
            }
            let stop = shared.progress.withLock {
                $0.cases += 1
                $0.refusedSQL += mutator.refused
                return $0.failures.count >= 20
            }
            if stop { return }
        }
    }

    /// What is wrong with one run, if anything.
    static func check(_ run: CLIRun, command: [String]) -> [String] {
        var problems: [String] = []
        if run.signalled { problems.append("killed by signal \(run.status)") }
        guard [0, 1, 2].contains(run.status) else {
            return problems + ["exit \(run.status); stderr: \(run.stderr.prefix(400))"]
        }
        let errorLines = run.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        if run.status == 2 {
            if errorLines.count != 1 || !run.stderr.hasPrefix("error: ") {
                problems.append("exit 2 without exactly one error line: \(run.stderr.prefix(400))")
            }
        } else if !run.stderr.isEmpty && !(command[0] == "migrate" && errorLines.count == 1) {
            problems.append("exit \(run.status) with stderr: \(run.stderr.prefix(400))")
        }
        for marker in ["Fatal error", "Stack dump", "stack trace", "Assertion failed", "SIGSEGV", "Illegal instruction"]
            where run.stderr.contains(marker) {
            problems.append("stderr holds a trace (\(marker))")
        }
        // CSV files hold the exact bytes of the data (their own tests check it); every other
        // output is for a person or a parser that must not meet a raw control: text, short,
        // github (the CI log), JSON, SARIF and JSON Lines (escaped), the HTML report.
        let exact = command.contains("csv") || command.contains("chrome-trace")
        let streams = exact ? [run.stderr] : [run.stdout, run.stderr]
        for stream in streams where stream.unicodeScalars.contains(where: isUnsafeOnTerminal) {
            problems.append("raw control or bidi character in output")
        }
        return problems
    }

    static func isUnsafeOnTerminal(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A: return false
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2069, 0xFEFF: return true
        default: return false
        }
    }

    /// Runs the built binary with a time limit; a hang is killed and reported.
    static func runBinary(_ binary: URL, _ arguments: [String]) -> CLIRun {
        do {
            let run = try ChildProcess.run(binary, arguments, environment: ["PATH": "/usr/bin:/bin"], timeout: timeLimitSeconds)
            if run.timedOut {
                return CLIRun(status: -1, signalled: true, stdout: "", stderr: "hang: killed after \(Int(timeLimitSeconds)) s")
            }
            return CLIRun(status: run.status, signalled: run.signalled, stdout: run.stdout, stderr: run.stderr)
        } catch {
            return CLIRun(status: -1, signalled: false, stdout: "", stderr: "\(error)")
        }
    }
}

/// The outcome of one `obsreplay` run.
struct CLIRun {
    var status: Int32
    var signalled: Bool
    var stdout: String
    var stderr: String
}

/// Runs `obsreplay` in this process, its output going to two reusable files.
final class InProcessCLI {
    private let outPath: String
    private let errPath: String
    private let outDescriptor: Int32
    private let errDescriptor: Int32

    init(directory: URL) throws {
        outPath = directory.appendingPathComponent("stdout").path
        errPath = directory.appendingPathComponent("stderr").path
        outDescriptor = open(outPath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        errDescriptor = open(errPath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard outDescriptor >= 0, errDescriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    deinit {
        close(outDescriptor)
        close(errDescriptor)
    }

    func run(_ arguments: [String]) -> CLIRun {
        for descriptor in [outDescriptor, errDescriptor] {
            ftruncate(descriptor, 0)
            lseek(descriptor, 0, SEEK_SET)
        }
        let out = FileOutput(descriptor: outDescriptor, name: "standard output")
        let err = FileOutput(descriptor: errDescriptor, name: "standard error")
        var status = ObsReplay.run(arguments, environment: [:], out: out, err: err)
        do { try out.flush() } catch { status = ExitCode.input }
        try? err.flush()
        let read = { (path: String) in String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self) }
        return CLIRun(status: status, signalled: false, stdout: read(outPath), stderr: read(errPath))
    }
}

/// The bytes of a journal and its `-wal`, and which files are beside it.
///
/// A reader changes nothing: not a byte of the journal or of its `-wal`, and no file
/// removed or added beside it (a journal with no side file is read without creating
/// any; issue 27 §7). A journal that has a `-wal` keeps it and gets its `-shm` back if
/// that was missing (SQLite needs one to read the `-wal`).
struct Snapshot: Equatable {
    var main: Data?
    var wal: Data?
    var files: Set<String>
    let name: String

    init(_ path: String) {
        main = FileManager.default.contents(atPath: path)
        wal = FileManager.default.contents(atPath: path + "-wal")
        let directory = (path as NSString).deletingLastPathComponent
        name = (path as NSString).lastPathComponent
        files = Set((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
    }

    /// How `after` differs from this snapshot, or `nil`.
    func difference(_ after: Snapshot) -> String? {
        var changes: [String] = []
        if main != after.main { changes.append("the journal's bytes changed") }
        if (wal ?? Data()) != (after.wal ?? Data()) { changes.append("the -wal's bytes changed") }
        let removed = files.subtracting(after.files)
        let added = after.files.subtracting(files).subtracting(wal == nil ? [] : [name + "-shm"])
        if !removed.isEmpty { changes.append("files removed: \(removed.sorted())") }
        if !added.isEmpty { changes.append("files added: \(added.sorted())") }
        return changes.isEmpty ? nil : changes.joined(separator: ", ")
    }
}

/// The seed of case `index` of a run seeded with `seed`: independent streams per case, so
/// a failing case is reproduced from the seed it prints.
func caseSeed(_ seed: UInt64, _ index: Int) -> UInt64 {
    var generator = SplitMix64(state: seed ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
    return generator.next()
}
