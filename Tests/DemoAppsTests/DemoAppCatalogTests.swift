import DemoApps
import Foundation
import Testing

@Test func catalogListsTheFiveScenariosInDemoOrder() {
    #expect(DemoApp.all.map(\.name) == ["music-player", "video-toolbar", "upload-progress", "stretchy-header", "scoreboard-tracking"])
    #expect(DemoApp.all.map(\.sourceFile) == [
        "DemoApps/MusicPlayerScenario.swift", "DemoApps/VideoToolbarScenario.swift", "DemoApps/UploadProgressScenario.swift",
        "DemoApps/StretchyHeaderScenario.swift", "DemoApps/ScoreboardTrackingScenario.swift",
    ])
    #expect(DemoApp.named("video-toolbar")?.name == "video-toolbar")
    #expect(DemoApp.named("video") == nil)
    #expect(ScenarioVariant.allCases.map(\.rawValue) == ["buggy", "fixed"])
}

@Test func summariesAreSingleLinesAndDifferPerVariant() {
    for scenario in DemoApp.all {
        let lines = [scenario.summary, scenario.summary(of: .buggy), scenario.summary(of: .fixed)]
        #expect(lines.allSatisfy { !$0.isEmpty && !$0.contains("\n") }, "\(scenario.name)")
        #expect(scenario.summary(of: .buggy) != scenario.summary(of: .fixed), "\(scenario.name)")
    }
}

/// `obsreplay demo` prints `Sources/<sourceFile>` for a person to open: it must exist.
@Test func sourceFilesArePathsInThePackage() {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    for app in DemoApp.all {
        let path = root.appendingPathComponent("Sources").appendingPathComponent(app.sourceFile).path
        #expect(FileManager.default.fileExists(atPath: path), "\(app.name): \(path)")
    }
}
