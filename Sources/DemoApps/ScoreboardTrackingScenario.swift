import Observation
import ObserverCore
import Synchronization

/// Swift Observation's one-shot `onChange`, the mirror of seed 004: a scoreboard label
/// follows an `@Observable` match with `withObservationTracking`.
///
/// Buggy: `onChange` marks the label for display and the display pass redraws it, but
/// nothing tracks again, so only the first goal is ever announced ("only the first change
/// fires"). Fixed: the display pass arms the tracking again, after the change.
enum ScoreboardTrackingScenario {
    static let scenario = DemoApp(
        name: "scoreboard-tracking",
        summary: "a scoreboard label follows an @Observable match with withObservationTracking",
        sourceFile: #fileID,
        buggy: "the display pass redraws but never tracks again: only the first goal is announced",
        fixed: "the display pass after each change arms the tracking again",
        story: { variant, registry, ui throws(ScenarioError) in try story(variant, registry, ui) }
    )

    /// The story: the label starts tracking; three goals are scored, each followed by the
    /// UI's next display pass; the label is released.
    static func story(_ variant: ScenarioVariant, _ registry: ObserverRegistry, _ ui: UIQueue) throws(ScenarioError) {
        let match = Match()
        var label: ScoreLabel? = ScoreLabel(registry: registry, match: match, rearms: variant == .fixed)
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
        private let rearms: Bool
        private let needsDisplay = Atomic<Bool>(false)
        private(set) var text = ""

        init(registry: ObserverRegistry, match: Match, rearms: Bool) {
            self.registry = registry
            self.match = match
            self.rearms = rearms
        }

        func track() {
            registry.withObservationTracking(owner: self) {
                text = "\(match.home) : \(match.away)"
            } onChange: { [weak self] in
                self?.needsDisplay.store(true, ordering: .releasing)
            }
        }

        /// The display pass: redraws if a change was announced. Buggy, it only redraws;
        /// fixed, it tracks again, which redraws and hears the next change.
        func displayIfNeeded() {
            guard needsDisplay.exchange(false, ordering: .acquiring) else { return }
            if rearms { track() } else { text = "\(match.home) : \(match.away)" }
        }
    }
}
