import Foundation
@testable import JournalAnalysis
import Testing
import TestSupport

// Issue 11 points 2 and 3, on real recordings: `MainLoopProbe` runs a small program under
// a real Linux main loop in a child process (under `swift test` no code runs on the main
// thread) and records it; the verdicts are read back here.

/// Runs the probe in `mode`, returns its journal's findings and delivered events, and
/// removes the journal.
private func probe(_ mode: String) throws -> (findings: [Finding], deliveries: [EventRow]) {
    let scratch = try ScratchDirectory("main-loop-probe")
    let path = scratch.path("probe.sqlite")
    // The time limit guards the suite against a probe that never reaches its end.
    let result = try ChildProcess.run(try ChildProcess.built("MainLoopProbe"), [mode, path], timeout: 120)
    try #require(result.status == 0 && !result.signalled, "MainLoopProbe \(mode): \(result)")
    let reader = try JournalReader(path: path)
    let session = try reader.session(nil)
    var deliveries: [EventRow] = []
    try reader.forEachEvent(session: session.id, filter: EventFilter(kinds: [.delivered])) { event in
        deliveries.append(event)
        return true
    }
    return (try Diagnoser.diagnose(reader, session: session), deliveries)
}

@Test(.tags(.childProcess)) func queueMainUnderRunLoopMainRunIsOnMain() throws {
    let run = try probe("runloop")
    #expect(run.deliveries.count == 20)
    // The main thread drains the main queue here.
    #expect(run.deliveries.allSatisfy { $0.isMain && $0.isMainQueue == true })
    #expect(run.findings.filter { $0.severity >= .warning }.map(\.rule) == [])
}

@Test(.tags(.childProcess)) func queueMainUnderDispatchMainIsOnMainAlthoughNotOnTheMainThread() throws {
    let run = try probe("dispatchmain")
    #expect(run.deliveries.count == 20)
    // What made OJ008 fire on correct code: the main queue runs on another thread.
    #expect(run.deliveries.allSatisfy { !$0.isMain && $0.isMainQueue == true })
    #expect(run.findings.filter { $0.severity >= .warning }.map(\.rule) == [])
}

@Test(.tags(.childProcess)) func aRealOffMainDeliveryUnderDispatchMainIsStillOffMainDelivery() throws {
    let run = try probe("dispatchmain-off-main")
    let offMain = run.findings.filter { $0.rule == .offMainDelivery }
    #expect(offMain.map(\.owners) == [["Logger#3"]])
    #expect(offMain.map(\.count) == [20])
    #expect(offMain.first?.callSites == ["MainLoopProbe/MainLoopProbe.swift:102"])
}

// 20 runs of a correct program: tiny callbacks on background threads and on the main
// queue while two threads burn CPU. Wall time can cross the budget when a thread is
// preempted; no run may get a warning for it.
@Test(.tags(.childProcess)) func tinyCallbacksUnderCPULoadNeverWarnIn20Runs() throws {
    var warned: [String] = []
    for _ in 0..<20 {
        let run = try probe("background-load")
        #expect(run.deliveries.count == 1_620)
        #expect(run.deliveries.allSatisfy { $0.cpuNs != nil })
        warned += run.findings.filter { $0.severity >= .warning }.map(\.message)
    }
    #expect(warned == [])
}
