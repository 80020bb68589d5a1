package import JournalStore

/// One row of the `events` table, with ids as stored (names are resolved by `JournalCatalog`).
///
/// Optional fields are `nil` where the column is NULL; the schema's comments say which
/// kinds set which columns.
package struct EventRow: Sendable, Equatable {
    package var sessionID: Int64
    package var seq: Int64
    /// Nanoseconds since the session's start.
    package var timeNs: Int64
    /// `nil` for a kind this version does not know (a newer writer).
    package var kind: EventKind?
    /// The kind as stored, kept for output even when unknown.
    package var kindText: String
    package var thread: Int64
    package var isMain: Bool
    /// Whether the event ran on the main queue; `nil` when not recorded (schema 1, gaps).
    package var isMainQueue: Bool?
    package var channelID: Int64?
    package var registrationID: Int64?
    package var ownerID: Int64?
    package var otherRegistrationID: Int64?
    package var callSiteID: Int64?
    package var scopeID: Int64?
    package var depth: Int
    package var liveCount: Int64?
    package var durationNs: Int64?
    /// `delivered`: the thread CPU time the callback used; `nil` when not recorded.
    package var cpuNs: Int64?
    /// `delivered`: voluntary context switches during the callback; `nil` when not recorded.
    package var waits: Int64?
    /// `delivered`: of `durationNs`, the time the callback's thread was runnable but
    /// waiting for a CPU (the machine's load, not the callback); `nil` when not recorded
    /// (the recorder measures it, `ObserverEvent.runQueueWait`; journals do not store it yet).
    package var runQueueNs: Int64?
    /// `delivered`, `skipped`: the seq of the change delivered, as the recorder knew it
    /// (schema 4); `nil` when not recorded.
    package var changeSeq: Int64?
    package var isPrior: Bool
    package var oldValue: String?
    package var newValue: String?
    /// The reason as stored (a removal, skip or gap reason, by `kind`), kept for output
    /// even when this version does not know it; decisions use `removalReason`/`skipReason`.
    package var reason: String?
    package var detail: String?

    package init(
        sessionID: Int64, seq: Int64, timeNs: Int64, kind: EventKind?, kindText: String? = nil,
        thread: Int64 = 1, isMain: Bool = true, channelID: Int64? = nil, registrationID: Int64? = nil,
        ownerID: Int64? = nil, otherRegistrationID: Int64? = nil, callSiteID: Int64? = nil,
        scopeID: Int64? = nil, depth: Int = 0, liveCount: Int64? = nil, durationNs: Int64? = nil,
        isPrior: Bool = false, oldValue: String? = nil, newValue: String? = nil,
        reason: String? = nil, detail: String? = nil, isMainQueue: Bool? = nil, cpuNs: Int64? = nil,
        waits: Int64? = nil, changeSeq: Int64? = nil, runQueueNs: Int64? = nil
    ) {
        self.runQueueNs = runQueueNs
        self.changeSeq = changeSeq
        self.waits = waits
        self.isMainQueue = isMainQueue
        self.cpuNs = cpuNs
        self.sessionID = sessionID
        self.seq = seq
        self.timeNs = timeNs
        self.kind = kind
        self.kindText = kindText ?? kind?.name ?? "?"
        self.thread = thread
        self.isMain = isMain
        self.channelID = channelID
        self.registrationID = registrationID
        self.ownerID = ownerID
        self.otherRegistrationID = otherRegistrationID
        self.callSiteID = callSiteID
        self.scopeID = scopeID
        self.depth = depth
        self.liveCount = liveCount
        self.durationNs = durationNs
        self.isPrior = isPrior
        self.oldValue = oldValue
        self.newValue = newValue
        self.reason = reason
        self.detail = detail
    }

    /// `removed` and `cancelAfterAutoRemoval`: why the registration ended (`nil`: another
    /// kind, or a reason this version does not know).
    package var removalReason: JournalRemovalReason? {
        guard kind == .removed || kind == .cancelAfterAutoRemoval, let reason else { return nil }
        return JournalRemovalReason(name: reason)
    }

    /// `skipped`: why the registration was not called (`nil`: another kind, or unknown).
    package var skipReason: JournalSkipReason? {
        guard kind == .skipped, let reason else { return nil }
        return JournalSkipReason(name: reason)
    }

    /// A `delivered` row that carries a value is an `initial` delivery made on
    /// registration, not the delivery of a change.
    package var isInitialDelivery: Bool { kind == .delivered && newValue != nil }

    /// Whether the event ran on main: the main thread, or the main queue drained by
    /// another thread (`dispatchMain()` on Linux).
    package var isOnMain: Bool { isMain || isMainQueue == true }
}
