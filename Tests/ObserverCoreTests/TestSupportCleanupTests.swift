import Foundation
import Testing
import TestSupport

// The shared test helpers leave nothing behind: a scratch directory goes with its object
// or its closure, and a child process's temporary files land in the scratch root, which
// the process removes when it exits (`.ci/run` checks the whole suite leaves `TMPDIR` empty).

private func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

/// Whether `url` is directly inside the scratch root.
private func isInScratchRoot(_ url: URL) -> Bool {
    url.deletingLastPathComponent().standardizedFileURL.path == ScratchDirectory.processRoot.standardizedFileURL.path
}

@Suite struct TestSupportCleanupTests {
    @Test func aScratchDirectoryIsRemovedWithItsObject() throws {
        var url: URL?
        do {
            let scratch = try ScratchDirectory("cleanup")
            try Data("x".utf8).write(to: scratch.appendingPathComponent("file"))
            try FileManager.default.createDirectory(at: scratch.appendingPathComponent("nested/deeper"), withIntermediateDirectories: true)
            url = scratch.url
            #expect(exists(scratch.url))
            #expect(isInScratchRoot(scratch.url))
        }
        #expect(!exists(try #require(url)))
    }

    @Test func withScratchDirectoryRemovesItAfterReturningAndAfterThrowing() throws {
        let returned = try withScratchDirectory { scratch in
            try Data("x".utf8).write(to: scratch.appendingPathComponent("file"))
            return scratch.url
        }
        #expect(!exists(returned))
        struct Planned: Error {}
        var thrown: URL?
        #expect(throws: Planned.self) {
            try withScratchDirectory { scratch in
                thrown = scratch.url
                throw Planned()
            }
        }
        #expect(!exists(try #require(thrown)))
    }

    @Test func temporaryDirectoriesLiveUnderTheScratchRoot() throws {
        let url = try temporaryDirectory("cleanup")
        #expect(isInScratchRoot(url))
        #expect(exists(url))
        try FileManager.default.removeItem(at: url)
    }

    @Test(.tags(.childProcess)) func aChildsTemporaryFilesLandInTheScratchRoot() throws {
        let result = try ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "f=$(mktemp); echo \"$f\"; rm \"$f\"; echo err >&2; exit 3"]
        )
        #expect(result.status == 3)
        #expect(result.stderr == "err\n")
        let made = URL(fileURLWithPath: result.stdout.trimmingCharacters(in: .newlines))
        #expect(isInScratchRoot(made))
    }

    @Test(.tags(.childProcess)) func aChildPastItsTimeLimitIsKilled() throws {
        let result = try ChildProcess.run(URL(fileURLWithPath: "/bin/sleep"), ["30"], timeout: 0.5)
        #expect(result.timedOut)
        #expect(result.signalled)
        #expect(result.status == SIGKILL)
    }

    @Test func splitMix64IsTheSameSequenceEveryRun() {
        var generator = SplitMix64(state: 42)
        #expect((0..<3).map { _ in generator.next() } == [
            13_679_457_532_755_275_413, 2_949_826_092_126_892_291, 5_139_283_748_462_763_858,
        ])
    }
}
