import SystemShim
import ObserverCore

/// A run of events dropped because the buffer was full; written as one `gap` event at
/// the sequence number the first dropped event would have had.
struct GapRecord: Sendable {
    var seq: Int64
    var time: UInt64
    var thread: UInt64
    var isMainThread: Bool
    var dropped: Int
}

/// Events as the buffer keeps them: one `EventRecord` per event, in sequence order; what
/// a record does not hold is in side lists, in the same order (the values and call site
/// of each `changed` record; the `ObserverEvent` of each `.event` record), and the
/// channels and registrations the records name, defined once each.
struct PendingEvents {
    var records: [EventRecord] = []
    var changes: [ChangeDetail] = []
    var events: [ObserverEvent] = []
    var channels: [ChannelInfo] = []
    var registrations: [RegistrationInfo] = []
    /// Channels deallocated: no later record names them (`RecordSink.channelEnded`).
    var endedChannels: [UInt64] = []

    /// What a `changed` record does not hold. The values stay as the registry handed
    /// them over (plain bits for plain types) until the writer reads them.
    struct ChangeDetail {
        var values: ChangeValues
        var callSite: CallSite?
        var old: EventValue? { values.old }
        var new: EventValue? { values.new }
    }

    init() {}

    init(capacity: Int) {
        records.reserveCapacity(capacity)
    }

    var count: Int { records.count }
    var isEmpty: Bool { records.isEmpty }

    /// Empties the lists, keeping their storage. Definitions too: the writer has taken them.
    mutating func removeAll() {
        records.removeAll(keepingCapacity: true)
        changes.removeAll(keepingCapacity: true)
        events.removeAll(keepingCapacity: true)
        channels.removeAll(keepingCapacity: true)
        registrations.removeAll(keepingCapacity: true)
        endedChannels.removeAll(keepingCapacity: true)
    }
}

/// What the writer takes from the buffer in one go: records, turned into an `EventBatch`
/// on the writer thread (`RecordDecoder`).
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

/// The session's sink: numbers each event as the registry hands it over and keeps it in a
/// bounded in-memory buffer, which the writer thread drains.
///
/// The calling thread only takes a lock, assigns the next sequence number and appends the
/// event's fixed-size record (the registry writes records for its frequent actions: see
/// `RecordSink`); events and rows are built on the writer thread. State-changing events arrive while the
/// registry holds its own lock, so their numbers follow the registry's order; numbers
/// are gap-free because each accepted event takes the next one under this buffer's lock.
///
/// The writer is woken only when it sleeps with nothing to do, or when enough events for
/// a good batch have gathered while it waits for more, so a busy app pays for a wake-up
/// once per batch, not once per event.
final class EventBuffer: RecordSink, @unchecked Sendable {
    enum Phase: Equatable {
        /// Events are accepted.
        case recording
        /// `close()` was called: the writer drains what is left, then ends the session.
        case closing
        /// The session ended cleanly.
        case closed
        /// Writing failed: events are counted as unwritten and not kept.
        case failed
    }

    private enum WriterState {
        /// Writing a batch, or about to take one: no need to wake it.
        case working
        /// Waiting for the first event.
        case idle
        /// Has a few events and waits briefly for more to make a larger batch.
        case gathering
    }

    private let monitor = Monitor()
    /// Signalled for the writer: events, a flush, or close.
    private let work: Monitor.Condition
    /// Signalled for producers waiting for room.
    private let room: Monitor.Condition
    /// Signalled when the writer committed a batch, ended or failed.
    private let progress: Monitor.Condition

    let capacity: Int
    let policy: Journal.BufferFullPolicy
    /// Gathered events that make the writer start at once rather than wait for more.
    let batchThreshold: Int
    let gatherNanoseconds: UInt64

