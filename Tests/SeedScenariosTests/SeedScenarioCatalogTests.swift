import SeedScenarios
import Testing

@Test func catalogListsTheFourScenariosInDemoOrder() {
    #expect(SeedScenario.all.map(\.name) == ["music-player", "video-toolbar", "upload-progress", "stretchy-header"])
    #expect(SeedScenario.all.map(\.seedFile) == [
        "004_53ec46932cad39c6.txt", "000_ebdaf7ce8330cd4e.txt", "002_493aca8274e69c1a.txt", "002_493aca8274e69c1a.txt",
    ])
    #expect(SeedScenario.named("video-toolbar")?.name == "video-toolbar")
    #expect(SeedScenario.named("video") == nil)
    #expect(ScenarioVariant.allCases.map(\.rawValue) == ["buggy", "fixed"])
}

@Test func summariesAreSingleLinesAndDifferPerVariant() {
    for scenario in SeedScenario.all {
        let lines = [scenario.summary, scenario.summary(of: .buggy), scenario.summary(of: .fixed)]
        #expect(lines.allSatisfy { !$0.isEmpty && !$0.contains("\n") }, "\(scenario.name)")
        #expect(scenario.summary(of: .buggy) != scenario.summary(of: .fixed), "\(scenario.name)")
    }
}
