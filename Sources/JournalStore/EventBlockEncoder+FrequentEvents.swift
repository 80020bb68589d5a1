/// The recorder's frequent events — a change, a delivery, a skip — each appended to the
/// block in one call, with the columns its kind never has written as NULLs without a test.
///
/// Why in this module: with this toolchain `@inlinable` is honoured across modules only for
/// `public` declarations; an `@inlinable package` one (the column writers `int`, `text`,
/// `beginEvent`, a few instructions each when inlined) is called like any other function.
/// From the writer's module every column was such a call; here, in the encoder's own
/// module, they are inlined, and the writer makes one call per event. Room for the integer
/// columns is reserved once per run of them (`integerRunBytes`), not tested per column.
extension EventBlockEncoder {
    /// Room for `beginEvent` and every integer column of an event at its longest, NULLs
    /// pending before each included: 23 + 22 × (21 + 5) bytes, rounded up.
    @usableFromInline static var integerRunBytes: Int { 600 }

    /// What became of an event appended by `appendChange` or `appendDelivery`.
    package enum Outcome {
        /// In the block, which has room for more.
        case added
        /// In the block, which now holds `EventBlock.maxEvents` events.
        case filled
        /// Not in the block (taken back out): a text of it held U+0000, or its own JSON
        /// alone passes `EventBlock.maxBodyBytes`, or the block would pass that limit with
        /// it. The caller decides where it goes instead.
        case refused
    }

    /// Appends a `changed` event (the columns of `EventPack.elements`; those not given are
    /// NULL), as `beginEvent`, one `int`/`text` per column and `endEvent` write it.
    /// - Parameter depth: `nil` for 0, as the column is written.
    package mutating func appendChange(
        seq: Int64, timeNs: Int64, thread: Int64, isMain: Bool, isMainQueue: Bool, channel: Int64?,
        callSite: Int64?, liveCount: Int64, new: ValueText?, old: ValueText?, depth: Int64?, isPrior: Bool
    ) -> Outcome {
        reserve(Self.integerRunBytes)
        putEventStart(seq: seq, timeNs: timeNs)
        putInt(Int64(JournalEventKind.changed.rawValue))
        putInt(thread)
        putInt(isMain ? 1 : 0)
        putInt(isMainQueue ? 1 : 0)
        putInt(channel)
        nulls(5)  // registration, owner, duration, cpu, change_seq
        putInt(callSite)
        putInt(liveCount)
        text(new)
        text(old)
        reserve(Self.integerRunBytes)
        nulls(4)  // reason, scope, other registration, waits
        putInt(depth)
        putInt(isPrior ? 1 : nil)
        endEvent()  // detail: NULL, left out
        return outcomeOfLastEvent()
    }

    /// Appends a `delivered` or `skipped` event (see `appendChange`).
    /// - Parameters:
    ///   - changeSeqDelta: `seq - change_seq`, as the column is written.
    ///   - depth: `nil` for 0, as the column is written.
    package mutating func appendDelivery(
        seq: Int64, timeNs: Int64, kind: JournalEventKind, thread: Int64, isMain: Bool, isMainQueue: Bool,
        channel: Int64?, registration: Int64?, owner: Int64?, duration: Int64?, cpu: Int64?, changeSeqDelta: Int64?,
        reason: String?, waits: Int64?, depth: Int64?
    ) -> Outcome {
        reserve(Self.integerRunBytes)
        putEventStart(seq: seq, timeNs: timeNs)
        putInt(Int64(kind.rawValue))
        putInt(thread)
        putInt(isMain ? 1 : 0)
        putInt(isMainQueue ? 1 : 0)
        putInt(channel)
        putInt(registration)
        putInt(owner)
        putInt(duration)
        putInt(cpu)
        putInt(changeSeqDelta)
        nulls(4)  // call site, live count, new, old
        text(reason)
        reserve(Self.integerRunBytes)
        nulls(2)  // scope, other registration
        putInt(waits)
        putInt(depth)
        endEvent()  // is_prior, detail: NULL, left out
        return outcomeOfLastEvent()
    }

    /// The last event's outcome, the event taken back out if it is `refused`.
    @inline(__always)
    mutating func outcomeOfLastEvent() -> Outcome {
        if lastEventHasNUL || lastEventBytes + 2 > EventBlock.maxBodyBytes || closedBodyBytes > EventBlock.maxBodyBytes {
            removeLastEvent()
            return .refused
        }
        return count == EventBlock.maxEvents ? .filled : .added
    }
}
