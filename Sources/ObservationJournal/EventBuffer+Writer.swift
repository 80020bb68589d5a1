import SystemShim

// The writer thread's side of `EventBuffer`: batches taken from the ring, and what became
// of them.
extension EventBuffer {
    /// Called first on the writer thread.
    func writerStarted() {
        monitor.lock()
        writerThread = pthread_self()
        monitor.unlock()
    }

    /// Under the lock: the entries written from the place the writer takes next on, before
    /// the first gap or entry still being copied in (at most up to `limit`), and whether a
    /// gap follows them.
    private func ready(limit: Int) -> (count: Int, gapFollows: Bool) {
        let nextGap = gaps.first?.place ?? Int.max
        let count = ring.written(before: limit, stoppingAt: nextGap)
        let end = ring.takenCount + count
        return (count, end == nextGap && end < limit)
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
            let start = ring.takenCount
            let claimed = phase == .closing ? closingEnd : ring.claimed
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
                if ring.claimed != start { continue }
                monitor.wait(work)
            } else {
                // Claimed but still being copied in: its producer wakes us when it is done
                // (it sees `idle`); the timeout covers it having seen `working` just before.
                writerState.store(WriterState.idle.rawValue, ordering: .sequentiallyConsistent)
                monitor.wait(work, nanoseconds: 100_000)
            }
        }
        writerState.store(WriterState.working.rawValue, ordering: .sequentiallyConsistent)
        let first = ring.takenCount
        var place = ring.move(found.count, into: &spare)
        var gap: GapRecord? = nil
        if found.gapFollows {
            gap = gaps.removeFirst().gap
            place += 1
        }
        ring.release(upTo: place)
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
        if roomWaiters > 0 { room.broadcast() }
        return batch
    }

    /// The writer committed `batch`.
    func committed(_ batch: RecordBatch) {
        monitor.lock()
        defer { monitor.unlock() }
        committedSeq = batch.lastSeq
        counts.written += batch.pending.count
        if batch.endsSession { phase = .closed }
        progress.broadcast()
    }

    /// The writer could not commit `batch`: recording stops; the batch and everything
    /// still buffered are counted as unwritten (entries still in the ring are freed with
    /// it). The writer then tells the app and calls `announced()`.
    func failed(_ batch: RecordBatch, error: JournalError) {
        monitor.lock()
        defer { monitor.unlock() }
        let claimed = ring.close()
        let buffered = claimed - ring.takenCount - gaps.count
        counts.unwritten += batch.pending.count + buffered
        ended.removeAll()
        definitions.removeAll()
        phase = .failed
        self.error = error
        announcing = true
        room.broadcast()
    }

    /// The app has been told of the failure: `flush()` and `close()` may return.
    func announced() {
        monitor.lock()
        defer { monitor.unlock() }
        announcing = false
        progress.broadcast()
    }
}
