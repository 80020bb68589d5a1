/// What the writer takes from the buffer in one go: records, written in one transaction
/// on the writer thread (`SessionWriter.write(_:)`).
struct RecordBatch {
    /// The sequence number of the first record; the others follow without gaps.
    var firstSeq: Int64
    var pending: PendingEvents
    /// Dropped events, numbered right after the records.
    var gap: GapRecord?
    /// Whether this is the session's last batch.
    var endsSession: Bool

    /// The highest sequence number in the batch (`firstSeq - 1` if it is empty).
    var lastSeq: Int64 { firstSeq + Int64(pending.count) - 1 + (gap == nil ? 0 : 1) }
}
