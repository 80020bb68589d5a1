/// Why a registration was not called for a change (`events.reason` of `skipped` rows).
package enum JournalSkipReason: Int, JournalEnumeration {
    /// `onlyWhenChanged` and the value did not change.
    case unchanged
    /// The change's sender was not the one the registration filters on.
    case senderMismatch
    /// Removed after the change was posted, before its queued delivery ran.
    case removedBeforeDelivery

    package static let names = caseNames()
    package static let byName = caseNamesToValues()
}
