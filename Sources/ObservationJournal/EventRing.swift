import CThreadContext
import ObserverCore
import Synchronization

/// The places of the event buffer's ring: one entry per place (a record, and beside it a
/// detail and a call site when the record has them), claimed by producers without a lock
/// and taken out by the writer in place order. Place p is the event with sequence number
/// p + 1, kept at index `p & mask`.
///
/// Who may touch a place: its producer between its claim and its mark, the writer after
/// it read the mark and before it advanced `taken` past it; nobody else. A producer may
/// claim place p only while p - taken < capacity, so no two live places share an index.
/// The lock, the phases and the gaps are `EventBuffer`'s.
struct EventRing: ~Copyable {
    /// What a place holds beside its record.
    enum Detail {
        /// Nothing: the place's index of `details` is left uninitialised (its mark says so).
        case none
        /// A `changed` record's values; its call site, if any, is in `callSites` (so that
        /// a detail takes one cache line).
        case change(ChangeValues)
        /// The `ObserverEvent` of an `.event` record (rare: boxed, so that it does not
        /// make every place of the ring as large as an event).
        indirect case event(ObserverEvent)
    }

    let capacity: Int
    /// A power of two, at least `capacity`, minus one.
    private let mask: Int
    /// Entry storage, a record and its detail per index (two arrays: a record is plain
    /// data, copied without value witnesses). The record of place p is initialised between
    /// its claim and the writer taking it, and uninitialised otherwise; so is its detail,
    /// if it has one (not `.none`: a `delivered` or `skipped` record, half of all, has
    /// none and writes nothing there, so it touches one cache line).
    private let records: UnsafeMutablePointer<EventRecord>
    /// Aligned to a cache line, so that a detail takes one line.
    private let details: UnsafeMutablePointer<Detail>
    /// The call site of a `changed` record that has one (initialised like its detail).
    private let callSites: UnsafeMutablePointer<CallSite>
    /// Per index: `Self.mark(place:detail:callSite:)` of place p once its entry is written
    /// there (release), so the writer can tell a written entry from one still being copied
    /// in, and which of its detail and call site were written.
    private let marks: UnsafeMutablePointer<Atomic<Int>>
    /// Places claimed so far, times two; the low bit set once the ring takes no more
    /// lock-free claims (closing, failed).
    private let claims = Atomic<Int>(0)
    /// Places the writer has taken (their entries moved out).
    private let taken = Atomic<Int>(0)

    /// Bits of a mark: the place's detail, its call site were written.
    private static let detailMark = 1
    private static let callSiteMark = 2

    init(capacity: Int) {
        self.capacity = capacity
        var size = 1
        while size < capacity { size <<= 1 }
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
        // No producer is left (each holds the buffer): every claimed place is written, or
        // is a gap's (claimed, never written: its index keeps an older place's mark).
        let end = claims.load(ordering: .acquiring) >> 1
        var place = taken.load(ordering: .relaxed)
        while place < end {
            let mark = marks[place & mask].load(ordering: .acquiring)
            if mark & ~3 == Self.mark(place: place, detail: false, callSite: false) {
                if mark & Self.detailMark != 0 { (details + (place & mask)).deinitialize(count: 1) }
                if mark & Self.callSiteMark != 0 { (callSites + (place & mask)).deinitialize(count: 1) }
            }
            place += 1
        }
        records.deallocate()
        UnsafeMutableRawPointer(details).deallocate()
        callSites.deallocate()
        marks.deinitialize(count: mask + 1)
        marks.deallocate()
    }

    // MARK: Claims

