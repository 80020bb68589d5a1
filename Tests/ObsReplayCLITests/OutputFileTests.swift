import Foundation
import JournalFixtures
import JournalAnalysis
import SystemShim
import Testing
import TestSupport

// What `-o` does with each kind of path: never damage the journal or its side files,
// write into FIFOs and devices instead of replacing them, replace regular files
// atomically and create them 0600, and `-o -` is standard output.

/// A WAL journal held open by a writer, so its `-wal` and `-shm` exist, as while an app
/// records.
private func liveJournal(in directory: URL) throws -> (path: String, fixture: JournalFixture) {
    let path = directory.appendingPathComponent("live.sqlite").path
    let fixture = try JournalFixture(path: path, wal: true)
    let session = try fixture.session(label: "live")
    let rate = try session.channel(try session.object("Player"), "rate")
    try session.register(rate, owner: try session.object("Screen"), at: "Screen.swift:5")
    try session.post(rate, old: "1", new: "2", at: "Player.swift:60")
    try fixture.finish()
    return (path, fixture)
}

private func fileType(_ path: String) -> mode_t {
    var status = stat()
    return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : 0
}

private func permissions(_ path: String) -> mode_t {
    var status = stat()
    return stat(path, &status) == 0 ? status.st_mode & 0o777 : 0
}

