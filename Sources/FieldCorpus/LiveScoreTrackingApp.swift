import Foundation
import Observation
import ObserverCore

/// A sports app's match screen shows the live score from an `@Observable` match, followed
/// with `withObservationTracking` and re-armed on the main queue after each change.
///
/// Buggy (the "crash in the score label under load" report): the score feed writes the
/// match from its network thread, so each firing runs on that thread and the main queue's
/// re-arm reads the match while the feed may be writing it. Correct: the feed hands each
/// score to the main queue, which writes the match.
enum LiveScoreTrackingApp {
    static let app = FieldApp(
        name: "live-score-tracking",
        summary: "a sports app's match screen tracks an @Observable match fed by a network thread",
        bug: "the feed writes the match on its network thread; the screen re-arms on main",
        fix: "the feed writes the match on the main queue",
        expectedCodes: ["OJ016"],
        mainLoops: [.runLoop, .dispatchMain],
        story: story
    )

    @Observable
    final class Match: @unchecked Sendable {
        var home = 0
        var away = 0
    }

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let match = Match()
        let screen = MatchScreen(registry: registry, match: match)
        script.ui { screen.observe() }
        for goal in 1...3 {
            if variant == .buggy {
                script.background { match.home = goal }
            } else {
                script.background { DispatchQueue.main.async { match.home = goal } }
            }
            script.ui {}
        }
    }

    final class MatchScreen: @unchecked Sendable {
        private let registry: ObserverRegistry
        private let match: Match
        private(set) var score = ""

        init(registry: ObserverRegistry, match: Match) {
            self.registry = registry
            self.match = match
        }

        func observe() {
            registry.withObservationTracking(owner: self) {  // [site:score-track]
                score = "\(match.home) – \(match.away)"
            } onChange: { [weak self] in
                DispatchQueue.main.async { self?.observe() }
            }
        }
    }
}
