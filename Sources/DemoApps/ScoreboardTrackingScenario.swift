import Observation
import ObserverCore
import Synchronization

/// Swift Observation's tracking of what `apply` reads: a scoreboard label follows an
/// `@Observable` match with `withObservationTracking`.
///
/// Buggy: the label formats the score before tracking and tracks the formatted text, so
/// `apply` reads no observable property, Observation installs nothing and no goal is ever
/// announced. Fixed: `apply` reads the match itself, and the display pass after each
/// change arms the tracking again.
enum ScoreboardTrackingScenario {
    static let scenario = DemoApp(
        name: "scoreboard-tracking",
        summary: "a scoreboard label follows an @Observable match with withObservationTracking",
        sourceFile: #fileID,
        buggy: "the score is read before the tracking: apply reads nothing and no goal is announced",
        fixed: "apply reads the match; the display pass after each change arms the tracking again",
        story: { variant, registry, ui throws(ScenarioError) in try story(variant, registry, ui) }
    )

    /// The story: the label starts tracking; three goals are scored, each followed by the
    /// UI's next display pass; the label is released.
    static func story(_ variant: ScenarioVariant, _ registry: ObserverRegistry, _ ui: UIQueue) throws(ScenarioError) {
        let match = Match()
        var label: ScoreLabel? = ScoreLabel(registry: registry, match: match, readsInside: variant == .fixed)
        label?.track()
        for goal in 1...3 {
            match.home = goal
            if let shown = label { ui.async { shown.displayIfNeeded() } }
            try ui.drain(scenario: scenario.name)
        }
        label = nil
    }

    /// The match: an `@Observable` model, as new Swift code declares its state.
    @Observable
    final class Match: @unchecked Sendable {
        var home = 0
        var away = 0
    }

    /// The scoreboard label: `onChange` marks it for display (it runs before the change, on
    /// the writer's thread); the UI's display pass redraws it.
    final class ScoreLabel: @unchecked Sendable {
        private let registry: ObserverRegistry
        private let match: Match
        private let readsInside: Bool
        private let needsDisplay = Atomic<Bool>(false)
        private(set) var text = ""

        init(registry: ObserverRegistry, match: Match, readsInside: Bool) {
            self.registry = registry
            self.match = match
            self.readsInside = readsInside
        }

        func track() {
            if readsInside {
                registry.withObservationTracking(owner: self) {
                    text = "\(match.home) : \(match.away)"
                } onChange: { [weak self] in
                    self?.needsDisplay.store(true, ordering: .releasing)
                }
            } else {
                let score = "\(match.home) : \(match.away)"     // the bug: read before the tracking
                registry.withObservationTracking(owner: self) {
                    text = score
                } onChange: { [weak self] in
                    self?.needsDisplay.store(true, ordering: .releasing)
                }
            }
        }

        /// The display pass: if a change was announced, tracks again, which redraws and
        /// hears the next change.
        func displayIfNeeded() {
            guard needsDisplay.exchange(false, ordering: .acquiring) else { return }
            track()
        }
    }
}
