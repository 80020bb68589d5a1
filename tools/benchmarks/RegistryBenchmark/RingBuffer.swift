import SystemShim

/// One recorded event as fixed 64 bytes of numbers: what a flight recorder stores per event.
struct RingRecord {
    var time: UInt64
    var seq: UInt64
    var kindAndThread: UInt64
    var channel: UInt64
    var registration: UInt64
    var owner: UInt64
    var old: Int64
    var new: Int64
}

/// The physical limit of recording an event on the calling thread: read the monotonic
/// clock and store one 64-byte record into a per-thread ring (one writer: no lock, no
/// atomics, no allocation; the oldest records are overwritten). An anchor for the
/// recorder's calling-thread cost, not a recorder: names, values and the disk are not its
/// concern.
final class RingBuffer {
    static let capacity = 1 << 16  // 4 MiB of records
    private let records: UnsafeMutablePointer<RingRecord>
    private var next: UInt64 = 0
    private let thread: UInt64

    init(thread: UInt64 = 1) {
        records = .allocate(capacity: Self.capacity)
        records.initialize(repeating: RingRecord(time: 0, seq: 0, kindAndThread: 0, channel: 0, registration: 0, owner: 0, old: 0, new: 0), count: Self.capacity)
        self.thread = thread
    }

    deinit { records.deallocate() }

    /// Records one event. Not inlined: an app calls its recorder across a module boundary.
    @inline(never)
    func record(kind: UInt32, channel: UInt64, registration: UInt64, owner: UInt64, old: Int64, new: Int64) {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        let slot = records + Int(next & UInt64(Self.capacity - 1))
        slot.pointee = RingRecord(
            time: UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec), seq: next,
            kindAndThread: UInt64(kind) | thread << 32, channel: channel, registration: registration,
            owner: owner, old: old, new: new
        )
        next &+= 1
    }

    /// Something read back, so the optimiser keeps the stores.
    var checksum: Int {
        Int(truncatingIfNeeded: records[Int((next &- 1) & UInt64(Self.capacity - 1))].time &+ next)
    }

    /// `count` events as a fan-out-1 app produces them: a `changed` then a `delivered`.
    func burst(from first: Int, count: Int) {
        for number in first..<(first + count) {
            record(kind: UInt32(number & 1), channel: 1, registration: 2, owner: 3, old: Int64(number), new: Int64(number + 1))
        }
    }
}
