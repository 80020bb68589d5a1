import Foundation
import Observation
import ObserverCore

/// A playlist's rows each show their own track's title, followed with
/// `withObservationTracking` from one line, each row its tracking's owner.
///
/// Buggy (the "titles flicker, each rename renders twice" report): a row scrolled back into
/// view is configured again while its tracking is still armed, so one rename runs both, and
/// both arm again. Correct: a row configured again first lets its armed tracking be (it
/// tracks once, and again only from its onChange, on the main queue, after the write).
enum PlaylistRowTrackingApp {
    static let app = FieldApp(
        name: "playlist-row-tracking",
        summary: "playlist rows each track their own @Observable track from one line",
        bug: "a row is tracked again on every reconfigure while its tracking is armed",
        fix: "a row armed already does not track again on reconfigure",
        expectedCodes: ["OJ002"],
        mainLoops: [.runLoop, .dispatchMain],
        story: story
    )

    @Observable
    final class Track: @unchecked Sendable {
        var title: String
        init(title: String) { self.title = title }
    }

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let rows = ["Intro", "Verse", "Outro"].map { TrackRow(registry: registry, track: Track(title: $0)) }
        script.ui { for row in rows { row.configure() } }
        script.ui { rows[1].willDisplay(variant) }          // scrolled back into view
        script.ui { rows[1].track.title = "Verse (live)" }
        script.ui {}
        script.ui { rows[0].track.title = "Intro (remastered)" }
        script.ui {}
    }

    final class TrackRow: @unchecked Sendable {
        private let registry: ObserverRegistry
        let track: Track
        private(set) var title = ""
        private(set) var renders = 0
        private var armed = false

        init(registry: ObserverRegistry, track: Track) {
            self.registry = registry
            self.track = track
        }

        /// The row comes into view again: the buggy twin tracks again whatever its state.
        func willDisplay(_ variant: FieldVariant) {
            if variant == .buggy || !armed { configure() }
        }

        func configure() {
            armed = true
            registry.withObservationTracking(owner: self) {  // [site:row-track]
                renders += 1
                title = track.title
            } onChange: { [weak self] in
                DispatchQueue.main.async {
                    self?.armed = false
                    self?.configure()
                }
            }
        }
    }
}
