/// One recording session with its counts, as `sessions` lists it.
package struct SessionSummary: Sendable, Equatable {
    package var id: Int64
    package var label: String
    package var process: String
    package var pid: Int64
    package var host: String
    /// Wall clock, ISO 8601 UTC, as the writer stored it.
    package var startedAt: String
    package var endedAt: String?
    package var cleanEnd: Bool
    package var libraryVersion: String
    package var eventCount: Int64
    package var registrationCount: Int64
    /// The highest event sequence number (0 when there are no events).
    package var lastSeq: Int64
    /// `time_ns` of the last event (0 when there are no events).
    package var lastTimeNs: Int64
    /// The CI run or job the recorder was told (`Journal.Options.run`), if any.
    package var run: String? = nil

    /// The last seq a command may ask for: the last event's, or 1 (the start) in a
    /// session with no events, so that its timeline and state can be shown (empty).
    package var lastSeqOrStart: Int64 { max(lastSeq, 1) }
}
