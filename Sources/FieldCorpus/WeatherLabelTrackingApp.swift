import Foundation
import Observation
import ObserverCore

/// A weather widget shows the temperature of an `@Observable` thermometer, followed with
/// `withObservationTracking`.
///
/// Buggy (the "label always one reading behind: shows 18° at 21°" report): `onChange` calls
/// the tracking function directly; it runs before the write (willSet), so `apply` reads the
/// reading being replaced. Correct: `onChange` enqueues the re-arm on the main queue, which
/// runs after the write.
enum WeatherLabelTrackingApp {
    static let app = FieldApp(
        name: "weather-label-tracking",
        summary: "a weather widget's label tracks an @Observable thermometer",
        bug: "onChange arms the tracking again directly, before the write: one reading behind",
        fix: "onChange arms the tracking again on the main queue, after the write",
        expectedCodes: ["OJ017"],
        mainLoops: [.runLoop, .dispatchMain],
        story: story
    )

    @Observable
    final class Thermometer: @unchecked Sendable {
        var celsius = 18
    }

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let thermometer = Thermometer()
        let label = TemperatureLabel(registry: registry, thermometer: thermometer, variant: variant)
        script.ui { label.observe() }
        for reading in [19, 21, 20] {
            script.ui { thermometer.celsius = reading }
            script.ui {}
        }
    }

    final class TemperatureLabel: @unchecked Sendable {
        private let registry: ObserverRegistry
        private let thermometer: Thermometer
        private let variant: FieldVariant
        private(set) var text = ""

        init(registry: ObserverRegistry, thermometer: Thermometer, variant: FieldVariant) {
            self.registry = registry
            self.thermometer = thermometer
            self.variant = variant
        }

        func observe() {
            registry.withObservationTracking(owner: self) {  // [site:temperature-track]
                text = "\(thermometer.celsius)°"
            } onChange: { [weak self, variant] in
                if variant == .buggy {
                    self?.observe()
                } else {
                    DispatchQueue.main.async { self?.observe() }
                }
            }
        }
    }
}
