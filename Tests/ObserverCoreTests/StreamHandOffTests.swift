import Foundation
import ObserverCore
import Synchronization
import Testing

// A stream's consumer runs on its own task and may act on a value, even end the stream,
// before the delivery that handed it over returns. So the delivery is recorded before the
// hand-off: a journal showed a stream's `removed (streamEnded)` before the delivery of the
// value that made the loop break.

/// A sink that, when a delivery is recorded, waits a while for the consumer to have taken
/// the value: it must not be able to, since the value is handed over only after the record.
private final class HandOffProbe: EventSink, @unchecked Sendable {
    /// Values the consumer has taken.
    let taken = Atomic<Int>(0)
    /// Whether a delivery was recorded after its consumer had the value.
    let recordedLate = Atomic<Bool>(false)

    func record(_ event: ObserverEvent) {
        guard event.kind == .delivered else { return }
        let deadline = DispatchTime.now().uptimeNanoseconds + 200_000_000
        while taken.load(ordering: .acquiring) == 0 && DispatchTime.now().uptimeNanoseconds < deadline {
            usleep(1_000)
        }
        if taken.load(ordering: .acquiring) > 0 { recordedLate.store(true, ordering: .releasing) }
    }
}

@Test func aStreamsDeliveryIsRecordedBeforeItsConsumerHasTheValue() async {
    let probe = HandOffProbe()
    let registry = ObserverRegistry(sink: probe)
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let stream = volume.changes()
    let consumer = Task {
        for await change in stream {
            probe.taken.add(1, ordering: .releasing)
            return change.new
        }
        return nil
    }
    volume.value = 1
    #expect(await consumer.value == 1)
    #expect(probe.recordedLate.load(ordering: .acquiring) == false)
}
