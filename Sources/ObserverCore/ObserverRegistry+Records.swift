/// The registry's side of `RecordSink`: its frequent actions written as `EventRecord`s,
/// with no `ObserverEvent` built and nothing reference-counted per event.
extension ObserverRegistry {
    /// What a `changed` record was stamped with: the change's depth, and the clock reading
    /// and main-queue answer the post's delivery loop starts from.
    struct ChangeStamp {
        let depth: Int
        let time: UInt64
        let onMainQueue: Bool
    }

    /// Writes the `changed` record of a post to `recordSink`; under the channel's lock.
    /// Returns what the record was stamped with. The thread's delivery-loop answers
    /// (`ThreadContext.queueChange`) are left alone: only a caller that runs the loop sets
    /// them, and clears them when it ends.
    ///
    /// The record methods call `recordSink?` themselves rather than take the sink as an
    /// argument: binding it (`if let`) retained and released it around every record, two
    /// atomic operations per event, where optional chaining on the stored `let` borrows it.
    @discardableResult
    func recordChanged(
        context: ThreadContext, channel: Channel, values: consuming ChangeValues,
        isPrior: Bool, callSite: CallSite?, change: UInt64
    ) -> ChangeStamp {
        let onMainQueue = MainQueue.isCurrent
        // One clock reading for the record and the start of the loop's first callback.
        let time = monotonicNanoseconds()
        var flags: EventRecord.Flags = onMainQueue ? .mainQueue : []
        if context.isMain { flags.insert(.mainThread) }
        if isPrior { flags.insert(.prior) }
        let depth = context.depth
        // The depth as it is: each level is a callback nested on this thread's stack, so it
        // never nears Int32's range: no clamping per record.
        recordSink?.recordChange(
            EventRecord(
                kind: .changed, flags: flags, time: time, thread: context.number,
                channel: channel.info.id, depth: Int32(truncatingIfNeeded: depth), liveCount: UInt64(channel.liveCount),
                changeNumber: change
            ),
            values: values, callSite: callSite
        )
        return ChangeStamp(depth: depth, time: time, onMainQueue: onMainQueue)
    }

    /// Writes the `delivered` record of a callback that ran.
    func recordDelivered(
        context: ThreadContext, entry: RegistrationEntry, depth: Int, onMainQueue: Bool,
        end: UInt64, duration: UInt64, cpu: UInt64, waits: UInt64?, runQueue: UInt64?, change: UInt64
    ) {
        var flags: EventRecord.Flags = onMainQueue ? .mainQueue : []
        if context.isMain { flags.insert(.mainThread) }
        if waits != nil { flags.insert(.countedWaits) }
        if runQueue != nil { flags.insert(.measuredRunQueue) }
        // The depth as it is (see `recordChanged`).
        recordSink?.record(
            EventRecord(
                kind: .delivered, flags: flags, time: end, thread: context.number, channel: entry.info.channelID,
                depth: Int32(truncatingIfNeeded: depth), registration: entry.info.id, owner: entry.info.owner.id,
                liveCount: runQueue ?? 0, duration: duration, cpu: cpu, waits: waits ?? 0, changeNumber: change
            )
        )
    }

    /// Writes the `skipped` record of a registration not called for a change.
    func recordSkipped(_ sink: any RecordSink, entry: RegistrationEntry, reason: SkipReason, depth: Int, change: UInt64) {
        let context = ThreadContext.current
        var flags: EventRecord.Flags = context.isOnMainQueue(delivering: change) ? .mainQueue : []
        if context.isMain { flags.insert(.mainThread) }
        sink.record(
            EventRecord(
                kind: .skipped, flags: flags, time: context.time(delivering: change), thread: context.number,
                channel: entry.info.channelID, depth: Int32(clamping: depth), registration: entry.info.id,
                owner: entry.info.owner.id, skipReason: reason, changeNumber: change
            )
        )
    }
}