    // The state guarded by `monitor`. `@exclusivity(unchecked)` as in `Protected`: the
    // monitor already makes every access exclusive, and the run-time check (a call into
    // the runtime per access) was a large share of a producer's hand-over.
    @exclusivity(unchecked) private var pending = PendingEvents()
    @exclusivity(unchecked) private var gap: GapRecord? = nil
    @exclusivity(unchecked) private var nextSeq: Int64 = 1
    @exclusivity(unchecked) private var firstPendingSeq: Int64 = 1
    @exclusivity(unchecked) private var committedSeq: Int64 = 0
    @exclusivity(unchecked) private var phase: Phase = .recording
    @exclusivity(unchecked) private var writerState: WriterState = .working
    @exclusivity(unchecked) private var urgentRequests = 0
    @exclusivity(unchecked) private var roomWaiters = 0
    @exclusivity(unchecked) private var counts = RecordingCounters()
    @exclusivity(unchecked) private var error: JournalError? = nil
    /// Set between a failure and the end of the error callback: `flush()` and `close()`
    /// on other threads wait for it, so they return only after the app was told.
    @exclusivity(unchecked) private var announcing = false
    /// The writer thread, whose own calls (from the error callback) must never wait.
    @exclusivity(unchecked) private var writerThread: pthread_t? = nil

    init(capacity: Int, policy: Journal.BufferFullPolicy, gatherMilliseconds: Int) {
        self.capacity = max(1, capacity)
        self.policy = policy
        self.batchThreshold = max(1, min(self.capacity / 4, 4_096))
        self.gatherNanoseconds = UInt64(max(0, gatherMilliseconds)) * 1_000_000
        work = monitor.makeCondition()
        room = monitor.makeCondition()
        progress = monitor.makeCondition()
        pending = PendingEvents(capacity: self.capacity)
    }

    // MARK: - Producers (any thread)

    func record(_ event: ObserverEvent) {
        monitor.lock()
        defer { monitor.unlock() }
        let record = EventRecord(
            kind: .event, flags: event.isMainThread ? .mainThread : [], time: event.time, thread: event.thread,
            channel: 0, depth: 0
        )
        if accept(record) { pending.events.append(event) }
    }

    func record(_ record: EventRecord) {
        monitor.lock()
        defer { monitor.unlock() }
        _ = accept(record)
    }

    func recordChange(
        _ record: EventRecord, values: consuming ChangeValues, callSite: consuming CallSite?
    ) {
        monitor.lock()
        defer { monitor.unlock() }
        if accept(record) { pending.changes.append(PendingEvents.ChangeDetail(values: values, callSite: callSite)) }
    }

    func define(_ info: ChannelInfo) {
        monitor.lock()
        defer { monitor.unlock() }
        // Never dropped: a record naming the channel may be kept when its neighbours are not.
        if phase == .recording { pending.channels.append(info) }
    }

    func define(_ info: RegistrationInfo) {
        monitor.lock()
        defer { monitor.unlock() }
        if phase == .recording { pending.registrations.append(info) }
    }

    func channelEnded(_ id: UInt64) {
        monitor.lock()
        defer { monitor.unlock() }
        if phase == .recording { pending.endedChannels.append(id) }
    }

    /// Under the lock: numbers `record` and appends it, waiting for room or dropping it
    /// as the policy says. Returns whether it was kept (its side parts must be appended).
    @inline(__always)
    private func accept(_ record: EventRecord) -> Bool {
        if phase == .recording && pending.count >= capacity {
            if policy == .drop {
                drop(record)
                return false
            }
            roomWaiters += 1
            while phase == .recording && pending.count >= capacity {
                wakeWriter()
                monitor.wait(room)
            }
            roomWaiters -= 1
        }
        switch phase {
        case .recording:
            pending.records.append(record)
            nextSeq += 1
            counts.accepted += 1
            if writerState == .idle || (writerState == .gathering && pending.count >= batchThreshold) {
                wakeWriter()
            }
            return true
        case .failed:
            nextSeq += 1
            counts.accepted += 1
            counts.unwritten += 1
            return false
        case .closing, .closed:
            return false
        }
    }

    /// Under the lock: counts a dropped event into the open gap, opening one if needed.
    private func drop(_ record: EventRecord) {
        if gap == nil {
            gap = GapRecord(seq: nextSeq, time: record.time, thread: record.thread, isMainThread: record.isMainThread, dropped: 0)
            nextSeq += 1
        }
        gap?.dropped += 1
        counts.dropped += 1
        wakeWriter()
    }

