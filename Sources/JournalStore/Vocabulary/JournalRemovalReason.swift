/// Why a registration ended (`registrations.removal_reason`, and `events.reason` of
/// `removed` and `cancelAfterAutoRemoval` rows). Schema 3 added `streamEnded`.
package enum JournalRemovalReason: Int, JournalEnumeration {
    /// `remove(...)` named it.
    case explicit
    /// Its owner's registrations were all removed at once.
    case ownerRemovedAll
    /// Its token was cancelled.
    case tokenCancelled
    /// Its token was released (deinitialised).
    case tokenReleased
    /// Its owner was found deallocated.
    case ownerDeallocated
    /// Its subject was found deallocated.
    case subjectDeallocated
    /// Another owner's registration took its single-slot channel.
    case replaced
    /// The consumer of a `changes()` sequence stopped.
    case streamEnded

    package static let names = caseNames()
    package static let byName = caseNamesToValues()

    /// Whether the registry removed it by itself (a deallocation or a replacement), not
    /// because the app asked.
    package var isAutomatic: Bool {
        switch self {
        case .ownerDeallocated, .subjectDeallocated, .replaced: return true
        case .explicit, .ownerRemovedAll, .tokenCancelled, .tokenReleased, .streamEnded: return false
        }
    }
}
