/// The kinds of event rows a journal holds (the `events.kind` column; schema 2 added
/// `cancelAfterAutoRemoval` and `ownerGone`).
///
/// Not `ObserverEvent.Kind`: the journal adds `gap` (events its writer had to drop), and
/// the analyst reads journals without depending on the registry.
package enum EventKind: String, Sendable, Hashable, CaseIterable {
    case registered
    case replaced
    case removed
    case removeUnregistered
    case changed
    case delivered
    case skipped
    case scopeBegan
    case scopeEnded
    case gap
    case cancelAfterAutoRemoval
    case ownerGone
}
