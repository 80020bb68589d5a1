import JournalStore

/// How a registration's lane ends on the report's chart; each has its own colour.
package enum LaneEnd: Int, Sendable, CaseIterable {
    /// Removed explicitly (`explicit`, `ownerRemovedAll`, or `streamEnded`: the loop over
    /// a `changes()` sequence stopped).
    case explicit = 0
    /// Its token was cancelled or released.
    case token = 1
    /// Removed automatically because its owner (or subject) was deallocated.
    case deallocated = 2
    /// Replaced by another owner's registration on a single-slot channel.
    case replaced = 3
    /// Still registered when the session's events end: leaked, unless meant to live on.
    case live = 4
    /// A removal reason this version does not know (a newer writer).
    case other = 5

    /// The end for a `removal_reason` (`nil`: never removed).
    package init(reason: String?) {
        guard let reason else {
            self = .live
            return
        }
        switch JournalRemovalReason(name: reason) {
        case .explicit, .ownerRemovedAll, .streamEnded: self = .explicit
        case .tokenCancelled, .tokenReleased: self = .token
        case .ownerDeallocated, .subjectDeallocated: self = .deallocated
        case .replaced: self = .replaced
        case nil: self = .other
        }
    }

    /// The CSS class and legend key: `end-token`.
    package var name: String { String(describing: self) }

    /// The legend's words.
    package var legend: String {
        switch self {
        case .explicit: return "removed explicitly"
        case .token: return "token cancelled or released"
        case .deallocated: return "owner deallocated"
        case .replaced: return name
        case .live: return "live at end (leaked?)"
        case .other: return "other removal"
        }
    }
}
