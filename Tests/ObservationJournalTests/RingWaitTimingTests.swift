import Dispatch
import Foundation
@testable import ObservationJournal
import ObserverCore
import Testing

/// A thread that waits for room in a full ring (the `.wait` policy: the writer is behind,
/// the disk stalls) is held up by the recorder, not by the callback it delivers next: the
/// wait must not show as that callback's duration or waits, or OJ010 would report a quick
/// callback on main as blocking the frame whenever the disk stalls.
@Suite(.timeLimit(.minutes(1))) struct RingWaitTimingTests {
    /// How long the test keeps the producer waiting: far longer than the quick callback.
    static let waitNanoseconds: UInt64 = 200_000_000

    @Test func aWaitForRoomIsNotCountedInTheCallbackDeliveredAfterIt() throws {
        let buffer = EventBuffer(capacity: 3, policy: .wait, gatherMilliseconds: 0)
        let registry = ObserverRegistry(sink: buffer)
        let player = Player()
        let screen = Screen("player")
        let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
        screen.tokens.append(volume.observe(owner: screen) { _, _ in })
        var spare = PendingEvents()
        var records: [EventRecord] = []
        // Empty the ring (the registration's event, if it took a place), then leave it
        // exactly the two places of one post: with no writer running, the thread's first
        // post goes through, and its second waits for room right after it, while the
        // reading its first callback was measured from is still a valid reference.
        let filler = EventRecord(kind: .skipped, flags: [], time: 1, thread: 1, channel: 0, depth: 0)
        while let place = claimPlace(buffer) { buffer.write(place, filler, .none) }
        if let batch = buffer.takeBatch(swapping: &spare) {
            buffer.committed(batch)
            spare = PendingEvents()
        }
        buffer.write(try #require(claimPlace(buffer)), filler, .none)
        let poster = SleepingThread {
            volume.value = 1
            volume.value = 2
        }
        poster.waitUntilAsleep()
        usleep(useconds_t(Self.waitNanoseconds / 1_000))
        // The writer, on this thread, from now on: it takes every record as it comes.
        var closed = false
        while let batch = buffer.takeBatch(swapping: &spare) {
            records += batch.pending.records
            buffer.committed(batch)
            spare = PendingEvents()
            if !closed && records.filter({ $0.kind == .delivered }).count == 2 {
                closed = true
                DispatchQueue.global().async { buffer.close() }
            }
        }
        poster.join()
        let changed = try #require(records.last { $0.kind == .changed })
        let delivered = try #require(records.last { $0.kind == .delivered })
        // The change happened before the wait: its time is before it.
        #expect(delivered.time - changed.time >= Self.waitNanoseconds)
        // The empty callback ran after the wait, and only it is timed.
        #expect(delivered.duration < Self.waitNanoseconds)
        #expect(delivered.waits == 0)
        withExtendedLifetime(screen) {}
    }
}