@Suite struct OutputFileTests {
    @Test(.tags(.childProcess)) func outputDashIsStandardOutputForExportAndReport() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = try demoJournal(in: directory)
        let plain = try obsreplay(["export", journal, "--what", "registrations", "--format", "csv"])
        let dash = try obsreplay(["export", journal, "--what", "registrations", "--format", "csv", "-o", "-"], in: directory)
        #expect(dash == plain && dash.status == 0 && dash.stdout.hasPrefix("session_id,id,channel_id"))
        let report = try obsreplay(["report", journal, "-o", "-"], in: directory)
        #expect(report.status == 0 && report.stdout.hasPrefix("<!DOCTYPE html>\n"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("-").path))
    }

    /// `--write-baseline` was written with `Data.write(options: .atomic)`: named the journal,
    /// its `-wal` or its `-shm`, it replaced them with the baseline (the journal lost, a live
    /// recording's WAL gone), and it replaced a FIFO or a symlink with a regular file. It
    /// is opened as `-o` is, before anything is diagnosed.
    @Test(.tags(.childProcess)) func writeBaselineNeverReplacesTheJournalOrItsSideFiles() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (journal, fixture) = try liveJournal(in: directory)
        let link = directory.appendingPathComponent("baseline.json").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: journal + "-wal")
        let bytes = { try [journal, journal + "-wal"].map { try Data(contentsOf: URL(fileURLWithPath: $0)) } }
        let before = try bytes()
        let cases = [
            (journal, "the journal"),
            (journal + "-wal", "the journal's write-ahead log (\(journal)-wal)"),
            (journal + "-shm", "the journal's shared-memory index (\(journal)-shm)"),
            (link, "the journal's write-ahead log (\(journal)-wal)"),
        ]
        for (path, named) in cases {
            #expect(try obsreplay(["diagnose", journal, "--write-baseline", path])
                == RunResult(stdout: "", stderr: "error: \(path): refusing to write the baseline over \(named)\n", status: 2))
        }
        #expect(try bytes() == before)
        #expect(fileType(link) == S_IFLNK && fileType(journal + "-wal") == S_IFREG && fileType(journal + "-shm") == S_IFREG)
        // A directory of journals: each one found is protected.
        let inDirectory = try obsreplay(["diagnose", directory.path, "--write-baseline", journal])
        #expect(inDirectory == RunResult(stdout: "", stderr: "error: \(journal): refusing to write the baseline over the journal\n", status: 2))
        #expect(try bytes() == before)
        _ = fixture
    }

    @Test(.tags(.childProcess)) func outputNamingTheJournalOrItsSideFilesIsRefusedThroughLinks() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (journal, fixture) = try liveJournal(in: directory)
        let link = directory.appendingPathComponent("innocent.csv").path
        let hardLink = directory.appendingPathComponent("report.html").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: journal + "-wal")
        // A hard link to the journal itself: one to its -shm makes the reader refuse the
        // journal before the output is opened (sideFilesAReaderWouldBlockOnOrWriteThroughAreRefused).
        #expect(Glibc.link(journal, hardLink) == 0)
        // Readers update the -shm's read marks, so it is checked by identity and size.
        let bytes = { try [journal, journal + "-wal"].map { try Data(contentsOf: URL(fileURLWithPath: $0)) } }
        let shm = { () -> [Int] in
            var status = stat()
            return stat(journal + "-shm", &status) == 0 ? [Int(status.st_ino), Int(status.st_size)] : []
        }
        let before = (try bytes(), shm())
        let cases: [(command: [String], stderr: String)] = [
            (["export", journal, "--what", "events", "--format", "csv", "-o", journal + "-wal"],
             "\(journal)-wal: refusing to write the export over the journal's write-ahead log (\(journal)-wal)"),
            (["export", journal, "--what", "events", "--format", "csv", "-o", link],
             "\(link): refusing to write the export over the journal's write-ahead log (\(journal)-wal)"),
            (["report", journal, "-o", hardLink],
             "\(hardLink): refusing to write the report over the journal"),
            (["report", journal, "-o", journal + "-journal"],
             "\(journal)-journal: refusing to write the report over the journal's rollback journal (\(journal)-journal)"),
            (["export", journal, "--what", "events", "--format", "jsonl", "-o", directory.path + "/./live.sqlite"],
             "\(directory.path)/./live.sqlite: refusing to write the export over the journal"),
        ]
        for item in cases {
            #expect(try obsreplay(item.command) == RunResult(stdout: "", stderr: "error: \(item.stderr)\n", status: 2))
        }
        // Standard output appending to the WAL (`>> live.sqlite-wal`), named as /dev/stdout.
        let sh = URL(fileURLWithPath: "/bin/sh")
        let appended = try run(sh, ["-c", "'\(try obsreplayBinary().path)' export '\(journal)' --what events --format csv -o /dev/stdout >> '\(journal)-wal'"])
        #expect(appended == RunResult(
            stdout: "", stderr: "error: /dev/stdout: refusing to write the export over the journal's write-ahead log (\(journal)-wal)\n", status: 2
        ))
        #expect(try bytes() == before.0 && shm() == before.1)
        #expect(!FileManager.default.fileExists(atPath: journal + "-journal"))
        #expect(fileType(link) == S_IFLNK)
        withExtendedLifetime(fixture) {}
    }

    @Test(.tags(.childProcess)) func fifoDevicesAndStandardOutputAreWrittenIntoNeverReplaced() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = try demoJournal(in: directory)
        let expected = try obsreplay(["export", journal, "--what", "registrations", "--format", "csv"]).stdout

        let fifo = directory.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let received = ReceivedBytes()
        let reader = Thread {
            // Blocks until the command opens the FIFO for writing, then reads to its end.
            let descriptor = open(fifo, O_RDONLY)
            var data = Data()
            var chunk = [UInt8](repeating: 0, count: 4096)
            while descriptor >= 0 {
                let count = read(descriptor, &chunk, chunk.count)
                if count <= 0 { break }
                data.append(contentsOf: chunk[0..<count])
            }
            if descriptor >= 0 { close(descriptor) }
            received.set(data)
        }
        reader.start()
        let toFifo = try obsreplay(["export", journal, "--what", "registrations", "--format", "csv", "-o", fifo])
        if toFifo.status != 0 {
            // The command never opened the FIFO: open it once so the reader gives up.
            let unblock = open(fifo, O_WRONLY | O_NONBLOCK)
            if unblock >= 0 { close(unblock) }
        }
        while !received.done { usleep(1_000) }
        #expect(toFifo == RunResult(stdout: "", stderr: "", status: 0))
        #expect(String(decoding: received.data, as: UTF8.self) == expected)
        #expect(fileType(fifo) == S_IFIFO)

        #expect(try obsreplay(["report", journal, "-o", "/dev/null"]) == RunResult(stdout: "/dev/null\n", stderr: "", status: 0))
        #expect(fileType("/dev/null") == S_IFCHR)
        let viaStdout = try obsreplay(["export", journal, "--what", "registrations", "--format", "csv", "-o", "/dev/stdout"])
        #expect(viaStdout == RunResult(stdout: expected, stderr: "", status: 0))
        #expect(try obsreplay(["report", journal, "-o", directory.path]) == RunResult(
            stdout: "", stderr: "error: \(directory.path): refusing to write the report over a directory\n", status: 2
        ))
    }

    @Test(.tags(.childProcess)) func newFilesAre0600ReplacedFilesKeepTheirModeAndSymlinksStay() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = try demoJournal(in: directory)
        let sh = URL(fileURLWithPath: "/bin/sh")
        let binary = try obsreplayBinary().path
        let fresh = directory.appendingPathComponent("fresh.csv").path
        let html = directory.appendingPathComponent("fresh.html").path
        // umask 000 would make a plain open(0666) world-writable.
        let made = try run(sh, ["-c", "umask 000; '\(binary)' export '\(journal)' --what events --format csv -o '\(fresh)' && '\(binary)' report '\(journal)' -o '\(html)'"])
        #expect(made == RunResult(stdout: html + "\n", stderr: "", status: 0))
        #expect(permissions(fresh) == 0o600 && permissions(html) == 0o600)

        let shared = directory.appendingPathComponent("shared.csv").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: shared))
        #expect(chmod(shared, 0o644) == 0)
        let link = directory.appendingPathComponent("latest.csv").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "shared.csv")
        #expect(try obsreplay(["export", journal, "--what", "registrations", "--format", "csv", "-o", link]).status == 0)
        #expect(fileType(link) == S_IFLNK && fileType(shared) == S_IFREG)
        #expect(permissions(shared) == 0o644)
        #expect(try String(contentsOfFile: shared, encoding: .utf8).hasPrefix("session_id,id,channel_id"))
        let dangling = directory.appendingPathComponent("dangling.csv").path
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "nowhere/x.csv")
        #expect(try obsreplay(["export", journal, "--what", "events", "--format", "csv", "-o", dangling]) == RunResult(
            stdout: "", stderr: "error: \(dangling): refusing to write the export through a symlink to a missing file\n", status: 2
        ))
        // No temporary file is left beside the outputs.
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == ["dangling.csv", "demo.sqlite", "fresh.csv", "fresh.html", "latest.csv", "shared.csv"])
    }

    /// Issue 27 §5: `report JOURNAL` writes `JOURNAL.html`, a name the user never saw. A
    /// symlink of that name that came with the journal replaced a file outside the
    /// artifact's directory, and a FIFO blocked the command for ever. Only nothing or a
    /// regular file is accepted there; `-o` still follows links and writes into FIFOs.
    @Test(.tags(.childProcess)) func theReportsDefaultPathIsNeverALinkOrAFIFO() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let artifact = directory.appendingPathComponent("artifact")
        try FileManager.default.createDirectory(at: artifact, withIntermediateDirectories: false)
        let journal = try demoJournal(in: artifact)
        let html = artifact.appendingPathComponent("demo.html").path
        let victim = directory.appendingPathComponent("victim.txt").path
        try Data("mine".utf8).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.createSymbolicLink(atPath: html, withDestinationPath: victim)
        let refusal = { (how: String) in RunResult(stdout: "", stderr: """
            error: \(html): refusing to write the report \(how) the journal's name led to (it may have come with the journal); name the output with -o

            """, status: 2) }
        let binary = try obsreplayBinary()
        let viaLink = try ChildProcess.run(binary, ["report", journal], environment: ["PATH": "/usr/bin:/bin"], timeout: 30)
        #expect(RunResult(stdout: viaLink.stdout, stderr: viaLink.stderr, status: viaLink.status) == refusal("through a symlink"))
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "mine")
        try FileManager.default.removeItem(atPath: html)
        #expect(mkfifo(html, 0o600) == 0)
        let fifo = try ChildProcess.run(binary, ["report", journal], environment: ["PATH": "/usr/bin:/bin"], timeout: 30)
        #expect(!fifo.timedOut)
        #expect(RunResult(stdout: fifo.stdout, stderr: fifo.stderr, status: fifo.status) == refusal("into something that is not a regular file"))
        #expect(fileType(html) == S_IFIFO)
        // A regular file there is replaced, as always.
        try FileManager.default.removeItem(atPath: html)
        try Data("old report".utf8).write(to: URL(fileURLWithPath: html))
        #expect(try obsreplay(["report", journal]) == RunResult(stdout: html + "\n", stderr: "", status: 0))
        #expect(try String(contentsOfFile: html, encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: artifact.path).sorted() == ["demo.html", "demo.sqlite"])
    }

    /// Issue 27 §6: in a directory anyone may write, a symlink another user planted under
    /// the name given to `-o` made `export` overwrite the link's target, whatever the
    /// machine's `protected_symlinks`. Refused for a link (or a FIFO) owned by neither the
    /// user nor the directory's owner; the user's own link is still followed. Needs root
    /// to give the planted link another owner.
    @Test(.tags(.childProcess)) func aSymlinkAnotherUserPlantedInASharedDirectoryIsNotFollowed() throws {
        guard geteuid() == 0 else {
            try Test.cancel("needs root, to make a symlink owned by another user")
        }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = try demoJournal(in: directory)
        let shared = directory.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: false)
        #expect(chmod(shared.path, 0o1777) == 0)
        let victim = directory.appendingPathComponent("victim.txt").path
        try Data("mine".utf8).write(to: URL(fileURLWithPath: victim))
        let planted = shared.appendingPathComponent("out.csv").path
        try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: victim)
        #expect(lchown(planted, 65534, 65534) == 0)
        #expect(try obsreplay(["export", journal, "--what", "events", "--format", "csv", "-o", planted]) == RunResult(
            stdout: "", stderr: "error: \(planted): refusing to write the export through a symlink \(planted) owned by uid 65534 in \(shared.path), which anyone may write\n", status: 2
        ))
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "mine")
        // A chain: the user's own link to the planted one.
        let mine = shared.appendingPathComponent("mine.csv").path
        try FileManager.default.createSymbolicLink(atPath: mine, withDestinationPath: "out.csv")
        #expect(try obsreplay(["export", journal, "--what", "events", "--format", "csv", "-o", mine]).status == 2)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "mine")
        // A FIFO planted so is refused too (writing into it would feed another user's reader).
        let fifo = shared.appendingPathComponent("fifo.csv").path
        #expect(mkfifo(fifo, 0o666) == 0 && lchown(fifo, 65534, 65534) == 0)
        #expect(try obsreplay(["report", journal, "-o", fifo]).stderr
            == "error: \(fifo): refusing to write the report through a FIFO \(fifo) owned by uid 65534 in \(shared.path), which anyone may write\n")
        // The user's own link in the shared directory is followed, as before.
        try FileManager.default.removeItem(atPath: mine)
        try FileManager.default.createSymbolicLink(atPath: mine, withDestinationPath: victim)
        #expect(try obsreplay(["export", journal, "--what", "events", "--format", "csv", "-o", mine]).status == 0)
        #expect(try String(contentsOfFile: victim, encoding: .utf8).hasPrefix("session_id,seq"))
    }

    /// Issue 27 §8: `report -o`/`export -o` stopped by SIGTERM or SIGHUP (a CI timeout, a
    /// closed terminal) left `.NAME.tmp-PID-RANDOM`, megabytes each. Each signal now
    /// removes it, and the process still ends by that signal. The command is caught while
    /// its temporary file exists: an export of findings over many sessions takes seconds.
    @Test(.tags(.childProcess, .slow)) func anOutputStoppedBySignalLeavesNoTemporaryFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = try demoJournal(in: directory)
        try JournalFixture.edit(journal, """
            WITH RECURSIVE n(i) AS (SELECT 3 UNION ALL SELECT i + 1 FROM n WHERE i < 60000)
            INSERT INTO sessions (id, label, process, pid, host, started_at, start_ns, ended_at, clean_end, library_version)
            SELECT i, 'idle', 'App', 1, 'h', '2025-01-01T10:00:00Z', 0, NULL, 0, '0.1.0' FROM n
            """)
        let outputs = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: false)
        for (signalNumber, arguments) in [
            (SIGTERM, ["export", journal, "--what", "findings", "--format", "csv", "-o", outputs.appendingPathComponent("f.csv").path]),
            (SIGHUP, ["export", journal, "--what", "findings", "--format", "jsonl", "-o", outputs.appendingPathComponent("f.jsonl").path]),
            (SIGINT, ["report", journal, "--all", "-o", outputs.appendingPathComponent("r.html").path]),
        ] {
            let pid = try spawnWithDefaultSignals(try obsreplayBinary().path, arguments)
            // Caught once its temporary file is there (or given up after 60 s).
            let deadline = Date().addingTimeInterval(60)
            var caught = false, status: Int32 = 0, ended = false
            while !ended && Date() < deadline {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: outputs.path)) ?? []
                if names.contains(where: { $0.contains(".tmp-\(pid)-") }) {
                    kill(pid, signalNumber)
                    caught = true
                    break
                }
                ended = waitpid(pid, &status, WNOHANG) == pid
                usleep(2_000)
            }
            if !ended { waitpid(pid, &status, 0) }
            #expect(caught, "\(arguments[0]) ended before its temporary file was seen")
            // Ended by the signal itself (WIFSIGNALED, WTERMSIG): a shell sees what it sent.
            if caught { #expect(status & 0x7F == signalNumber, "status \(status)") }
            // No temporary file is left; the output itself may be whole if the command had
            // just finished when the signal came.
            #expect(try FileManager.default.contentsOfDirectory(atPath: outputs.path).filter { $0.contains(".tmp-") } == [], "signal \(signalNumber)")
        }
    }

    /// Issue 27 §8, the other half: a writer that died without cleaning up (SIGKILL, a
    /// crash) left its temporary file; the next output written in that directory removes
    /// it, and only it: the name's PID must be gone, the file regular and the user's.
    @Test(.tags(.childProcess)) func theNextOutputRemovesTheTemporaryFilesOfDeadWriters() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = try demoJournal(in: directory)
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let dead = gone.processIdentifier
        let litter = ".report.html.tmp-\(dead)-1a2b3c4d"
        let kept = [".live.csv.tmp-\(getpid())-ff", ".odd.csv.tmp-\(dead)-xyz", "notes.tmp-\(dead)-1", ".link.csv.tmp-\(dead)-2"]
        for name in [litter] + kept.dropLast() {
            try Data("partial".utf8).write(to: directory.appendingPathComponent(name))
        }
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent(kept.last!).path, withDestinationPath: "demo.sqlite")
        let out = directory.appendingPathComponent("out.csv").path
        #expect(try obsreplay(["export", journal, "--what", "registrations", "--format", "csv", "-o", out]).status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!names.contains(litter))
        #expect(Set(kept).isSubset(of: Set(names)))
        #expect(OutputFile.temporaryFilePID(litter) == dead && OutputFile.temporaryFilePID(".a.tmp-12-123456789") == nil)
    }

    @Test(.tags(.childProcess)) func csvAndJSONLinesToATerminalShowEscapesAndPipesGetExactBytes() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("hostile.sqlite").path
        let fixture = try JournalFixture(path: path)
        let session = try fixture.session(label: "hostile")
        let channel = try session.channel(try session.object("Player"), "title")
        try session.register(channel, owner: try session.object("Screen"), at: "Screen.swift:5")
        try session.post(channel, old: "\u{1B}]0;pwned\u{07}", new: "\u{1B}[2J\u{9B}31m\u{202E}cba", at: "Player.swift:60")
        try fixture.finish()

        let piped = try obsreplay(["export", path, "--what", "events", "--format", "csv"])
        #expect(piped.status == 0 && piped.stdout.contains("\u{1B}[2J\u{9B}31m\u{202E}cba"))

        let terminal = try PseudoTerminal()
        let csv = try obsreplay(["export", path, "--what", "events", "--format", "csv", "-o", terminal.devicePath])
        let shown = terminal.readAvailable()
        #expect(csv == RunResult(stdout: "", stderr: "", status: 0))
        #expect(shown.contains("\\u{1B}[2J\\u{9B}31m\\u{202E}cba") && shown.contains("\\u{1B}]0;pwned\\u{7}"))
        #expect(!shown.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{9B}" || $0 == "\u{202E}" })
        #expect(shown.hasPrefix("session_id,seq,") && shown.contains("\r\n"))

        let jsonl = try obsreplay(["export", path, "--what", "events", "--format", "jsonl", "-o", terminal.devicePath])
        let shownJSON = terminal.readAvailable()
        #expect(jsonl.status == 0)
        #expect(shownJSON.contains(#""new_value":"\u001b[2J\u009b31m\u202ecba""#))
        withExtendedLifetime(fixture) {}
    }
}

