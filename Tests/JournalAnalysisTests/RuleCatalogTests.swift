@testable import JournalAnalysis
import Testing

// The catalog is one list of checkers; every list of rules derives from it.

@Test func catalogListsEachRuleOnceInCodeOrder() {
    #expect(Rule.allCases.map(\.code) == (1...18).map { "OJ" + String(repeating: "0", count: $0 < 10 ? 2 : 1) + String($0) })
    #expect(Set(Rule.allCases.map(\.name)).count == Rule.allCases.count)
    #expect(Rule.allCases.map(\.name) == [
        "last-callback-wins", "duplicate-registration", "remove-unregistered", "leaked-registration",
        "never-posted-key", "delivery-after-owner-gone", "redundant-change", "off-main-delivery", "feedback-loop",
        "slow-callback", "unclean-session", "silent-change", "subject-replaced", "first-change-only",
        "tracking-reads-nothing", "tracking-rearmed-off-writer", "tracking-rearmed-before-write",
        "sender-filter-never-matched",
    ])
    // The diagnoser runs exactly the catalog's checkers, each deciding its own rule.
    #expect(RuleCheckers().all.map { type(of: $0).rule } == Rule.allCases)
    #expect(Rule.lastCallbackWins == LastCallbackWinsChecker.rule)
    #expect(Rule.subjectReplaced.code == "OJ013")
    #expect(Rule.firstChangeOnly.code == "OJ014")
    #expect(Rule.trackingReadsNothing.code == "OJ015")
    #expect(Rule.trackingRearmedOffWriter.code == "OJ016")
    #expect(Rule.trackingRearmedBeforeWrite.code == "OJ017")
    #expect(Rule.senderFilterNeverMatched.code == "OJ018")
}

@Test func rulesAreFoundByCodeInAnyCaseOrByName() {
    #expect(Rule(codeOrName: "oj004") == .leakedRegistration)
    #expect(Rule(codeOrName: "OJ012") == .silentChange)
    #expect(Rule(codeOrName: "feedback-loop") == .feedbackLoop)
    #expect(Rule(codeOrName: "Feedback-Loop") == .feedbackLoop)
    #expect(Rule(codeOrName: "OJ019") == nil)
    #expect(Rule(codeOrName: "feedbackLoop") == nil)
}

@Test func explanationIsHeaderSummaryDetailsAndFix() {
    #expect(Rule.redundantChange.explanation == """
        OJ007 redundant-change (info)

        Changes whose old and new values were equal were delivered to callbacks.

        Changes whose old and new values were equal (compared as recorded text) were
        delivered to callbacks that then did work for nothing. Prior notifications are not
        counted.

        Fix: Register with .onlyWhenChanged, or do not post when the value did not change.

        """)
    #expect(Rule.slowCallback.severities == [.warning, .info])
    #expect(Rule.slowCallback.description == "OJ010 slow-callback")
}