    /// Claims the next place while there is room and the ring takes lock-free claims;
    /// `nil` otherwise.
    ///
    /// This and the producers' writes below (`initialize`, `mark`) are forced inline into
    /// `EventBuffer`'s producers: the optimiser leaves them out of line otherwise, which
    /// `callgrind-per-event.sh RegistryBenchmark recording` shows on every recorded post
    /// (BENCHMARKS.md, "Recording on the app's thread").
    @inline(__always)
    func claim() -> Int? {
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

    /// Under the buffer's lock: claims the next place whether or not the ring takes
    /// lock-free claims (a gap's place, or a producer owed one while closing; the caller
    /// made sure there is room if it writes an entry there).
    func claimLocked() -> Int {
        claims.wrappingAdd(2, ordering: .sequentiallyConsistent).oldValue >> 1
    }

    /// Places claimed so far.
    var claimed: Int { claims.load(ordering: .sequentiallyConsistent) >> 1 }

    /// Stops lock-free claims; returns the places claimed.
    func close() -> Int {
        claims.bitwiseOr(1, ordering: .sequentiallyConsistent).oldValue >> 1
    }

    /// Places the writer has taken (their entries moved out).
    var takenCount: Int { taken.load(ordering: .relaxed) }

    /// Whether place `place` is beyond the ring's room (it may not be written yet).
    func isFull(at place: Int) -> Bool {
        place &- taken.load(ordering: .relaxed) >= capacity
    }

    // MARK: Producers

    /// Places between the one being written and the one `prefetch(after:)` asks for.
    private static let prefetchDistance = 12

    /// Asks the CPU for the line of the record of a place a little ahead, and of its
    /// detail if `detail` (a record is likely followed, that far ahead, by one of its own
    /// kind: a change by a change), so that they are in the cache when a producer writes
    /// them. The ring is larger than the caches and the writer's core last read its lines,
    /// and the hardware's own prefetching does not hide that (see BENCHMARKS.md,
    /// "Recording on the app's thread"). A hint: the place may still be the writer's;
    /// nothing is read or written there.
    func prefetch(after place: Int, detail: Bool) {
        let ahead = (place &+ Self.prefetchDistance) & mask
        oj_prefetch(records + ahead)
        if detail { oj_prefetch(details + ahead) }
    }

    /// Writes the record of claimed place `place`.
    @inline(__always)
    func initialize(_ place: Int, record: EventRecord) {
        (records + (place & mask)).initialize(to: record)
    }

    /// Writes the detail of claimed place `place` (never `.none`: that is not written).
    @inline(__always)
    func initialize(_ place: Int, detail: consuming Detail) {
        (details + (place & mask)).initialize(to: detail)
    }

    /// Writes the call site of claimed place `place`.
    @inline(__always)
    func initialize(_ place: Int, callSite: CallSite) {
        (callSites + (place & mask)).initialize(to: callSite)
    }

    /// Writes a whole entry at claimed place `place` and marks it written.
    func fill(_ place: Int, _ record: EventRecord, _ detail: consuming Detail, callSite: CallSite?) {
        initialize(place, record: record)
        if let callSite { initialize(place, callSite: callSite) }
        if case .none = detail {
            mark(place, detail: false, callSite: callSite != nil)
            return
        }
        initialize(place, detail: detail)
        mark(place, detail: true, callSite: callSite != nil)
    }

    /// The mark of place `place` once its entry is written: p + 1, times four, plus
    /// `detailMark` and `callSiteMark` for what was written beside the record (wrapping:
    /// the writer compares, never decodes).
    private static func mark(place: Int, detail: Bool, callSite: Bool) -> Int {
        (place &+ 1) &<< 2 | (detail ? detailMark : 0) | (callSite ? callSiteMark : 0)
    }

    /// Marks the entry at claimed `place` written (its record initialised, its detail if
    /// `detail`, its call site if `callSite`): after it the writer may take it.
    @inline(__always)
    func mark(_ place: Int, detail: Bool, callSite: Bool) {
        marks[place & mask].store(Self.mark(place: place, detail: detail, callSite: callSite), ordering: .releasing)
    }

    // MARK: The writer

    /// The entries written from place `taken` on, before `stop` or the first entry still
    /// being copied in (at most up to `limit`).
    func written(before limit: Int, stoppingAt stop: Int) -> Int {
        let first = taken.load(ordering: .relaxed)
        var place = first
        while place < limit && place != stop {
            let mark = marks[place & mask].load(ordering: .acquiring)
            if mark & ~3 != Self.mark(place: place, detail: false, callSite: false) { break }
            place += 1
        }
        return place - first
    }

    /// Moves the entries of `count` places from `taken` on into `pending` (their marks
    /// were read by `written(before:stoppingAt:)` on this thread); returns the place after.
    func move(_ count: Int, into pending: inout PendingEvents) -> Int {
        var place = taken.load(ordering: .relaxed)
        let end = place + count
        while place < end {
            pending.records.append(records[place & mask])
            let mark = marks[place & mask].load(ordering: .relaxed)
            let callSite = mark & Self.callSiteMark != 0 ? (callSites + (place & mask)).move() : nil
            if mark & Self.detailMark != 0 {
                switch (details + (place & mask)).move() {
                case .none: break
                case let .change(values): pending.changes.append(PendingEvents.ChangeDetail(values: values, callSite: callSite))
                case let .event(event): pending.events.append(event)
                }
            }
            place += 1
        }
        return place
    }

    /// The writer has moved out every entry before `place`: producers may claim the
    /// places that frees.
    func release(upTo place: Int) {
        // Releasing: the entries are moved out before producers may write there again.
        taken.store(place, ordering: .releasing)
    }
}

// MARK: - A batch's change details, lent in place

extension PendingEvents {
    /// Lends the batch's change details to `body` where they are (`ChangeDetails`):
    /// copying one out of the array retained and released each of its references.
    func withChangeDetails<Result, Failure: Error>(
        _ body: (ChangeDetails) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try changes.withUnsafeBufferPointer { (buffer) throws(Failure) -> Result in
            try body(ChangeDetails(buffer: buffer))
        }
    }
}

/// A batch's change details, lent by `PendingEvents.withChangeDetails`: valid only during
/// that call, and only while the batch is not changed.
struct ChangeDetails {
    fileprivate let buffer: UnsafeBufferPointer<PendingEvents.ChangeDetail>

    /// The detail of the batch's `index`th `changed` record.
    subscript(index: Int) -> LentChangeDetail {
        assert(index >= 0 && index < buffer.count)
        return LentChangeDetail(pointer: buffer.baseAddress! + index)
    }
}

/// One change's detail, read in place (see `ChangeDetails`).
struct LentChangeDetail {
    fileprivate let pointer: UnsafePointer<PendingEvents.ChangeDetail>

    /// The call site, if the change has one.
    var callSite: CallSite? { pointer.pointee.callSite }
    /// The old and new values when plain (`ChangeValues.plainValues(at:)`), else `.other`.
    var plainValues: (old: PlainValue, new: PlainValue) { ChangeValues.plainValues(at: pointer.pointer(to: \.values)!) }
    /// The old value, boxed.
    var old: EventValue? { pointer.pointee.old }
    /// The new value, boxed.
    var new: EventValue? { pointer.pointee.new }
}
