import ObserverCore

// The producers' side of `EventBuffer` (any thread): the registry's records, handed over
// lock-free while the ring has room, else under the lock.
extension EventBuffer {
    func record(_ event: ObserverEvent) {
        let record = EventRecord(
            kind: .event, flags: event.isMainThread ? .mainThread : [], time: event.time, thread: event.thread,
            channel: 0, depth: 0
        )
        if let place = ring.claim() {
            write(place, record, .event(event))
            return
        }
        enqueueLocked(record, .event(event))
    }

    func record(_ record: EventRecord) {
        // The entry is written in place here rather than through `write`, which would
        // build the detail on the stack and copy it. It has no detail: none is written.
        if let place = ring.claim() {
            ring.prefetch(after: place, detail: false)
            ring.initialize(place, record: record)
            ring.mark(place, detail: false, callSite: false)
            wakeWriterIfWaiting(after: place)
            return
        }
        enqueueLocked(record, .none)
    }

    func recordChange(
        _ record: EventRecord, values: consuming ChangeValues, callSite: CallSite?
    ) {
        // The entry is written in place, as in `record(_:)`: passing the values down
        // copies them through the stack.
        if let place = ring.claim() {
            ring.prefetch(after: place, detail: true)
            ring.initialize(place, record: record)
            ring.initialize(place, detail: .change(consume values))
            // Copying a `CallSite?` goes through its value witnesses even when it is
            // `nil`, the usual case (`value.value = x` records none): test first.
            if callSite == nil {
                ring.mark(place, detail: true, callSite: false)
            } else {
                ring.initialize(place, callSite: callSite!)
                ring.mark(place, detail: true, callSite: true)
            }
            wakeWriterIfWaiting(after: place)
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
        if phase == .recording { ended.append((id, ring.claimed)) }
    }

    /// Writes the entry of a place claimed lock-free (`ring.claim()`), marks it written
    /// and wakes the writer if it waits for it.
    func write(_ place: Int, _ record: EventRecord, _ detail: consuming EventRing.Detail, callSite: CallSite? = nil) {
        ring.fill(place, record, detail, callSite: callSite)
        wakeWriterIfWaiting(after: place)
    }

    /// Without the lock, after marking `place` written: wakes the writer if it waits.
    /// Forced inline like the ring's producer calls (`EventRing.claim`).
    @inline(__always)
    private func wakeWriterIfWaiting(after place: Int) {
        // Sequentially consistent with the writer's store of `idle` and its reading of the
        // claims after it: either it sees this claim, or this sees it idle.
        let state = writerState.load(ordering: .sequentiallyConsistent)
        if state != WriterState.working.rawValue { wakeWriter(after: place, state: state) }
    }

    /// The ring is full, closing or failed: under the lock, waits for room or drops the
    /// event as the policy says, or counts it.
    @inline(never)
    private func enqueueLocked(_ record: EventRecord, _ detail: EventRing.Detail, callSite: CallSite? = nil) {
        // After the lock: the thread's next callback must not count the wait as its own.
        if enqueueWaiting(record, detail, callSite: callSite) { recordingThreadWaited() }
    }

    /// `enqueueLocked` under the lock; returns whether the producer waited for room.
    private func enqueueWaiting(_ record: EventRecord, _ detail: EventRing.Detail, callSite: CallSite?) -> Bool {
        monitor.lock()
        defer { monitor.unlock() }
        // Set once this producer waits for room while recording: a close that begins
        // meanwhile still owes its event a place (`closingWaiters`).
        var waitedWhileRecording = false
        while true {
            switch phase {
            case .recording:
                if let place = ring.claim() {
                    ring.fill(place, record, detail, callSite: callSite)
                    if writerState.load(ordering: .sequentiallyConsistent) != WriterState.working.rawValue
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
                if ring.isFull(at: place) {
                    waitForRoom()
                    continue
                }
                _ = ring.claimLocked()
                closingEnd = place + 1
                closingWaiters -= 1
                ring.fill(place, record, detail, callSite: callSite)
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
        if let last = gaps.indices.last, gaps[last].place == ring.claimed - 1 {
            gaps[last].gap.dropped += 1
        } else {
            // The gap holds no entry: it takes a place (its number) but not an index.
            let place = ring.claimLocked()
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
        if state == WriterState.gathering.rawValue && place &+ 1 &- ring.takenCount < batchThreshold {
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
            || (state == WriterState.gathering.rawValue && place &+ 1 &- ring.takenCount >= batchThreshold)
    }
}
