import CThreadContext
import SystemShim
import ObserverCore
import Synchronization

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
/// bounded in-memory ring, which the writer thread drains.
///
/// The calling thread claims the next place of the ring with one compare-and-swap (its
/// place is its sequence number: seq = place + 1), copies the event's fixed-size record
/// into it and marks it written (the registry writes records for its frequent actions:
/// see `RecordSink`); events and rows are built on the writer thread. No lock is taken
/// while there is room and the session is recording: a mutex taken per record (twice per
/// post), with its bookkeeping, was about 250 of the 1,240 instructions recording added
/// to a post at fan-out 1, and two atomic operations per record where the claim is one.
/// State-changing events arrive while the registry holds its own lock, so their places
/// follow the registry's order; numbers are gap-free because every claim takes the next
/// place (a run of dropped events takes one, for its `gap` event).
///
/// Everything rarer goes through `monitor`: a full ring (wait for room, or drop into a
/// gap), closing, a failed session, definitions, flush and the writer's waits. The writer
/// is woken only when it sleeps with nothing to do, or when enough events for a good
/// batch have gathered while it waits for more, so a busy app pays for a wake-up once per
/// batch, not once per event.
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

    private enum WriterState: UInt8 {
        /// Writing a batch, or about to take one: no need to wake it.
        case working
        /// Waiting for the first event (or for one being written into its place).
        case idle
        /// Has a few events and waits briefly for more to make a larger batch.
        case gathering
    }

    /// What a place of the ring holds beside its record.
    private enum Detail {
        /// Nothing: the place's index of `details` is left uninitialised (its mark says so).
        case none
        /// A `changed` record's values; its call site, if any, is in `callSites` (so that
        /// a detail takes 64 bytes, one cache line, not 104).
        case change(ChangeValues)
        /// The `ObserverEvent` of an `.event` record (rare: boxed, so that it does not
        /// make every place of the ring as large as an event).
        indirect case event(ObserverEvent)
    }

    /// A run of dropped events at its place in the ring (it holds no entry there).
    private struct PlacedGap {
        let place: Int
        var gap: GapRecord
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

    // MARK: The ring (no lock)

    /// A power of two, at least `capacity`; place p is at index `p & mask`.
    private let mask: Int
    /// Entry storage, a record and its detail per index (two arrays: a record is plain
    /// data, copied without value witnesses). The record of place p is initialised between
    /// its claim and the writer taking it, and uninitialised otherwise; so is its detail,
    /// if it has one (not `.none`: a `delivered` or `skipped` record, half of all, has
    /// none, and writing one was 7 stores and a second cache line per record).
    private let records: UnsafeMutablePointer<EventRecord>
    /// Aligned to a cache line, so that a detail (57 bytes, 64 apart) takes one line.
    private let details: UnsafeMutablePointer<Detail>
    /// The call site of a `changed` record that has one (initialised like its detail).
    private let callSites: UnsafeMutablePointer<CallSite>
    /// Per index: `Self.mark(place:detail:callSite:)` of place p once its entry is written
    /// there (release), so the writer can tell a written entry from one still being copied
    /// in, and which of its detail and call site were written.
    private let marks: UnsafeMutablePointer<Atomic<Int>>
    /// Places claimed so far, times two; the low bit set once the ring takes no more
    /// claims without the lock (closing, failed).
    private let claims = Atomic<Int>(0)
    /// Places the writer has taken (their entries moved out): a producer may claim place
    /// p only while p - taken < capacity.
    private let taken = Atomic<Int>(0)
    /// The writer's `WriterState`; changed under the lock, read by producers without it.
    private let writerState = Atomic<UInt8>(WriterState.working.rawValue)

    // The state guarded by `monitor`. `@exclusivity(unchecked)` as in `Protected`: the
    // monitor already makes every access exclusive, and the run-time check (a call into
    // the runtime per access) was a large share of a producer's hand-over.
    /// Channels and registrations defined since the last batch.
    @exclusivity(unchecked) private var definitions = PendingEvents()
    /// Channels deallocated, with the number of places claimed then: every record naming
    /// one was claimed before, so it is handed to the writer once those are taken.
    @exclusivity(unchecked) private var ended: [(id: UInt64, after: Int)] = []
    /// Gaps not yet taken by the writer, in place order.
    @exclusivity(unchecked) private var gaps: [PlacedGap] = []
    /// Places ever claimed by gaps (not events).
    @exclusivity(unchecked) private var gapPlaces = 0
    /// Events accepted (and counted as unwritten) after writing failed.
    @exclusivity(unchecked) private var acceptedAfterFailure = 0
    /// Places claimed when closing began, plus those claimed since by `closingWaiters`:
    /// the writer ends the session once it took them all.
    @exclusivity(unchecked) private var closingEnd = 0
    /// Producers that were waiting for room when closing began and have not claimed their
    /// place yet. Their events were handed over before the close, and `.wait` loses
    /// nothing: the session ends only after they are written (or writing failed).
    @exclusivity(unchecked) private var closingWaiters = 0
    @exclusivity(unchecked) private var committedSeq: Int64 = 0
    @exclusivity(unchecked) private var phase: Phase = .recording
    @exclusivity(unchecked) private var urgentRequests = 0
    @exclusivity(unchecked) private var roomWaiters = 0
    /// Written, dropped and unwritten; `accepted` is worked out from the claims.
    @exclusivity(unchecked) private var counts = RecordingCounters()
    @exclusivity(unchecked) private var error: JournalError? = nil
    /// Set between a failure and the end of the error callback: `flush()` and `close()`
    /// on other threads wait for it, so they return only after the app was told.
    @exclusivity(unchecked) private var announcing = false
    /// The writer thread, whose own calls (from the error callback) must never wait.
    @exclusivity(unchecked) private var writerThread: pthread_t? = nil

    /// The places a ring for `capacity` events takes: at least 1, at most
    /// `Journal.Options.maxBufferCapacity` (the ring is reserved whole, and rounding a
    /// capacity above 2^62 up to a power of two would overflow).
    static func places(forCapacity capacity: Int) -> Int {
        min(max(1, capacity), Journal.Options.maxBufferCapacity)
    }

    init(capacity: Int, policy: Journal.BufferFullPolicy, gatherMilliseconds: Int) {
        self.capacity = Self.places(forCapacity: capacity)
        self.policy = policy
        self.batchThreshold = max(1, min(self.capacity / 4, 4_096))
        self.gatherNanoseconds = UInt64(max(0, gatherMilliseconds)) * 1_000_000
        work = monitor.makeCondition()
        room = monitor.makeCondition()
        progress = monitor.makeCondition()
        var size = 1
        while size < self.capacity { size <<= 1 }
        mask = size - 1
        records = .allocate(capacity: size)
        details = UnsafeMutableRawPointer.allocate(
            byteCount: MemoryLayout<Detail>.stride * size, alignment: max(64, MemoryLayout<Detail>.alignment)
        ).bindMemory(to: Detail.self, capacity: size)
        callSites = .allocate(capacity: size)
        marks = .allocate(capacity: size)
        for index in 0..<size { (marks + index).initialize(to: Atomic(0)) }
    }

    deinit {
        // No producer is left (each holds the buffer): every claimed place is written.
        let end = claims.load(ordering: .acquiring) >> 1
        var place = taken.load(ordering: .relaxed)
        var gapIndex = 0
        while place < end {
            if gapIndex < gaps.count && gaps[gapIndex].place == place {
                gapIndex += 1
            } else {
                // The mark is this place's (every claimed place is written): its bits say
                // what was written beside the record.
                let mark = marks[place & mask].load(ordering: .acquiring)
                if mark & ~3 == Self.mark(place: place, detail: false, callSite: false) {
                    if mark & Self.detailMark != 0 { (details + (place & mask)).deinitialize(count: 1) }
                    if mark & Self.callSiteMark != 0 { (callSites + (place & mask)).deinitialize(count: 1) }
                }
            }
            place += 1
        }
        records.deallocate()
        UnsafeMutableRawPointer(details).deallocate()
        callSites.deallocate()
        marks.deinitialize(count: mask + 1)
        marks.deallocate()
    }

    // MARK: - Producers (any thread)

    func record(_ event: ObserverEvent) {
        let record = EventRecord(
            kind: .event, flags: event.isMainThread ? .mainThread : [], time: event.time, thread: event.thread,
            channel: 0, depth: 0
        )
        enqueue(record, .event(event))
    }

    func record(_ record: EventRecord) {
        // The entry is written in place here rather than through `enqueue`: passing the
        // detail down made the compiler build it on the stack and copy it (13 words). It
        // has no detail: none is written.
        if let place = claim() {
            prefetch(after: place, detail: false)
            (records + (place & mask)).initialize(to: record)
            publish(place, detail: false, callSite: false)
            return
        }
        enqueueLocked(record, .none)
    }

    func recordChange(
        _ record: EventRecord, values: consuming ChangeValues, callSite: CallSite?
    ) {
        // The entry is written in place, as in `record(_:)`: going through `enqueue`
        // copied the values through the stack three times.
        if let place = claim() {
            prefetch(after: place, detail: true)
            (records + (place & mask)).initialize(to: record)
            (details + (place & mask)).initialize(to: .change(consume values))
            // Copying a `CallSite?` goes through its value witnesses (~80 instructions)
            // even when it is `nil`, the usual case (`value.value = x` records none).
            if callSite == nil {
                publish(place, detail: true, callSite: false)
            } else {
                (callSites + (place & mask)).initialize(to: callSite.unsafelyUnwrapped)
                publish(place, detail: true, callSite: true)
            }
            return
        }
        enqueueLocked(record, .change(consume values), callSite: callSite)
    }

    func define(_ info: ChannelInfo) {
        monitor.lock()
        defer { monitor.unlock() }
        // Never dropped: a record naming the channel may be kept when its neighbours are not.
        if phase == .recording { definitions.channels.append(info) }
    }

    func define(_ info: RegistrationInfo) {
        monitor.lock()
        defer { monitor.unlock() }
        if phase == .recording { definitions.registrations.append(info) }
    }

    func channelEnded(_ id: UInt64) {
        monitor.lock()
        defer { monitor.unlock() }
        if phase == .recording { ended.append((id, claims.load(ordering: .sequentiallyConsistent) >> 1)) }
    }

    /// Claims the next place while there is room and no lock is needed; `nil` otherwise.
    @inline(__always)
    private func claim() -> Int? {
        var current = claims.load(ordering: .relaxed)
        while true {
            if current & 1 != 0 { return nil }
            let place = current >> 1
            // Acquiring: the writer moved the entry out of this index before it said so.
            if place &- taken.load(ordering: .acquiring) >= capacity { return nil }
            let (exchanged, original) = claims.compareExchange(
                expected: current, desired: current &+ 2, ordering: .sequentiallyConsistent
            )
            if exchanged { return place }
            current = original
        }
    }

    /// Places between the one being written and the one `prefetch(after:)` asks for.
    private static let prefetchDistance = 12

    /// Asks the CPU for the line of the record of a place a little ahead, and of its
    /// detail if `detail` (a record is likely followed, that far ahead, by one of its own
    /// kind: a change by a change), so that they are in the cache when a producer writes
    /// them. The ring is larger than the caches and the writer's core last read its lines:
    /// without the hint the stores of each record waited for their lines (a fifth of
    /// recording's cost on the app's thread, by timing), which the hardware's own
    /// prefetching did not hide. A hint: the place may still be the writer's; nothing is
    /// read or written there.
    @inline(__always)
    private func prefetch(after place: Int, detail: Bool) {
        let ahead = (place &+ Self.prefetchDistance) & mask
        oj_prefetch(records + ahead)
        if detail { oj_prefetch(details + ahead) }
    }

    /// Writes an entry at its claimed `place`; returns the writer's state after.
    @inline(__always)
    private func fill(
        _ record: EventRecord, _ detail: consuming Detail, callSite: CallSite? = nil, at place: Int
    ) -> UInt8 {
        (records + (place & mask)).initialize(to: record)
        if let callSite { (callSites + (place & mask)).initialize(to: callSite) }
        if case .none = detail { return mark(place, detail: false, callSite: callSite != nil) }
        (details + (place & mask)).initialize(to: detail)
        return mark(place, detail: true, callSite: callSite != nil)
    }

    /// Bits of a mark: the place's detail, its call site were written.
    private static let detailMark = 1
    private static let callSiteMark = 2

    /// The mark of place `place` once its entry is written: p + 1, times four, plus
    /// `detailMark` and `callSiteMark` for what was written beside the record (wrapping:
    /// the writer compares, never decodes).
    @inline(__always)
    private static func mark(place: Int, detail: Bool, callSite: Bool) -> Int {
        (place &+ 1) &<< 2 | (detail ? detailMark : 0) | (callSite ? callSiteMark : 0)
    }

    /// Marks the entry at its claimed `place` written (its record initialised, its detail
    /// if `detail`, its call site if `callSite`); returns the writer's state after.
    @inline(__always)
    private func mark(_ place: Int, detail: Bool, callSite: Bool) -> UInt8 {
        marks[place & mask].store(Self.mark(place: place, detail: detail, callSite: callSite), ordering: .releasing)
        // Sequentially consistent with the writer's store of `idle` and its reading of
        // `claims` after it: either it sees this claim, or this sees it idle.
        return writerState.load(ordering: .sequentiallyConsistent)
    }

    /// Marks the entry at its claimed `place` written, outside the lock, and wakes the
    /// writer if it needs waking.
    @inline(__always)
    private func publish(_ place: Int, detail: Bool, callSite: Bool) {
        let state = mark(place, detail: detail, callSite: callSite)
        if state != WriterState.working.rawValue { wakeWriter(after: place, state: state) }
    }

    @inline(__always)
    private func enqueue(_ record: EventRecord, _ detail: consuming Detail) {
        if let place = claim() {
            let state = fill(record, detail, at: place)
            if state != WriterState.working.rawValue { wakeWriter(after: place, state: state) }
            return
        }
        enqueueLocked(record, detail)
    }

    /// The ring is full, closing or failed: under the lock, waits for room or drops the
    /// event as the policy says, or counts it.
    @inline(never)
    private func enqueueLocked(_ record: EventRecord, _ detail: Detail, callSite: CallSite? = nil) {
        // After the lock: the thread's next callback must not count the wait as its own.
        if enqueueWaiting(record, detail, callSite: callSite) { recordingThreadWaited() }
    }

    /// `enqueueLocked` under the lock; returns whether the producer waited for room.
    private func enqueueWaiting(_ record: EventRecord, _ detail: Detail, callSite: CallSite?) -> Bool {
        monitor.lock()
        defer { monitor.unlock() }
        // Set once this producer waits for room while recording: a close that begins
        // meanwhile still owes its event a place (`closingWaiters`).
        var waitedWhileRecording = false
        while true {
            switch phase {
            case .recording:
                if let place = claim() {
                    if fill(record, detail, callSite: callSite, at: place) != WriterState.working.rawValue
                        && mustWake(after: place) {
                        wakeWriterLocked()
                    }
                    return waitedWhileRecording
                }
                if policy == .drop {
                    drop(record)
                    return waitedWhileRecording
                }
                waitedWhileRecording = true
                waitForRoom()
            case .closing where waitedWhileRecording:
                // The ring takes no lock-free claims any more: the place after the last one
                // claimed is this producer's, under the lock, once the writer made room.
                let place = closingEnd
                if place &- taken.load(ordering: .relaxed) >= capacity {
                    waitForRoom()
                    continue
                }
                claims.wrappingAdd(2, ordering: .sequentiallyConsistent)
                closingEnd = place + 1
                closingWaiters -= 1
                _ = fill(record, detail, callSite: callSite, at: place)
                wakeWriterLocked()
                return waitedWhileRecording
            case .failed:
                acceptedAfterFailure += 1
                counts.unwritten += 1
                return waitedWhileRecording
            case .closing, .closed:
                return waitedWhileRecording
            }
        }
    }

    /// Under the lock: waits until the writer has taken events (or the phase changed).
    private func waitForRoom() {
        roomWaiters += 1
        wakeWriterLocked()
        monitor.wait(room)
        roomWaiters -= 1
    }

    /// Under the lock: counts a dropped event into the latest gap if nothing was claimed
    /// since it, else opens a gap at the next place.
    private func drop(_ record: EventRecord) {
        counts.dropped += 1
        let claimed = claims.load(ordering: .sequentiallyConsistent) >> 1
        if let last = gaps.indices.last, gaps[last].place == claimed - 1 {
            gaps[last].gap.dropped += 1
        } else {
            // The gap holds no entry: it takes a place (its number) but not an index.
            let place = claims.wrappingAdd(2, ordering: .sequentiallyConsistent).oldValue >> 1
            gaps.append(PlacedGap(place: place, gap: GapRecord(
                seq: Int64(place) + 1, time: record.time, thread: record.thread, isMainThread: record.isMainThread,
                dropped: 1
            )))
            gapPlaces += 1
        }
        wakeWriterLocked()
    }

    /// Without the lock, after publishing `place`: wakes the writer if it waits for the
    /// first event, or gathers and now has enough.
    @inline(never)
    private func wakeWriter(after place: Int, state: UInt8) {
        if state == WriterState.gathering.rawValue && place &+ 1 &- taken.load(ordering: .relaxed) < batchThreshold {
            return
        }
        monitor.lock()
        defer { monitor.unlock() }
        if mustWake(after: place) { wakeWriterLocked() }
    }

    /// Under the lock, after publishing `place`: whether the writer waits for it.
    private func mustWake(after place: Int) -> Bool {
        let state = writerState.load(ordering: .relaxed)
        return state == WriterState.idle.rawValue
            || (state == WriterState.gathering.rawValue && place &+ 1 &- taken.load(ordering: .relaxed) >= batchThreshold)
    }

    /// Under the lock.
    @inline(__always)
    private func wakeWriterLocked() {
        if writerState.load(ordering: .relaxed) != WriterState.working.rawValue {
            writerState.store(WriterState.working.rawValue, ordering: .sequentiallyConsistent)
            monitor.signal(work)
        }
    }

    /// Under the lock: stops claims without the lock; returns the places claimed.
    private func closeRing() -> Int {
        claims.bitwiseOr(1, ordering: .sequentiallyConsistent).oldValue >> 1
    }

    // MARK: - The app (flush, close, state)

    /// Returns when every event accepted so far is committed, or writing has stopped.
    func flush() {
        monitor.lock()
        defer { monitor.unlock() }
        let target = Int64(claims.load(ordering: .sequentiallyConsistent) >> 1)
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
            closingEnd = closeRing()
            // Every producer in `roomWaiters` waits in the recording phase (none can
            // start to wait from now on, but for its own place below).
            closingWaiters = roomWaiters
            monitor.broadcast(room)
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
        result.accepted = (claims.load(ordering: .sequentiallyConsistent) >> 1) - gapPlaces + acceptedAfterFailure
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

    // MARK: - The writer thread

    /// Called first on the writer thread.
    func writerStarted() {
        monitor.lock()
        writerThread = pthread_self()
        monitor.unlock()
    }

    /// Under the lock: the entries written from place `taken` on, before the first gap or
    /// entry still being copied in (at most `limit`), and whether a gap follows them.
    private func ready(limit: Int) -> (count: Int, gapFollows: Bool) {
        let first = taken.load(ordering: .relaxed)
        let nextGap = gaps.first?.place ?? Int.max
        var place = first
        while place < limit {
            if place == nextGap { return (place - first, true) }
            let mark = marks[place & mask].load(ordering: .acquiring)
            if mark & ~3 != Self.mark(place: place, detail: false, callSite: false) { break }
            place += 1
        }
        return (place - first, false)
    }

    /// Waits for work and takes what is buffered, up to the first gap; `nil` when the
    /// session is over.
    /// - Parameter spare: an empty `PendingEvents` with capacity, filled and returned in
    ///   the batch so the writer's lists keep their storage from batch to batch.
    func takeBatch(swapping spare: inout PendingEvents) -> RecordBatch? {
        monitor.lock()
        defer { monitor.unlock() }
        var gathered = false
        var found: (count: Int, gapFollows: Bool) = (0, false)
        while true {
            guard phase == .recording || phase == .closing else { return nil }
            let start = taken.load(ordering: .relaxed)
            let claimed = phase == .closing ? closingEnd : claims.load(ordering: .sequentiallyConsistent) >> 1
            found = ready(limit: claimed)
            if found.count > 0 || found.gapFollows {
                if phase == .recording && !gathered && !found.gapFollows && urgentRequests == 0 && roomWaiters == 0
                    && found.count < batchThreshold && gatherNanoseconds > 0 {
                    gathered = true
                    writerState.store(WriterState.gathering.rawValue, ordering: .sequentiallyConsistent)
                    monitor.wait(work, nanoseconds: gatherNanoseconds)
                    continue
                }
                break
            }
            if claimed == start {
                // Nothing claimed: done when closing and no producer that was waiting for
                // room still has to claim its place, else sleep until a producer wakes us.
                if phase == .closing && closingWaiters == 0 { break }
                writerState.store(WriterState.idle.rawValue, ordering: .sequentiallyConsistent)
                if claims.load(ordering: .sequentiallyConsistent) >> 1 != start { continue }
                monitor.wait(work)
            } else {
                // Claimed but still being copied in: its producer wakes us when it is done
                // (it sees `idle`); the timeout covers it having seen `working` just before.
                writerState.store(WriterState.idle.rawValue, ordering: .sequentiallyConsistent)
                monitor.wait(work, nanoseconds: 100_000)
            }
        }
        writerState.store(WriterState.working.rawValue, ordering: .sequentiallyConsistent)
        let first = taken.load(ordering: .relaxed)
        var place = first
        let end = first + found.count
        while place < end {
            spare.records.append(records[place & mask])
            // `ready` read the mark with acquire on this thread.
            let mark = marks[place & mask].load(ordering: .relaxed)
            let callSite = mark & Self.callSiteMark != 0 ? (callSites + (place & mask)).move() : nil
            if mark & Self.detailMark != 0 {
                switch (details + (place & mask)).move() {
                case .none: break
                case let .change(values): spare.changes.append(PendingEvents.ChangeDetail(values: values, callSite: callSite))
                case let .event(event): spare.events.append(event)
                }
            }
            place += 1
        }
        var gap: GapRecord? = nil
        if found.gapFollows {
            gap = gaps.removeFirst().gap
            place += 1
        }
        // Releasing: the entries are moved out before producers may write there again.
        taken.store(place, ordering: .releasing)
        spare.channels.append(contentsOf: definitions.channels)
        spare.registrations.append(contentsOf: definitions.registrations)
        definitions.removeAll()
        if !ended.isEmpty {
            spare.endedChannels.append(contentsOf: ended.lazy.filter { $0.after <= place }.map(\.id))
            ended.removeAll { $0.after <= place }
        }
        let batch = RecordBatch(
            firstSeq: Int64(first) + 1, pending: spare, gap: gap,
            endsSession: phase == .closing && place == closingEnd && closingWaiters == 0
        )
        spare = PendingEvents()
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
    /// still buffered are counted as unwritten (entries still in the ring are freed with
    /// the buffer). The writer then tells the app and calls `announced()`.
    func failed(_ batch: RecordBatch, error: JournalError) {
        monitor.lock()
        defer { monitor.unlock() }
        let claimed = closeRing()
        let buffered = claimed - taken.load(ordering: .relaxed) - gaps.count
        counts.unwritten += batch.pending.count + buffered
        // `gaps` stays: `deinit` must know which places hold no entry.
        ended.removeAll()
        definitions.removeAll()
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

    // MARK: - Tests: a producer stopped between its claim and its copy, or waiting for room

    /// Claims the next place lock-free as a producer does, without writing its entry, as
    /// a producer preempted right after its compare-and-swap leaves it; `nil` when that
    /// producer would take the lock. Tests finish it with `fill(claimed:_:values:)`.
    func claimWithoutFilling() -> Int? { claim() }

    /// Producers waiting for room in a full ring, so that a test can start `close()` only
    /// once one is waiting.
    var roomWaiterCount: Int {
        monitor.lock()
        defer { monitor.unlock() }
        return roomWaiters
    }

    /// Writes the entry of a place from `claimWithoutFilling()` and wakes the writer as a
    /// producer does after its copy.
    func fill(claimed place: Int, _ record: EventRecord, values: ChangeValues? = nil) {
        let detail: Detail = values.map { .change($0) } ?? .none
        let state = fill(record, detail, at: place)
        if state != WriterState.working.rawValue { wakeWriter(after: place, state: state) }
    }
}