    /// Under the lock.
    @inline(__always)
    private func wakeWriter() {
        if writerState != .working {
            writerState = .working
            monitor.signal(work)
        }
    }

    // MARK: - The app (flush, close, state)

    /// Returns when every event accepted so far is committed, or writing has stopped.
    func flush() {
        monitor.lock()
        defer { monitor.unlock() }
        let target = nextSeq - 1
        urgentRequests += 1
        while (committedSeq < target && (phase == .recording || phase == .closing)) || mustAwaitAnnouncement {
            wakeWriter()
            monitor.wait(progress)
        }
        urgentRequests -= 1
    }

    /// Stops accepting events, lets the writer commit the rest and end the session, and
    /// returns when it has (or writing has failed).
    func close() {
        monitor.lock()
        defer { monitor.unlock() }
        if phase == .recording {
            phase = .closing
            monitor.broadcast(room)
        }
        while phase == .closing || mustAwaitAnnouncement {
            wakeWriter()
            monitor.wait(progress)
        }
    }

    /// Under the lock: whether the caller must wait for the error callback to finish.
    private var mustAwaitAnnouncement: Bool {
        guard announcing, let writerThread else { return false }
        return pthread_equal(writerThread, pthread_self()) == 0
    }

    var counters: RecordingCounters {
        monitor.lock()
        defer { monitor.unlock() }
        return counts
    }

    var lastError: JournalError? {
        monitor.lock()
        defer { monitor.unlock() }
        return error
    }

    var currentPhase: Phase {
        monitor.lock()
        defer { monitor.unlock() }
        return phase
    }

    // MARK: - The writer thread

    /// Called first on the writer thread.
    func writerStarted() {
        monitor.lock()
        writerThread = pthread_self()
        monitor.unlock()
    }

    /// Waits for work and takes everything buffered; `nil` when the session is over.
    /// - Parameter spare: an empty array with capacity, swapped in as the new buffer so
    ///   producers never wait for an allocation.
    func takeBatch(swapping spare: inout PendingEvents) -> RecordBatch? {
        monitor.lock()
        defer { monitor.unlock() }
        while phase == .recording && pending.isEmpty && gap == nil {
            writerState = .idle
            monitor.wait(work)
        }
        if phase == .recording && gap == nil && urgentRequests == 0 && roomWaiters == 0
            && pending.count < batchThreshold && gatherNanoseconds > 0 {
            writerState = .gathering
            monitor.wait(work, nanoseconds: gatherNanoseconds)
        }
        writerState = .working
        guard phase == .recording || phase == .closing else { return nil }
        swap(&pending, &spare)
        let batch = RecordBatch(firstSeq: firstPendingSeq, pending: spare, gap: gap, endsSession: phase == .closing)
        spare = PendingEvents()
        firstPendingSeq = nextSeq
        gap = nil
        if roomWaiters > 0 { monitor.broadcast(room) }
        return batch
    }

    /// The writer committed `batch`.
    func committed(_ batch: RecordBatch) {
        monitor.lock()
        defer { monitor.unlock() }
        committedSeq = batch.lastSeq
        counts.written += batch.pending.count
        if batch.endsSession { phase = .closed }
        monitor.broadcast(progress)
    }

    /// The writer could not commit `batch`: recording stops; the batch and everything
    /// still buffered are counted as unwritten. The writer then tells the app and calls
    /// `announced()`.
    func failed(_ batch: RecordBatch, error: JournalError) {
        monitor.lock()
        defer { monitor.unlock() }
        counts.unwritten += batch.pending.count + pending.count
        pending = PendingEvents()
        gap = nil
        firstPendingSeq = nextSeq
        phase = .failed
        self.error = error
        announcing = true
        monitor.broadcast(room)
    }

    /// The app has been told of the failure: `flush()` and `close()` may return.
    func announced() {
        monitor.lock()
        defer { monitor.unlock() }
        announcing = false
        monitor.broadcast(progress)
    }
}
