import ObserverCore

/// What the writer commits in one transaction.
struct EventBatch {
    /// The sequence number of `events[0]`; the others follow without gaps.
    var firstSeq: Int64
    var events: [ObserverEvent]
    /// Dropped events, numbered right after `events`.
    var gap: GapRecord?
    /// Whether this is the session's last batch: the session is marked ended cleanly in
    /// the same transaction.
    var endsSession: Bool

    /// The highest sequence number in the batch (`firstSeq - 1` if it is empty).
    var lastSeq: Int64 { firstSeq + Int64(events.count) - 1 + (gap == nil ? 0 : 1) }
}
