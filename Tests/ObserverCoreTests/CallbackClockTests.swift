import Foundation
import ObserverCore
import Testing

// A callback's CPU time and waits are read from the thread's usage only around slow
// callbacks (a system call each); a fast one reports its wall time as its CPU time.

@Test func aSlowCallbackIsMeasuredAndAFastOneIsBoundedByItsWallTime() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let player = Player()
    let screen = Screen("player")
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    let token = volume.observe(owner: screen) { _, change in
        if change.new == 2 { usleep(2_000) }
    }
    volume.value = 1
    volume.value = 2
    let deliveries = sink.events(.delivered)
    #expect(deliveries.count == 2)
    // Fast or not, a callback never used more CPU than the time it ran.
    #expect(deliveries.allSatisfy { $0.cpuDuration! <= $0.duration! })
    // The sleeping one gave up the CPU, and the sleep is not CPU time.
    #expect((deliveries[1].waits ?? 0) >= 1)
    #expect(deliveries[1].cpuDuration! < deliveries[1].duration!)
    withExtendedLifetime(token) {}
}
