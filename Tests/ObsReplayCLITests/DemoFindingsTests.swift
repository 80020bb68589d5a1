import Foundation
import JournalAnalysis
import ObsReplayCLI
import DemoApps
import Testing
import TestSupport

// The diagnosis of every demo app and variant, recorded through the demo's own
// library calls. Under `swift test` no code runs on the main thread, so the scenarios
// claim nothing about it and off-main-delivery cannot fire here; the demo binary runs
// them on the main thread (see DemoCommandTests, which expects it there too).

/// A finding as the tests compare it: everything but the fix, call sites' line numbers
/// replaced by `#` so editing a scenario's file does not break the expectation.
struct FindingShape: Equatable, CustomStringConvertible {
    var code: String
    var severity: String
    var message: String
    var evidence: [String]

    init(code: String, severity: String, message: String, evidence: [String]) {
        self.code = code
        self.severity = severity
        self.message = message
        self.evidence = evidence
    }

    init(_ finding: Finding) {
        self.init(
            code: finding.rule.code, severity: finding.severity.rawValue, message: Self.normalized(finding.message),
            evidence: finding.evidence.map(Self.normalized)
        )
    }

    /// `File.swift:42` → `File.swift:#`.
    static func normalized(_ text: String) -> String {
        text.replacingOccurrences(of: #"\.swift:[0-9]+"#, with: ".swift:#", options: .regularExpression)
    }

    var description: String { "\(severity)[\(code)] \(message) \(evidence)" }
}

/// What each buggy variant must be diagnosed with, recorded on the main thread (as
/// `obsreplay demo` does). Every fixed variant, and the upload in both, has no findings.
let expectedOnMain: [String: [FindingShape]] = [
    "music-player/buggy": [
        FindingShape(
            code: "OJ001", severity: "error",
            message: "3 owners assigned Player#1.isPlayingChanged; MiniPlayerWindow#2 (MusicPlayerScenario.swift:#) was replaced at seq 2 while alive and missed 4 changes.",
            evidence: [
                "seq 1: MiniPlayerWindow#2 assigned Player#1.isPlayingChanged at MusicPlayerScenario.swift:#",
                "seq 2: NowPlayingScreen#3 assigned it at MusicPlayerScenario.swift:#, replacing MiniPlayerWindow#2's callback while MiniPlayerWindow#2 was alive",
                "MiniPlayerWindow#2 missed the changes at seqs 4, 6, 8, 10",
                "MiniPlayerWindow#2 was not seen deallocated before the session ended",
            ]
        ),
        FindingShape(
            code: "OJ001", severity: "error",
            message: "3 owners assigned Player#1.isPlayingChanged; NowPlayingScreen#3 (MusicPlayerScenario.swift:#) was replaced at seq 3 while alive and missed 4 changes.",
            evidence: [
                "seq 2: NowPlayingScreen#3 assigned Player#1.isPlayingChanged at MusicPlayerScenario.swift:#",
                "seq 3: SongListScreen#4 assigned it at MusicPlayerScenario.swift:#, replacing NowPlayingScreen#3's callback while NowPlayingScreen#3 was alive",
                "NowPlayingScreen#3 missed the changes at seqs 4, 6, 8, 10",
                "NowPlayingScreen#3 was not seen deallocated before the session ended",
            ]
        ),
        FindingShape(
            code: "OJ012", severity: "info",
            message: "Player#1.isPlayingChanged changed once with nobody to tell, although 2 owners had registered on it and never asked to stop (first at seq 10).",
            evidence: [
                "seq 10: first change that reached nobody",
                "seq 3: the last registration before it, NowPlayingScreen#3's (MusicPlayerScenario.swift:#), ended without its owner asking (replaced)",
            ]
        ),
    ],
    "video-toolbar/buggy": [
        FindingShape(
            code: "OJ004", severity: "warning",
            message: "VideoPlayerScreen#1's registration on *.handleSingleTap (VideoToolbarScenario.swift:#) outlived scope \"VideoPlayerScreen visible\" (ended at seq 16) and was delivered once after it.",
            evidence: [
                "seq 2: VideoPlayerScreen#1 registered *.handleSingleTap at VideoToolbarScenario.swift:# for scope \"VideoPlayerScreen visible\"",
                "seq 16: the scope ended while the registration was live",
                "seq 18: first of 1 delivery after the scope ended",
                "seq 21: removed at last",
            ]
        ),
        FindingShape(
            code: "OJ004", severity: "warning",
            message: "VideoPlayerScreen#1's registration on ToolbarContainer#3.hidden (VideoToolbarScenario.swift:#) outlived scope \"VideoPlayerScreen visible\" (ended at seq 16) and was delivered once after it.",
            evidence: [
                "seq 4: VideoPlayerScreen#1 registered ToolbarContainer#3.hidden at VideoToolbarScenario.swift:# for scope \"VideoPlayerScreen visible\"",
                "seq 16: the scope ended while the registration was live",
                "seq 20: first of 1 delivery after the scope ended",
                "seq 22: removed at last",
            ]
        ),
        FindingShape(
            code: "OJ008", severity: "error",
            message: "VideoPlayerScreen#1's callback on ToolbarContainer#3.hidden (VideoToolbarScenario.swift:#) expects the main thread but ran once on thread 2 (first at seq 15).",
            evidence: [
                "seq 4: VideoPlayerScreen#1 registered at VideoToolbarScenario.swift:# and declared it expects the main thread",
                "seq 15: delivered on thread 2, not the main thread",
            ]
        ),
    ],
    "stretchy-header/buggy": [
        FindingShape(
            code: "OJ005", severity: "warning",
            message: "StretchyHeaderView#2 observed ScrollView#1.contenOffset (StretchyHeaderScenario.swift:#), which was never posted; ScrollView posted \"contentOffset\", 1 edit away: a typo?",
            evidence: [
                "seq 2: StretchyHeaderView#2 registered ScrollView#1.contenOffset at StretchyHeaderScenario.swift:#",
                "seq 3: ScrollView#1.contentOffset was posted (5 times in all)",
            ]
        ),
        FindingShape(
            code: "OJ003", severity: "warning",
            message: "Removal at StretchyHeaderScenario.swift:# in deinit (seq 16) matched no live registration: StretchyHeaderView#2's registration on ScrollView#3.contentOffset was already removed at seq 15 (explicit, at StretchyHeaderScenario.swift:# in removeFromSuperview()).",
            evidence: [
                "seq 16: removal requested at StretchyHeaderScenario.swift:# in deinit for StretchyHeaderView#2",
                "seq 10: registered at StretchyHeaderScenario.swift:#",
                "seq 15: removed (explicit, at StretchyHeaderScenario.swift:# in removeFromSuperview())",
            ]
        ),
    ],
    "scoreboard-tracking/buggy": [
        FindingShape(
            code: "OJ015", severity: "warning",
            message: "ScoreLabel#1's withObservationTracking at ScoreboardTrackingScenario.swift:# read no observable property (once, first at seq 1): its onChange can never run.",
            evidence: [
                "seq 1: armed at ScoreboardTrackingScenario.swift:#, tracking nothing",
            ]
        ),
    ],
]

/// The same off the main thread: nothing claims the main thread, so no off-main-delivery.
func expectedOffMain(_ label: String) -> [FindingShape] {
    (expectedOnMain[label] ?? []).filter { $0.code != Rule.offMainDelivery.code }
}

let demoLabels: [String] = DemoApp.all.flatMap { scenario in
    ScenarioVariant.allCases.map { "\(scenario.name)/\($0.rawValue)" }
}

@Test(arguments: demoLabels)
func eachScenarioVariantIsDiagnosedExactly(_ text: String) throws {
    let label = try #require(DemoLabel(label: text))
    let path = try temporaryDirectory().appendingPathComponent("demo.sqlite").path
    try DemoRecorder.record([label], at: path)
    let outcome = try DemoOutcome.read(path: path)
    let session = try #require(outcome.sessions.first)
    #expect(outcome.sessions.count == 1)
    #expect(session.label == label)
    #expect(session.summary.cleanEnd)
    #expect(session.findings.map(FindingShape.init) == expectedOffMain(text))
    // The fixed variants and the upload in both are clean: nothing at warning or above.
    if label.variant == .fixed || label.scenario.name == "upload-progress" {
        #expect(session.problems.isEmpty)
    }
}
