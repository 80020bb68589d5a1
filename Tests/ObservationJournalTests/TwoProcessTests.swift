import Foundation
@testable import ObservationJournal
import Testing
import TestSupport

/// Two processes record into the same journal file at once: each writes its batches in
/// `BEGIN IMMEDIATE` transactions and waits (busy timeout) for the other's, so both
/// sessions end cleanly with every event, numbered 1…k on their own.
@Suite(.skippedWhenQuick, .tags(.slow)) struct TwoProcessTests {
    struct RecordReport: Decodable {
        var session: Int64
        var accepted: Int
        var written: Int
        var dropped: Int
        var unwritten: Int
        var delivered: Int
        var error: String
    }

    @Test(.tags(.childProcess)) func twoProcessesRecordIntoOneFileWithoutLosingAnEvent() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        _ = try Journal.open(path: path)
        let helper = try CrashSafetyTests.helperPath("JournalStress")
        let changes = 20_000
        // Started together, each with two recording threads: their batches interleave.
        let reports = try [0, 1].map { index in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: helper)
            process.arguments = ["record", path, "process \(index)", String(changes)]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            return (process, output)
        }.map { process, output in
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            return try JSONDecoder().decode(RecordReport.self, from: data)
        }
        // Per process: 2 threads × (1 registration × 3 owners + changes × (1 change + 3
        // deliveries) + 3 removals) and a tick notification every 50 changes.
        let expected = 2 * (3 + changes * 4 + 3 + changes / 50)
        for report in reports {
            #expect(report.error == "")
            #expect(report.delivered == 2 * 3 * changes)
            #expect(report.accepted == expected)
            #expect(report.written == expected)
            #expect(report.unwritten == 0 && report.dropped == 0)
        }
        #expect(try rows(path, "PRAGMA integrity_check") == ["ok"])
        #expect(try rows(path, "SELECT label, events, clean_end FROM session_summary ORDER BY label")
            == ["process 0|\(expected)|1", "process 1|\(expected)|1"])
        #expect(try eventsAreGapFree(path))
        // The two sessions really recorded at the same time (CLOCK_MONOTONIC is the same
        // clock in both processes): the later start comes before the earlier end.
        #expect(try scalar(path, """
            SELECT max(start_ns) < min(start_ns + (SELECT max(time_ns) FROM events e WHERE e.session_id = s.id))
            FROM sessions s
            """) == 1)
    }
}
