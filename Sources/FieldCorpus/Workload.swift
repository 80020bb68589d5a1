import SystemShim
import Synchronization

/// Stand-ins for the work real callbacks do, so the apps' slow paths are really slow.
enum Workload {
    /// Keeps the calling thread's CPU busy for `milliseconds` of its own CPU time (a
    /// synchronous re-render, an expensive encode): slow however loaded the machine is.
    static func burnCPU(milliseconds: Int) {
        let start = threadCPUNanoseconds()
        var accumulator: UInt64 = 0x9E37_79B9_7F4A_7C15
        while threadCPUNanoseconds() - start < UInt64(milliseconds) * 1_000_000 {
            for _ in 0..<1_000 { accumulator = accumulator &* 6_364_136_223_846_793_005 &+ 1 }
        }
        sink.store(accumulator, ordering: .relaxed)
    }

    /// Blocks the calling thread for `milliseconds` (a synchronous disk or network call).
    static func block(milliseconds: Int) {
        sleepFully(nanoseconds: milliseconds * 1_000_000)
    }

    /// Keeps the optimiser from removing the burn loop.
    private static let sink = Atomic<UInt64>(0)

    private static func threadCPUNanoseconds() -> UInt64 {
        var spec = timespec()
        unsafe clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}
