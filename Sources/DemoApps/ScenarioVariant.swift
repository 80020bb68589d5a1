/// Which version of a scenario's app runs: the one with the seed's bug, or the one
/// written the way the registry intends.
package enum ScenarioVariant: String, CaseIterable, Sendable {
    /// The app as the source document wrote it, bug included.
    case buggy
    /// The same story with the bug fixed; its journal should diagnose clean.
    case fixed
}
