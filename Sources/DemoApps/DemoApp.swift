package import ObserverCore

/// A small simulated app that `obsreplay demo` records, written against ObserverCore's
/// public API exactly as an app would use it.
///
/// Each app has a buggy variant (a real-world observer bug) and a fixed one.
/// Running a variant performs the whole story on the calling thread against the registry
/// it is given, so a recording session journals it and an `InMemoryEventSink` lets a
/// test assert on it.
package struct DemoApp: Sendable {
    /// Stable kebab-case name (`music-player`), for command lines and session labels.
    package let name: String
    /// One line saying what the story is.
    package let summary: String
    /// The app's source file as `#fileID` spells it (`DemoApps/MusicPlayerScenario.swift`):
    /// the file a person reads to see the bug, and the file its call sites name.
    package let sourceFile: String
    private let variantSummaries: [ScenarioVariant: String]
    private let story: @Sendable (ScenarioVariant, ObserverRegistry, UIQueue) throws(ScenarioError) -> Void

    init(
        name: String, summary: String, sourceFile: String, buggy: String, fixed: String,
        story: @escaping @Sendable (ScenarioVariant, ObserverRegistry, UIQueue) throws(ScenarioError) -> Void
    ) {
        self.name = name
        self.summary = summary
        self.sourceFile = sourceFile
        self.variantSummaries = [.buggy: buggy, .fixed: fixed]
        self.story = story
    }

    /// One line saying what `variant` does differently.
    package func summary(of variant: ScenarioVariant) -> String {
        variantSummaries[variant] ?? ""
    }

    /// Performs the whole story of `variant` against `registry`, synchronously.
    ///
    /// Returns when every delivery has happened, including those queued for the UI queue,
    /// and every object of the story has been released. Call it on the main thread from
    /// a command-line tool's top level (UI work then runs on the real main queue and
    /// registrations declare `expectsMainThread`), or on any other thread (a private
    /// serial queue stands in for the main queue; this is how tests run it).
    /// - Parameters:
    ///   - variant: which version of the app runs.
    ///   - registry: where the app registers and posts; give it a sink to see the story.
    /// - Throws: `ScenarioError.mainQueueNotServiced` if called on the main thread from
    ///   inside main-queue work, where its main-queue deliveries could never run.
    package func run(variant: ScenarioVariant, registry: ObserverRegistry) throws(ScenarioError) {
        let ui = UIQueue.forCallingThread()
        // Fails before the story records anything if the UI queue cannot be drained here.
        try ui.drain(scenario: name)
        try story(variant, registry, ui)
        try ui.drain(scenario: name)
    }

    /// The five demo apps, in the order the demo records them.
    package static let all: [DemoApp] = [
        MusicPlayerScenario.scenario,
        VideoToolbarScenario.scenario,
        UploadProgressScenario.scenario,
        StretchyHeaderScenario.scenario,
        ScoreboardTrackingScenario.scenario,
    ]

    /// The scenario called `name`, if there is one.
    package static func named(_ name: String) -> DemoApp? {
        all.first { $0.name == name }
    }
}
