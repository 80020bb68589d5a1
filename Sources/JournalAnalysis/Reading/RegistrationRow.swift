package import JournalStore

/// One row of the `registrations` table.
package struct RegistrationRow: Sendable, Equatable {
    package var id: Int64
    package var channelID: Int64
    package var ownerID: Int64
    package var callSiteID: Int64
    package var options: String
    package var queue: String?
    package var expectsMain: Bool
    package var senderID: Int64?
    package var scopeID: Int64?
    package var registeredSeq: Int64
    package var removedSeq: Int64?
    /// As stored, kept for output even when this version does not know it.
    package var removalReason: String?

    /// Why it ended, typed (`nil`: live, or a reason this version does not know).
    package var removal: JournalRemovalReason? { removalReason.flatMap { JournalRemovalReason.byName[$0] } }
}
