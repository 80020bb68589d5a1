/// The kinds of event rows a journal holds (`events.kind`).
///
/// Not `ObserverEvent.Kind`: the journal adds `gap` (events its writer had to drop), and
/// readers read journals without depending on the registry. Schema 2 added
/// `cancelAfterAutoRemoval` and `ownerGone`.
package enum JournalEventKind: Int, JournalEnumeration {
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

    package static let names = caseNames()
    package static let byName = caseNamesToValues()
}
