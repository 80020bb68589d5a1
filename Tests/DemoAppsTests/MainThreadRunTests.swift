import DemoAppRunner
import Foundation
import DemoApps
import Testing
import TestSupport

// Under `swift test` no code runs on the main thread (the main queue is drained by a
// dispatch worker thread), so the stories are run here in a child process whose
// main.swift calls them on the main thread, as `obsreplay demo` will.

/// Output of one run of the runner.
private struct RunnerResult {
    var status: Int32
    var lines: [EventLine]
    var error: String
}

private func runRunner(_ arguments: [String]) throws -> RunnerResult {
    // The runner stops itself when the main queue stalls; the time limit only guards the
    // suite against a runner bug: a hung child is killed and its output fails the test.
    let result = try ChildProcess.run(try ChildProcess.built("DemoAppRunner"), arguments, timeout: 120)
    let lines = try result.stdout.split(separator: "\n").map { line in try #require(EventLine(parsing: line), "\(line)") }
    return RunnerResult(status: result.status, lines: lines, error: result.stderr)
}

private let cases: [(String, ScenarioVariant)] = DemoApp.all.flatMap { scenario in
    ScenarioVariant.allCases.map { (scenario.name, $0) }
}

@Test(.tags(.childProcess), arguments: cases)
func mainThreadRunRecordsTheSameStory(_ name: String, _ variant: ScenarioVariant) throws {
    let onMain = try runRunner([name, variant.rawValue])
    #expect(onMain.status == 0)
    #expect(onMain.error == "")
    let offMain = try ScenarioRecording(name, variant)
    #expect(onMain.lines.map(\.shape) == offMain.shapes)
    // The story ran on the main thread: everything on its thread was on the main thread.
    #expect(onMain.lines.allSatisfy { !$0.onCallingThread || $0.isMainThread })
    #expect(onMain.lines.first?.isMainThread == true)
}

/// Deliveries to registrations that expect the main thread, made elsewhere.
private func offMainDeliveries(_ lines: [EventLine]) -> [EventLine] {
    lines.filter { $0.shape.hasPrefix("delivered ") && $0.expectsMainThread && !$0.isMainThread }
}

@Test(.tags(.childProcess)) func videoToolbarBuggyDeliversOnceOffTheMainThreadWhenRunOnMain() throws {
    let lines = try runRunner(["video-toolbar", "buggy"]).lines
    #expect(lines.filter { $0.shape.hasPrefix("registered ") }.allSatisfy { $0.expectsMainThread })
    #expect(offMainDeliveries(lines).map(\.shape) == ["delivered ToolbarContainer#3.hidden r2 VideoPlayerScreen#1"])
    let autoHide = try #require(lines.firstIndex { $0.shape.hasSuffix("at autoHideControls(_:)") })
    #expect(offMainDeliveries(lines).first == lines[autoHide + 1])
}

@Test(.tags(.childProcess)) func videoToolbarFixedDeliversEverythingOnTheMainThread() throws {
    let lines = try runRunner(["video-toolbar", "fixed"]).lines
    let deliveries = lines.filter { $0.shape.hasPrefix("delivered ") }
    #expect(deliveries.count == 5)
    #expect(deliveries.allSatisfy { $0.expectsMainThread && $0.isMainThread })
    // Posted on the timer's thread, delivered on the main queue.
    let autoHide = try #require(lines.firstIndex { $0.shape.hasSuffix("at autoHideControls(_:)") })
    #expect(!lines[autoHide].isMainThread)
    #expect(lines[autoHide + 1].isMainThread)
}

@Test(.tags(.childProcess), arguments: ScenarioVariant.allCases)
func uploadProgressNeverDeliversOffTheMainThreadItExpects(_ variant: ScenarioVariant) throws {
    let lines = try runRunner(["upload-progress", variant.rawValue]).lines
    let deliveries = lines.filter { $0.shape.hasPrefix("delivered ") }
    #expect(deliveries.count == 4)
    #expect(offMainDeliveries(lines).isEmpty)
    #expect(lines.filter { $0.shape.hasPrefix("changed ") }.allSatisfy { !$0.isMainThread })
    switch variant {
    case .buggy:
        // Called on the upload's threads, claiming nothing about the main thread.
        #expect(deliveries.allSatisfy { !$0.expectsMainThread && !$0.isMainThread })
    case .fixed:
        // Delivered on the main queue, which implies expecting the main thread.
        #expect(deliveries.allSatisfy { $0.expectsMainThread && $0.isMainThread })
    }
}

@Test(.tags(.childProcess)) func runningFromInsideMainQueueWorkFailsInsteadOfHanging() throws {
    let result = try runRunner(["--inside-main-queue-work", "video-toolbar", "fixed"])
    #expect(result.status == 1)
    #expect(result.lines.isEmpty)
    #expect(result.error == "DemoAppRunner: \(ScenarioError.mainQueueNotServiced(scenario: "video-toolbar"))\n")
}

@Test(.tags(.childProcess)) func runnerRejectsUnknownArgumentsWithUsage() throws {
    let result = try runRunner(["video", "buggy"])
    #expect(result.status == 2)
    #expect(result.error.hasPrefix("usage: DemoAppRunner "))
}
