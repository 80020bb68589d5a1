package import JournalStore

/// An event as the analysis reads it: its rows of `events` and `event_details` as stored,
/// with what they encode decoded (ids as stored; names are resolved by `JournalCatalog`).
///
/// Optional accessors are `nil` where the column is NULL; the schema's comments say which
/// kinds set which columns.
package struct EventRow: Sendable, Equatable {
    /// The event's row of `events`.
    package let stored: StoredEvent
    /// The event's row of `event_details`; every column past the key NULL when it has none.
    package var details: StoredEventDetails

    /// The event of `stored`, with `details` (none: every detail NULL).
    package init(_ stored: consuming StoredEvent, details: StoredEventDetails? = nil) {
        // Decoded once here, through the concrete types' tables (the vocabulary's generic
        // lookups are not specialised across modules): every rule asks for these.
        let kind = Int(exactly: stored.kind).flatMap(EventKind.init(rawValue:))
        switch kind {
        case .removed?, .cancelAfterAutoRemoval?:
            removalReason = stored.reason.flatMap { JournalRemovalReason.byName[$0] }
            skipReason = nil
        case .skipped?:
            removalReason = nil
            skipReason = stored.reason.flatMap { JournalSkipReason.byName[$0] }
        default:
            removalReason = nil
            skipReason = nil
        }
        self.kind = kind
        self.details = details ?? StoredEventDetails(sessionID: stored.sessionID, seq: stored.seq)
        // Moved in, not copied: a row is made per event read.
        self.stored = stored
    }

    package var sessionID: Int64 { stored.sessionID }
    package var seq: Int64 { stored.seq }
    /// Nanoseconds since the session's start.
    package var timeNs: Int64 { stored.timeNs }
    /// `nil` for a kind this version does not know (a newer writer).
    package let kind: EventKind?
    /// The kind's name, kept for output even when unknown (`kind#N`).
    package var kindText: String { kind?.name ?? "kind#\(stored.kind)" }
    package var thread: Int64 { stored.thread }
    package var isMain: Bool { stored.flags & EventFlags.mainThread != 0 }
    /// Whether the event ran on the main queue; `nil` when not recorded (schema 1, gaps).
    package var isMainQueue: Bool? {
        stored.flags & EventFlags.mainQueueKnown != 0 ? stored.flags & EventFlags.mainQueue != 0 : nil
    }
    /// The depth of nested dispatch.
    package var depth: Int { Int(truncatingIfNeeded: stored.flags >> EventFlags.depthShift) }
    package var isPrior: Bool { stored.flags & EventFlags.prior != 0 }
    package var channelID: Int64? { stored.channelID }
    package var registrationID: Int64? { stored.registrationID }
    package var ownerID: Int64? { stored.ownerID }
    package var callSiteID: Int64? { stored.callSiteID }
    package var liveCount: Int64? { stored.liveCount }
    package var durationNs: Int64? { stored.durationNs }
    /// `delivered`: the thread CPU time the callback used; `nil` when not recorded.
    package var cpuNs: Int64? { stored.cpuNs }
    /// `delivered`, `skipped`: the seq of the change delivered, as the recorder knew it;
    /// `nil` when not recorded. (A hostile `change_back` must not trap: the seq it names is
    /// only ever compared.)
    package var changeSeq: Int64? { stored.changeBack.map { stored.seq &- $0 } }
    package var oldValue: String? { stored.oldValue?.string }
    package var newValue: String? { stored.newValue?.string }
    /// The reason as stored (a removal, skip or gap reason, by `kind`), kept for output
    /// even when this version does not know it; decisions use `removalReason`/`skipReason`.
    package var reason: String? { stored.reason }
    package var otherRegistrationID: Int64? { details.otherRegistrationID }
    package var scopeID: Int64? { details.scopeID }
    /// `delivered`: voluntary context switches during the callback; `nil` when not recorded.
    package var waits: Int64? { details.waits }
    /// `delivered`: of `durationNs`, the time the callback's thread was runnable but
    /// waiting for a CPU (the machine's load, not the callback); `nil` when not recorded.
    package var runQueueNs: Int64? { details.runQueueNs }
    package var detail: String? { details.detail }

    /// `removed` and `cancelAfterAutoRemoval`: why the registration ended (`nil`: another
    /// kind, or a reason this version does not know).
    package let removalReason: JournalRemovalReason?

    /// `skipped`: why the registration was not called (`nil`: another kind, or unknown).
    package let skipReason: JournalSkipReason?

    /// A `delivered` row that carries a value is an `initial` delivery made on
    /// registration, not the delivery of a change.
    package var isInitialDelivery: Bool { kind == .delivered && stored.newValue != nil }

    /// Whether the event ran on main: the main thread, or the main queue drained by
    /// another thread (`dispatchMain()` on Linux).
    package var isOnMain: Bool { isMain || isMainQueue == true }
}
