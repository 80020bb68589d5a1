package import DemoApps

/// The label of a session `obsreplay demo` records: `<scenario>/<variant>`, as in
/// `music-player/buggy`.
///
/// A journal is a demo journal, which the demo may replace, when it holds at least one
/// session and every session has such a label (a demo app's name and `buggy` or
/// `fixed`) and was recorded by a process called `obsreplay`. Anything else is somebody's
/// data and is never touched.
package struct DemoLabel: Sendable, Hashable, CustomStringConvertible {
    /// The demo app recorded.
    package var scenario: DemoApp
    /// Which version of its app ran.
    package var variant: ScenarioVariant

    /// The process name every demo session records (`sessions.process`).
    package static let process = "obsreplay"

    package init(scenario: DemoApp, variant: ScenarioVariant) {
        self.scenario = scenario
        self.variant = variant
    }

    /// Parses `music-player/buggy`; `nil` for anything else.
    package init?(label: String) {
        let parts = label.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let scenario = DemoApp.named(String(parts[0])),
            let variant = ScenarioVariant(rawValue: String(parts[1]))
        else { return nil }
        self.init(scenario: scenario, variant: variant)
    }

    /// `music-player/buggy`.
    package var description: String { "\(scenario.name)/\(variant.rawValue)" }

    package static func == (lhs: DemoLabel, rhs: DemoLabel) -> Bool { lhs.description == rhs.description }
    package func hash(into hasher: inout Hasher) { hasher.combine(description) }
}
