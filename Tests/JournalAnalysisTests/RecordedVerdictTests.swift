import Foundation
@testable import JournalAnalysis
import ObservationJournal
import ObserverCore
import Testing
import TestSupport

// Issue 11 points 1, 4, 5 and 6 end to end: small programs written against the public
// API only, recorded through a real journal, then diagnosed.

private final class Player: Sendable {}
private final class Screen {
    let name: String
    var tokens: [ObservationToken] = []
    init(_ name: String) { self.name = name }
}

/// Records `program` into a fresh journal and returns its findings (the journal removed).
private func diagnoseRecording(_ program: (ObserverRegistry) -> Void) throws -> [Finding] {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("app.sqlite").path
    let recording = try Journal.open(path: path).startSession(label: "app")
    program(recording.registry)
    recording.close()
    let reader = try JournalReader(path: path)
    return try Diagnoser.diagnose(reader, session: try reader.session(nil))
}

@Test func theSeedBugRecordedOneOwnerTwoCallSitesIsFound() throws {
    var firstLine = 0, secondLine = 0
    let findings = try diagnoseRecording { registry in
        let player = Player()
        let isPlayingChanged = CallbackProperty<Bool>(subject: player, key: "isPlayingChanged", registry: registry)
        let screen = Screen("player")
        firstLine = #line + 1
        isPlayingChanged.assign(owner: screen) { _, _ in }
        secondLine = #line + 1
        isPlayingChanged.assign(owner: screen) { _, _ in }
        isPlayingChanged.call(true)
        isPlayingChanged.call(false)
        withExtendedLifetime(screen) {}
    }
    let site = "JournalAnalysisTests/RecordedVerdictTests.swift"
    #expect(findings.map(\.rule) == [.lastCallbackWins])
    #expect(findings.first?.callSites == ["\(site):\(firstLine)", "\(site):\(secondLine)"])
    #expect(findings.first?.count == 2)
}

@Test func aRecordedDelegateHandOverIsClean() throws {
    let findings = try diagnoseRecording { registry in
        let player = Player()
        let delegate = CallbackProperty<Int>(subject: player, key: "delegate", registry: registry)
        let list = Screen("list")
        list.tokens.append(delegate.assign(owner: list) { _, _ in })  // viewWillAppear
        delegate.call(1)
        do {
            let detail = Screen("detail")
            detail.tokens.append(delegate.assign(owner: detail) { _, _ in })  // pushed: takes it
            delegate.call(2)
            delegate.call(3)
            list.tokens.append(delegate.assign(owner: list) { _, _ in })  // popped: list re-takes it
        }  // the detail screen is released with its token
        delegate.call(4)
        withExtendedLifetime(list) {}
    }
    #expect(findings.filter { $0.severity >= .warning }.map(\.rule) == [])
}

@Test func aRecordedHandOverThroughScopesIsClean() throws {
    let findings = try diagnoseRecording { registry in
        let player = Player()
        let delegate = CallbackProperty<Int>(subject: player, key: "delegate", registry: registry)
        let list = Screen("list"), settings = Screen("settings")
        let listVisible = registry.beginScope("list visible")
        list.tokens.append(delegate.assign(owner: list, scope: listVisible) { _, _ in })
        delegate.call(1)
        listVisible.end()  // a modal covers the list; both screens stay alive
        let settingsVisible = registry.beginScope("settings visible")
        settings.tokens.append(delegate.assign(owner: settings, scope: settingsVisible) { _, _ in })
        delegate.call(2)
        withExtendedLifetime((list, settings)) {}
    }
    // The settings screen still holds the slot at the end: nothing was lost.
    #expect(findings.filter { $0.severity >= .warning }.map(\.rule) == [])
}

@Test func theRecordedHappyPathAndANoOpCancelAreClean() throws {
    let findings = try diagnoseRecording { registry in
        let player = Player()
        let rate = ObservableValue(1, subject: player, key: "rate", registry: registry)
        var kept: ObservationToken?
        do {
            let screen = Screen("screen")
            screen.tokens.append(rate.observe(owner: screen) { _, _ in })  // released with it
            let chart = Screen("chart")
            kept = rate.observe(owner: chart) { _, _ in }  // the token outlives its owner
            rate.value = 2
        }
        rate.value = 3  // reaches nobody: both owners went away, nobody is silenced
        kept?.cancel()  // the registry had removed it already: a recorded no-op
    }
    #expect(findings.map(\.rule) == [])
}

private final class Document: Sendable {}

@Test func aRecordedObserverLeftOnAReplacedDocumentIsSubjectReplaced() throws {
    var line = 0
    let findings = try diagnoseRecording { registry in
        let editor = Screen("editor")
        var document: Document? = Document()
        let title = ObservableValue("a", subject: document!, key: "title", registry: registry)
        line = #line + 1
        editor.tokens.append(title.observe(owner: editor) { _, _ in })
        title.value = "b"
        // The app opens another document and drops the first; the editor is not told.
        let next = Document()
        let nextTitle = ObservableValue("x", subject: next, key: "title", registry: registry)
        nextTitle.value = "y"
        document = nil
        registry.sweep()  // the registry notices the dead subject while the editor lives
        withExtendedLifetime((editor, next)) {}
    }
    #expect(findings.map(\.rule) == [.subjectReplaced])
    #expect(findings.first?.severity == .info)
    #expect(findings.first?.owners == ["Screen#2", "Document#1", "Document#3"])
    #expect(findings.first?.callSites == ["JournalAnalysisTests/RecordedVerdictTests.swift:\(line)"])
}

/// A player item that owns its observable state, as apps write it.
private final class PlayerItem: @unchecked Sendable {
    var status: ObservableValue<Int>!
    init(registry: ObserverRegistry) {
        status = ObservableValue(0, subject: self, key: "status", registry: registry)
    }
}

@Test func aReplacedItemNobodyTouchesAgainIsSeenDeadAndSubjectReplaced() throws {
    var line = 0
    let findings = try diagnoseRecording { registry in
        var screen: Screen? = Screen("now playing")
        var item = PlayerItem(registry: registry)
        line = #line + 1
        screen!.tokens.append(item.status.observe(owner: screen!) { _, _ in })
        item.status.value = 1
        // The player replaces its item; the old one dies, and nothing is posted on it again.
        item = PlayerItem(registry: registry)
        item.status.value = 1
        item.status.value = 2
        screen = nil  // the screen closes before the session ends: no sweep saw the old item
        withExtendedLifetime(item) {}
    }
    #expect(findings.map(\.rule) == [.subjectReplaced])
    #expect(findings.first?.owners == ["Screen#2", "PlayerItem#1", "PlayerItem#3"])
    #expect(findings.first?.callSites == ["JournalAnalysisTests/RecordedVerdictTests.swift:\(line)"])
    // seq 1 registered, 2-3 changed and delivered, 4 removed (the old item's death, recorded
    // when it died), 5 the new item's first change.
    #expect(findings.first?.seqs == [1, 4, 5])
}

@Test func anObserverThatFollowsTheReplacedItemIsNotSubjectReplaced() throws {
    let findings = try diagnoseRecording { registry in
        var screen: Screen? = Screen("now playing")
        var item = PlayerItem(registry: registry)
        screen!.tokens.append(item.status.observe(owner: screen!) { _, _ in })
        item.status.value = 1
        item = PlayerItem(registry: registry)
        screen!.tokens.append(item.status.observe(owner: screen!) { _, _ in })  // follows the new item
        item.status.value = 1
        screen = nil
        withExtendedLifetime(item) {}
    }
    #expect(findings.map(\.rule) == [])
}
