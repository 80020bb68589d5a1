import FieldCorpus
import Foundation
import JournalAnalysis
import Testing
import TestSupport

// Each app variant runs in its own FieldCorpusRunner process, its steps played on the
// process's main queue under `RunLoop.main.run()` (and, for apps that touch the main
// queue, `dispatchMain()` too), recorded into a fresh journal and diagnosed through the
// library, as `obsreplay diagnose` would.

@Test(.skippedWhenQuick, .tags(.slow, .childProcess), arguments: FieldRun.all)
func fieldAppIsDiagnosedExactly(_ run: FieldRun) throws {
    let findings = try run.diagnose()
    let problems = findings.filter { $0.severity >= .warning }
    switch run.variant {
    case .correct:
        #expect(problems.map(describe) == [], "\(run)")
    case .buggy:
        let expected = try #require(expectedFindings[run.app])
        // Exactly the expected codes at warning or above, each expectation matched by its
        // own finding.
        let expectedProblems = expected.filter { $0.severity >= .warning }
        #expect(
            problems.map(\.rule.code).sorted() == expectedProblems.map(\.code).sorted(),
            "\(run): \(findings.map(describe))"
        )
        var unmatched = findings
        for expectation in expected {
            if let index = unmatched.firstIndex(where: expectation.matches) {
                unmatched.remove(at: index)
            } else {
                Issue.record("\(run): no finding \(expectation) among \(findings.map(describe))")
            }
        }
    }
}

@Test func everyAppHasExpectationsMatchingItsDeclaredCodes() {
    for app in FieldApp.all {
        let expected = expectedFindings[app.name] ?? []
        #expect(Set(expected.map(\.code)) == Set(app.expectedCodes), "\(app.name)")
        for site in expected.flatMap(\.sites) {
            #expect(SiteMarkers.sites[site] != nil, "\(app.name): no `// [site:\(site)]` marker")
        }
    }
    #expect(FieldApp.all.count >= 20)
    #expect(Set(FieldApp.all.map(\.name)).count == FieldApp.all.count)
}

@Test(.tags(.childProcess)) func runnerListsEveryAppWithItsCodesAndMainLoops() throws {
    let result = try runRunner(["--list"])
    #expect(result.status == 0)
    let lines = result.output.split(separator: "\n").map(String.init)
    #expect(lines == FieldApp.all.map { app in
        "\(app.name)\t\(app.expectedCodes.joined(separator: ","))\t\(app.mainLoops.map(\.rawValue).joined(separator: ","))"
    })
}

@Test(.tags(.childProcess), arguments: [["chat-unread-badge", "buggy"], ["no-such-app", "buggy", "x.sqlite"], ["chat-unread-badge", "fixed", "x.sqlite"],
                  ["chat-unread-badge", "buggy", "x.sqlite", "--main-loop", "cfrunloop"]])
func runnerRejectsBadArgumentsWithUsage(_ arguments: [String]) throws {
    let result = try runRunner(arguments)
    #expect(result.status == 2)
    #expect(result.error.hasPrefix("FieldCorpusRunner: usage: FieldCorpusRunner "))
    #expect(!FileManager.default.fileExists(atPath: "x.sqlite"))
}

@Test(.tags(.childProcess)) func runnerReportsAJournalItCannotOpenInOneLine() throws {
    let scratch = try ScratchDirectory("field-corpus-missing")
    let missing = scratch.path("absent/journal.sqlite")
    let result = try runRunner(["chat-unread-badge", "buggy", missing])
    #expect(result.status == 1)
    #expect(result.error.hasPrefix("FieldCorpusRunner: "))
    #expect(result.error.split(separator: "\n").count == 1)
    #expect(!FileManager.default.fileExists(atPath: missing))
}
