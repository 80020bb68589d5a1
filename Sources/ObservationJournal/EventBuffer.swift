import SystemShim
import ObserverCore
import Synchronization

/// The session's sink: numbers each event as the registry hands it over and keeps it in a
/// bounded in-memory ring (`EventRing`), which the writer thread drains.
///
/// The calling thread claims the next place of the ring with one compare-and-swap (its
/// place is its sequence number: seq = place + 1), copies the event's fixed-size record
/// into it and marks it written (the registry writes records for its frequent actions:
/// see `RecordSink`); events and rows are built on the writer thread. No lock is taken
/// while there is room and the session is recording: a recording thread must not wait
/// for another one, nor for the writer, while the ring has room. State-changing events
/// arrive while the registry holds its own lock, so their places follow the registry's
/// order; numbers are gap-free because every claim takes the next place (a run of dropped
/// events takes one, for its `gap` event).
///
/// Everything rarer goes through `monitor`: a full ring (wait for room, or drop into a
/// gap), closing, a failed session, definitions, flush and the writer's waits. The writer
/// is woken only when it sleeps with nothing to do, or when enough events for a good
/// batch have gathered while it waits for more, so a busy app pays for a wake-up once per
/// batch, not once per event.
///
/// Producers are in `EventBuffer+Producers.swift`, the writer's side in
/// `EventBuffer+Writer.swift`.
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

    enum WriterState: UInt8 {
        /// Writing a batch, or about to take one: no need to wake it.
        case working
        /// Waiting for the first event (or for one being written into its place).
        case idle
        /// Has a few events and waits briefly for more to make a larger batch.
        case gathering
    }

    /// A run of dropped events at its place in the ring (it holds no entry there).
    struct PlacedGap {
        let place: Int
        var gap: GapRecord
    }

    /// Guards the state below; callers lock, check, wait and unlock explicitly, and every
    /// wait is in a loop re-checking its condition.
    let monitor = Lock()
    /// Signalled for the writer: events, a flush, or close.
    let work = LockCondition()
    /// Signalled for producers waiting for room.
    let room = LockCondition()
    /// Signalled when the writer committed a batch, ended or failed.
    let progress = LockCondition()

    let policy: Journal.BufferFullPolicy
    /// Gathered events that make the writer start at once rather than wait for more.
    let batchThreshold: Int
    let gatherNanoseconds: UInt64

    /// The entries (no lock).
    let ring: EventRing
    /// The writer's `WriterState`; changed under the lock, read by producers without it.
    let writerState = Atomic<UInt8>(WriterState.working.rawValue)

    // The state guarded by `monitor`. `@exclusivity(unchecked)` as in `Protected`: the
    // monitor already makes every access exclusive, and the run-time check (a call into
    // the runtime per access) must stay off the producers' hand-over.
    /// Channels and registrations defined since the last batch.
    @exclusivity(unchecked) var definitions = PendingEvents()
    /// Channels deallocated, with the number of places claimed then: every record naming
    /// one was claimed before, so it is handed to the writer once those are taken.
    @exclusivity(unchecked) var ended: [(id: UInt64, after: Int)] = []
    /// Gaps not yet taken by the writer, in place order.
    @exclusivity(unchecked) var gaps: [PlacedGap] = []
    /// Places ever claimed by gaps (not events).
    @exclusivity(unchecked) var gapPlaces = 0
    /// Events accepted (and counted as unwritten) after writing failed.
    @exclusivity(unchecked) var acceptedAfterFailure = 0
    /// Places claimed when closing began, plus those claimed since by `closingWaiters`:
    /// the writer ends the session once it took them all.
    @exclusivity(unchecked) var closingEnd = 0
    /// Producers that were waiting for room when closing began and have not claimed their
    /// place yet. Their events were handed over before the close, and `.wait` loses
    /// nothing: the session ends only after they are written (or writing failed).
    @exclusivity(unchecked) var closingWaiters = 0
    @exclusivity(unchecked) var committedSeq: Int64 = 0
    @exclusivity(unchecked) var phase: Phase = .recording
    @exclusivity(unchecked) var urgentRequests = 0
    @exclusivity(unchecked) var roomWaiters = 0
    /// Written, dropped and unwritten; `accepted` is worked out from the claims.
    @exclusivity(unchecked) var counts = RecordingCounters()
    @exclusivity(unchecked) var error: JournalError? = nil
    /// Set between a failure and the end of the error callback: `flush()` and `close()`
    /// on other threads wait for it, so they return only after the app was told.
    @exclusivity(unchecked) var announcing = false
    /// The writer thread, whose own calls (from the error callback) must never wait.
    @exclusivity(unchecked) var writerThread: pthread_t? = nil

    /// The places a ring for `capacity` events takes: at least 1, at most
    /// `Journal.Options.maxBufferCapacity` (the ring is reserved whole, and rounding a
    /// capacity above 2^62 up to a power of two would overflow).
    static func places(forCapacity capacity: Int) -> Int {
        min(max(1, capacity), Journal.Options.maxBufferCapacity)
    }

    init(capacity: Int, policy: Journal.BufferFullPolicy, gatherMilliseconds: Int) {
        ring = EventRing(capacity: Self.places(forCapacity: capacity))
        self.policy = policy
        self.batchThreshold = max(1, min(ring.capacity / 4, 4_096))
        self.gatherNanoseconds = UInt64(max(0, gatherMilliseconds)) * 1_000_000
    }

    /// The events the ring holds at most.
    var capacity: Int { ring.capacity }

    // MARK: - The app (flush, close, state)

    /// Returns when every event accepted so far is committed, or writing has stopped.
    func flush() {
        monitor.lock()
        defer { monitor.unlock() }
        let target = Int64(ring.claimed)
        urgentRequests += 1
        while (committedSeq < target && (phase == .recording || phase == .closing)) || mustAwaitAnnouncement {
            wakeWriterLocked()
            monitor.wait(progress)
        }
        urgentRequests -= 1
    }

    /// Stops accepting events, lets the writer commit the rest and end the session, and
    /// returns when it has (or writing has failed). The rest includes the events of
    /// producers waiting for room as it begins: they were handed over before the close.
    func close() {
        monitor.lock()
        defer { monitor.unlock() }
        if phase == .recording {
            phase = .closing
            closingEnd = ring.close()
            // Every producer in `roomWaiters` waits in the recording phase (none can
            // start to wait from now on, but for its own place below).
            closingWaiters = roomWaiters
            room.broadcast()
        }
        while phase == .closing || mustAwaitAnnouncement {
            wakeWriterLocked()
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
        var result = counts
        result.accepted = ring.claimed - gapPlaces + acceptedAfterFailure
        return result
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

    /// Under the lock: wakes the writer unless it is working.
    func wakeWriterLocked() {
        if writerState.load(ordering: .relaxed) != WriterState.working.rawValue {
            writerState.store(WriterState.working.rawValue, ordering: .sequentiallyConsistent)
            work.signal()
        }
    }
}
