import ObserverCore

/// A run-tracking app's map screen recentres on every location fix.
///
/// Buggy (the retain-cycle report: "my view controller's deinit is never called"): the
/// callback captures the screen strongly, so the registry's callback keeps the dismissed
/// screen alive and it keeps recentring a map nobody sees. Correct: the callback uses the
/// owner the registry hands it, so the dismissed screen is released with its token.
enum MapStrongCaptureApp {
    static let app = FieldApp(
        name: "map-strong-capture",
        summary: "a run tracker's map screen recentres on every location fix",
        bug: "the location callback captures the screen strongly: the dismissed screen never goes away and keeps being called",
        fix: "the callback uses the owner the registry passes it, so the screen is released on dismissal",
        expectedCodes: ["OJ004"],
        story: story
    )

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let tracker = LocationTracker(registry: registry)
        var map: RunMapScreen? = RunMapScreen(registry: registry)
        script.ui { map?.present(tracker: tracker, capturesSelf: variant == .buggy) }
        script.ui { tracker.fix(Coordinate(latitude: 52.52, longitude: 13.40)) }
        script.ui { tracker.fix(Coordinate(latitude: 52.53, longitude: 13.41)) }
        script.ui { map?.dismiss() }
        script.ui { map = nil }
        script.ui { tracker.fix(Coordinate(latitude: 52.54, longitude: 13.42)) }
        script.ui { tracker.fix(Coordinate(latitude: 52.55, longitude: 13.43)) }
    }

    struct Coordinate: Sendable, Equatable, CustomStringConvertible {
        var latitude: Double
        var longitude: Double
        var description: String { "(\(latitude), \(longitude))" }
    }

    final class LocationTracker {
        let registry: ObserverRegistry
        lazy var location = ObservableValue(Coordinate(latitude: 0, longitude: 0), subject: self, key: "location", registry: registry)
        init(registry: ObserverRegistry) { self.registry = registry }
        func fix(_ coordinate: Coordinate) { location.set(coordinate) }
    }

    /// `@unchecked Sendable` as many Swift 6 view controllers are: it is only touched on the
    /// main queue, and the buggy callback captures it.
    final class RunMapScreen: @unchecked Sendable {
        let registry: ObserverRegistry
        private var presented: ObservationScope?
        private var locationObservation: ObservationToken?
        private(set) var centre: Coordinate?

        init(registry: ObserverRegistry) { self.registry = registry }

        func present(tracker: LocationTracker, capturesSelf: Bool) {
            let presented = registry.beginScope("RunMapScreen presented")
            self.presented = presented
            if capturesSelf {
                locationObservation = tracker.location.observe(owner: self, options: [.new], scope: presented) { _, change in  // [site:location-strong]
                    self.recentre(on: change.new)
                }
            } else {
                locationObservation = tracker.location.observe(owner: self, options: [.new], scope: presented) { screen, change in  // [site:location]
                    screen.recentre(on: change.new)
                }
            }
        }

        func recentre(on coordinate: Coordinate?) { centre = coordinate }

        func dismiss() {
            presented?.end()
            presented = nil
        }
    }
}
