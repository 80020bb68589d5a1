package import ObserverCore

/// A small app written by someone outside the project against ObserverCore's public API
/// only, with an observer bug planted as it appears in real-world reports, and a correct
/// twin.
///
/// Running a variant adds its story's steps to an `AppScript`; the steps play on the main
/// queue of a process that runs a main loop (`FieldCorpusRunner`), so main-queue delivery
/// is real.
package struct FieldApp: Sendable {
    /// Stable kebab-case name (`chat-unread-badge`), for command lines and session labels.
    package let name: String
    /// What the app does.
    package let summary: String
    /// The bug as the reports describe it.
    package let bug: String
    /// What the correct twin does instead.
    package let fix: String
    /// The codes the planted bug must be diagnosed with (each at least once).
    package let expectedCodes: [String]
    /// The main loops the app is run under by the tests: those that touch the main queue
    /// run under both.
    package let mainLoops: [MainLoop]
    private let story: @Sendable (FieldVariant, ObserverRegistry, AppScript) -> Void

    init(
        name: String, summary: String, bug: String, fix: String, expectedCodes: [String],
        mainLoops: [MainLoop] = [.runLoop],
        story: @escaping @Sendable (FieldVariant, ObserverRegistry, AppScript) -> Void
    ) {
        self.name = name
        self.summary = summary
        self.bug = bug
        self.fix = fix
        self.expectedCodes = expectedCodes
        self.mainLoops = mainLoops
        self.story = story
    }

    /// Adds the story of `variant`, against `registry`, to `script`.
    package func script(_ variant: FieldVariant, registry: ObserverRegistry) -> AppScript {
        let script = AppScript()
        story(variant, registry, script)
        return script
    }

    /// The app called `name`, if there is one.
    package static func named(_ name: String) -> FieldApp? {
        all.first { $0.name == name }
    }
}
