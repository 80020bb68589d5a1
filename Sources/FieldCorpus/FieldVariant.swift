/// Which twin of a field app runs: the one with the planted observer bug, or the one
/// written the way the registry intends.
package enum FieldVariant: String, CaseIterable, Sendable {
    /// The app as the real-world report wrote it, bug included.
    case buggy
    /// The same story written correctly; its journal must have no finding at warning or above.
    case correct
}
