import CSQLite
import Foundation
@testable import ObservationJournal
import Testing
import TestSupport

// The writer's own file handling: side files it did not make are refused, creation
// litter of dead processes is cleaned up, and starting a session never blocks the app's
// thread longer than the busy timeout.

private func contents(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

/// A PID that certainly belonged to a process that has exited.
private func deadPID() throws -> pid_t {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/true")
    try process.run()
    process.waitUntilExit()
    return process.processIdentifier
}

@Suite struct WriterFileSafetyTests {
    @Test(arguments: ["symlink", "hard link", "other owner", "fifo"])
    func plantedWALIsRefusedBeforeOpening(kind: String) throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let journal = try Journal.open(path: path)
        let session = try journal.startSession(label: "mine")
        session.close()
        let before = try contents(path)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))

        let foreign = scratch.path("foreign.sqlite-wal")
        try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: foreign))
        let wal = path + "-wal"
        let reason: String
        switch kind {
        case "symlink":
            try FileManager.default.createSymbolicLink(atPath: wal, withDestinationPath: foreign)
            reason = "it is a symbolic link"
        case "hard link":
            #expect(link(foreign, wal) == 0)
            reason = "it has 2 hard links"
        case "other owner":
            try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: wal))
            // Tests run as root in CI; elsewhere chown fails and this case cannot be made.
            guard chown(wal, 12_345, 12_345) == 0 else { return }
            reason = "it is owned by uid 12345, the journal by uid \(geteuid())"
        default:
            #expect(mkfifo(wal, 0o600) == 0)
            reason = "it is not a regular file"
        }
        let expected = JournalError.unsafeSideFile(path: path, sideFile: wal, reason: reason)
        #expect(throws: expected) { try Journal.open(path: path) }
        // A journal opened before the file was planted refuses to start a session too.
        #expect(throws: expected) { try journal.startSession(label: "after planting") }
        #expect(try contents(path) == before)
        #expect(expected.description == "\(path): refusing to open: side file \(wal) is not the journal owner's own (\(reason)); remove it if it is not yours")
    }

    @Test func ownSideFilesOfALiveSessionAreAccepted() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let journal = try Journal.open(path: path)
        let first = try journal.startSession(label: "first")
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        let second = try Journal.open(path: path).startSession(label: "second")
        second.close()
        first.close()
        #expect(try scalar(path, "SELECT count(*) FROM sessions") == 2)
    }

    @Test(.tags(.childProcess)) func creationLitterOfDeadProcessesIsRemovedOnTheNextOpen() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let dead = try deadPID()
        let litter = ["", "-wal", "-shm", "-journal"].map { "journal.sqlite.new-\(dead)-123\($0)" }
        let kept = [
            "journal.sqlite.new-\(getpid())-5",  // a live creator: ours
            "journal.sqlite.new-\(dead)-x",  // not our pattern
            "journal.sqlite.new-\(dead)-7-log",  // not our pattern
            "other.sqlite.new-\(dead)-1",  // another journal's
        ]
        for name in litter + kept { try Data("x".utf8).write(to: URL(fileURLWithPath: scratch.path(name))) }
        try FileManager.default.createSymbolicLink(
            atPath: scratch.path("journal.sqlite.new-\(dead)-9"), withDestinationPath: scratch.path("other.sqlite.new-\(dead)-1")
        )
        _ = try Journal.open(path: path)
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.directory).sorted()
        #expect(names == (kept + ["journal.sqlite", "journal.sqlite.new-\(dead)-9"]).sorted())
        #expect(CreationLitter.creatorPID("123-456-wal") == 123 && CreationLitter.creatorPID("123-456-wal2") == nil)
    }

    @Test func startSessionWaitsOneBusyTimeoutNotTwelve() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let journal = try Journal.open(path: path, options: .init(busyTimeoutMilliseconds: 200))
        let blocker = try SQLiteDatabase(path: path, mode: .readWrite, busyTimeoutMilliseconds: 0)
        try blocker.execute("BEGIN IMMEDIATE")
        let start = Date()
        #expect(throws: JournalError.busy(path: path, milliseconds: 200)) { try journal.startSession(label: "blocked") }
        // Generous: before, 12 timeouts of 0.2 s; the point is the kind of error above.
        #expect(Date().timeIntervalSince(start) < 10)
        try blocker.execute("ROLLBACK")
        let session = try journal.startSession(label: "free")
        session.close()
        #expect(try scalar(path, "SELECT count(*) FROM sessions") == 1)
    }
}
