/// What a recording session did with the events its registry produced.
///
/// Once a session is closed, `accepted == written + unwritten`. Events after `close()`
/// are not recorded and not counted; an event whose thread was waiting for room in a full
/// buffer (`BufferFullPolicy.wait`) when `close()` began is recorded and counted before the
/// session ends.
public struct RecordingCounters: Sendable, Equatable, CustomStringConvertible {
    /// Events the session took and gave a sequence number.
    public var accepted: Int
    /// Accepted events committed to the journal.
    public var written: Int
    /// Events dropped because the buffer was full (only with `BufferFullPolicy.drop`);
    /// each run of them is recorded as one `gap` event.
    public var dropped: Int
    /// Accepted events never written because recording stopped on an error.
    public var unwritten: Int

    /// Counters from their parts.
    public init(accepted: Int = 0, written: Int = 0, dropped: Int = 0, unwritten: Int = 0) {
        self.accepted = accepted
        self.written = written
        self.dropped = dropped
        self.unwritten = unwritten
    }

    /// `accepted 10, written 10, dropped 0, unwritten 0`.
    public var description: String {
        "accepted \(accepted), written \(written), dropped \(dropped), unwritten \(unwritten)"
    }
}
