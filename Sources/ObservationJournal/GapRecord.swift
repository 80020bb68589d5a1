/// A run of events dropped because the buffer was full; written as one `gap` event at
/// the sequence number the first dropped event would have had.
struct GapRecord: Sendable {
    var seq: Int64
    var time: UInt64
    var thread: UInt64
    var isMainThread: Bool
    var dropped: Int
}