/// Bytes a reader thread received, and whether it finished.
private final class ReceivedBytes: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes = Data()
    private var finished = false
    func set(_ data: Data) {
        lock.lock()
        bytes = data
        finished = true
        lock.unlock()
    }
    var done: Bool { lock.lock(); defer { lock.unlock() }; return finished }
    var data: Data { lock.lock(); defer { lock.unlock() }; return bytes }
}

/// A pseudo-terminal in raw mode: `devicePath` is the terminal a command writes to,
/// `readAvailable()` what it showed.
private final class PseudoTerminal {
    let master: Int32
    let devicePath: String
    private let device: Int32

    init() throws {
        // posix_openpt and friends are not in Swift's Glibc module: the Linux ioctls.
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431 /* TIOCSPTLCK */, &unlock) == 0,
            ioctl(master, 0x8004_5430 /* TIOCGPTN */, &number) == 0
        else { throw CocoaError(.fileNoSuchFile) }
        devicePath = "/dev/pts/\(number)"
        // Held open so the terminal keeps what is written until it is read, and raw so
        // `\n` is not turned into `\r\n` on the way.
        device = open(devicePath, O_RDWR | O_NOCTTY)
        var attributes = termios()
        tcgetattr(device, &attributes)
        cfmakeraw(&attributes)
        tcsetattr(device, TCSANOW, &attributes)
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(device)
        close(master)
    }

    func readAvailable() -> String {
        var data = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(master, &chunk, chunk.count)
            if count <= 0 { break }
            data.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: data, as: UTF8.self)
    }
}
