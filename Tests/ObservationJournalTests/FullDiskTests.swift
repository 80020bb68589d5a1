import Foundation
@testable import ObservationJournal
import Testing
import TestSupport

/// A real full disk: `JournalStress fill` records long values until the journal cannot
/// grow, then keeps changing values. Two ways to make the disk full: a process file-size
/// limit (`RLIMIT_FSZ`, `SIGXFSZ` ignored: writes fail with `EFBIG`), which works for
/// anyone, and a 512 KiB tmpfs (`ENOSPC`), when this process may mount one.
///
/// Either way the app must hear of the error and go on delivering every change, the
/// counters must add up to what the file holds, and the journal must pass
/// `integrity_check` with a gap-free prefix of the session.
@Suite(.skippedWhenQuick, .tags(.slow)) struct FullDiskTests {
    /// What `JournalStress fill` printed.
    struct FillReport: Decodable {
        var session: Int64
        var accepted: Int
        var written: Int
        var dropped: Int
        var unwritten: Int
        var changes: Int
        var delivered: Int
        var error: String
    }

    static func fill(_ path: String, maxFileBytes: Int? = nil) throws -> FillReport {
        let helper = try CrashSafetyTests.helperPath("JournalStress")
        let output = try run(helper, ["fill", path] + (maxFileBytes.map { [String($0)] } ?? []))
        return try JSONDecoder().decode(FillReport.self, from: Data(output.utf8))
    }

    /// The checks both ways share; `path` is a journal nobody writes any more.
    func check(_ report: FillReport, journal path: String) throws {
        #expect(report.error.contains("SQLITE_FULL") || report.error.contains("SQLITE_IOERR"), "error: \(report.error)")
        // Every change reached its observer, before and after recording stopped.
        #expect(report.delivered == report.changes)
        #expect(report.written > 0)
        #expect(report.unwritten > 0)
        #expect(report.dropped == 0)
        #expect(report.accepted == report.written + report.unwritten)
        #expect(try rows(path, "PRAGMA integrity_check") == ["ok"])
        #expect(try rows(path, "SELECT count(*), coalesce(max(seq), 0), min(seq) FROM events WHERE session_id = \(report.session)")
            == ["\(report.written)|\(report.written)|1"])
        #expect(try rows(path, "SELECT clean_end, ended_at FROM sessions WHERE id = \(report.session)") == ["0|NULL"])
    }

    /// One limit by default; `JOURNAL_FULL_DISK_TRIALS=N` tries N limits from 64 KiB to
    /// 8 MiB above the new journal's size.
    @Test(.tags(.childProcess)) func fileSizeLimitStopsRecordingNotTheApp() throws {
        let trials = ProcessInfo.processInfo.environment["JOURNAL_FULL_DISK_TRIALS"].flatMap(Int.init) ?? 1
        let scratch = try ScratchDirectory()
        var totals = (written: 0, unwritten: 0, delivered: 0)
        for trial in 1...trials {
            let path = scratch.path("journal-\(trial).sqlite")
            _ = try Journal.open(path: path)
            let size = try #require(bytes(path)).count
            let headroom = trials == 1 ? 256 * 1024 : 64 * 1024 + (8 * 1024 * 1024 - 64 * 1024) * (trial - 1) / (trials - 1)
            let report = try Self.fill(path, maxFileBytes: size + headroom)
            try check(report, journal: path)
            totals.written += report.written
            totals.unwritten += report.unwritten
            totals.delivered += report.delivered
            // The disk has room again: the journal takes a new session.
            let next = try Journal.open(path: path).startSession(label: "after")
            next.registry.beginScope("s").end()
            next.close()
            #expect(try rows(path, "SELECT clean_end, events FROM session_summary WHERE id = \(next.sessionID)") == ["1|2"])
            #expect(try eventsAreGapFree(path))
        }
        if ProcessInfo.processInfo.environment["RELIABILITY_FIGURES"] != nil {
            print("full disk (RLIMIT_FSZ): \(trials) limits, every error reached the app; \(totals.written) events written, \(totals.unwritten) counted unwritten, \(totals.delivered) deliveries, 0 lost")
        }
    }

    /// Whether this process may mount a tmpfs (root, or a user namespace allowing it).
    static let canMountTmpfs: Bool = {
        guard let scratch = try? ScratchDirectory("tmpfs-probe") else { return false }
        let probe = scratch.directory
        guard (try? run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe])) != nil
        else { return false }
        _ = try? run("/bin/umount", [probe])
        return true
    }()

    @Test(.tags(.childProcess), .enabled(if: canMountTmpfs, "needs permission to mount a tmpfs"))
    func fullTmpfsStopsRecordingNotTheApp() throws {
        let scratch = try ScratchDirectory()
        let disk = scratch.path("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        try run("/bin/mount", ["-t", "tmpfs", "-o", "size=512k", "tmpfs", disk])
        defer { _ = try? run("/bin/umount", [disk]) }
        let path = disk + "/journal.sqlite"
        let report = try Self.fill(path)
        // Read a copy: a reader may need to create a -shm, for which a full tmpfs has no room.
        let copy = scratch.path("copy.sqlite")
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix)
        }
        try check(report, journal: copy)
        // A new session on the full disk fails to start with an error, not a crash.
        #expect(throws: JournalError.self) {
            let session = try Journal.open(path: path).startSession(label: "no room")
            for number in 0..<100_000 { session.registry.beginScope("\(number) \(String(repeating: "x", count: 100))").end() }
            session.flush()
            if let error = session.lastError { throw error }
        }
    }
}
