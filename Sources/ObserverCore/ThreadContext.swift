import SystemShim
import CThreadContext
import Foundation
import Synchronization

/// Per-thread facts the registry records: a small thread number, whether it is the main
/// thread, and the current dispatch depth. Found through a C thread-local pointer
/// (`CThreadContext`: Swift has no thread-local storage of its own, and a pthread key's
/// `pthread_getspecific` was a libc call per recorded post); a pthread key frees it when
/// the thread ends. Only used when a sink is installed.
///
/// A pointer to plain storage, not a class: a class instance read from the key is retained
/// and released around every use (several per recorded event), and its stored `var`s are
/// checked for exclusive access at run time. Only the owning thread ever touches the
/// storage; the key's destructor frees it when the thread ends.
struct ThreadContext {
    private struct Storage {
        let number: UInt64
        let isMain: Bool
        var depth = 0
        var queueChange: UInt64 = 0
        var onMainQueue = false
        var loopTime: UInt64 = 0
        var usage = ThreadUsage(cpuNanoseconds: 0, voluntarySwitches: nil, runQueueNanoseconds: nil)
        var usageTime: UInt64 = 0
        var coveredTime: UInt64 = 0
        /// The thread's `/proc/thread-self/schedstat`, opened on the first usage reading
        /// and kept (one `pread` per reading, not three calls); -1: not opened yet; -2:
        /// not available. Closed with the context.
        var schedstat: Int32 = -1
    }

    private let storage: UnsafeMutablePointer<Storage>

    /// The registry's number of the thread.
    var number: UInt64 { storage.pointee.number }
    /// Whether it is the main thread.
    var isMain: Bool { storage.pointee.isMain }

    /// The dispatch depth on this thread.
    var depth: Int {
        get { storage.pointee.depth }
        nonmutating set { storage.pointee.depth = newValue }
    }
    /// The change (its number; 0: none) whose post is running its delivery loop on this
    /// thread, and whether that post is on the main queue (`onMainQueue`): its synchronous
    /// deliveries and skips run in the same place and reuse the answer instead of asking
    /// dispatch again. Set by `post` from its `changed` record (never by a change no loop
    /// follows: change numbers are per registry, and a later delivery on this thread of
    /// another registry's change with the same number would take these answers), cleared
    /// at the end of its loop, and cleared while a callback runs: a callback may run code
    /// on another queue (`DispatchQueue.main.sync`, a main queue it drains).
    var queueChange: UInt64 {
        get { storage.pointee.queueChange }
        nonmutating set { storage.pointee.queueChange = newValue }
    }
    var onMainQueue: Bool {
        get { storage.pointee.onMainQueue }
        nonmutating set { storage.pointee.onMainQueue = newValue }
    }
    /// While change `queueChange`'s loop runs: the time of this thread's latest record in
    /// it (the `changed` record, then each delivery's end). The next callback of the loop
    /// starts from it instead of reading the clock again (one reading per delivery saved):
    /// its duration then also holds the loop's few instructions
    /// between the two, an upper bound, as a duration must be for the slow-callback rule.
    var loopTime: UInt64 {
        get { storage.pointee.loopTime }
        nonmutating set { storage.pointee.loopTime = newValue }
    }

    /// Whether change `change`'s delivery or skip runs on the main queue: the post's
    /// answer while its loop runs, else dispatch's.
    func isOnMainQueue(delivering change: UInt64) -> Bool {
        if change != 0 && storage.pointee.queueChange == change { return storage.pointee.onMainQueue }
        return MainQueue.isCurrent
    }

    /// The time of the latest record of change `change`'s running loop on this thread,
    /// else a fresh clock reading (see `loopTime`).
    func time(delivering change: UInt64) -> UInt64 {
        if change != 0 && storage.pointee.queueChange == change { return storage.pointee.loopTime }
        return monotonicNanoseconds()
    }

    /// The thread's usage at `usageTime` (monotonic ns; 0: never read, or no longer a
    /// valid reference): the reference a callback's CPU time and waits are measured from
    /// (see `CallbackClock`).
    var usage: ThreadUsage {
        get { storage.pointee.usage }
        nonmutating set { storage.pointee.usage = newValue }
    }
    var usageTime: UInt64 {
        get { storage.pointee.usageTime }
        nonmutating set { storage.pointee.usageTime = newValue }
    }
    /// Until when (monotonic ns) the thread's time since `usageTime` is known to be made of
    /// stretches of at most `CallbackClock.awayNanoseconds` outside a measured callback:
    /// the end of its latest timed callback, if that callback was no longer than that (0:
    /// not known). See `CallbackClock`.
    var coveredTime: UInt64 {
        get { storage.pointee.coveredTime }
        nonmutating set { storage.pointee.coveredTime = newValue }
    }
    /// The thread's usage now (see `ThreadUsage.current`).
    var currentUsage: ThreadUsage { ThreadUsage.current(schedstat: &storage.pointee.schedstat) }

    private init(storage: UnsafeMutablePointer<Storage>) {
        self.storage = storage
    }

    private static let nextNumber = Atomic<UInt64>(1)

    /// The key whose destructor frees a thread's context when the thread ends (the
    /// thread-local pointer is only read).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            #if canImport(Darwin)
            let storage = pointer.assumingMemoryBound(to: Storage.self)
            #else
            guard let storage = pointer?.assumingMemoryBound(to: Storage.self) else { return }
            #endif
            // A later destructor of another key that records finds no context and makes
            // a new one (freed in the next round of destructors), never this freed one.
            oj_thread_context_set(nil)
            if storage.pointee.schedstat >= 0 { close(storage.pointee.schedstat) }
            storage.deinitialize(count: 1)
            storage.deallocate()
        }
        return key
    }()

    /// The calling thread's context, created on first use.
    static var current: ThreadContext {
        if let pointer = oj_thread_context_get() {
            return ThreadContext(storage: pointer.assumingMemoryBound(to: Storage.self))
        }
        return make()
    }

    @inline(never)
    private static func make() -> ThreadContext {
        let storage = UnsafeMutablePointer<Storage>.allocate(capacity: 1)
        storage.initialize(
            to: Storage(number: nextNumber.add(1, ordering: .relaxed).oldValue, isMain: Thread.isMainThread)
        )
        pthread_setspecific(key, storage)
        oj_thread_context_set(storage)
        return ThreadContext(storage: storage)
    }
}

/// What the calling thread has used so far: its CPU time (the thread CPU clock, without
/// the time it was preempted) and how many times it gave up the CPU voluntarily (slept,
/// waited for a lock or I/O; `nil` where the system does not count it per thread).
/// Differences over a callback say what the callback itself spent, and whether it blocked.
struct ThreadUsage {
    var cpuNanoseconds: UInt64
    var voluntarySwitches: UInt64?
    /// How long the thread has been runnable but waiting for a CPU, in all (the
    /// scheduler's `run_delay`); `nil` where the system does not say.
    var runQueueNanoseconds: UInt64?

    /// The calling thread's usage now: its CPU clock (`CLOCK_THREAD_CPUTIME_ID`) and, on
    /// Linux (glibc or musl), its voluntary switches (`getrusage(RUSAGE_THREAD)`) and
    /// run-queue wait. Darwin has neither per thread in its public API: there the CPU clock
    /// (the same user + system time as Mach's `thread_info(THREAD_BASIC_INFO)`) is all,
    /// and OJ010 judges by it (see its `--explain`).
    ///
    /// Not `getrusage`'s user + system time for the CPU: Linux adds the running slice to
    /// it only at the next tick or switch, so a reading taken while the thread has run
    /// for a few milliseconds lags by that much, and a sleeping callback measured from it
    /// was seen using milliseconds of CPU. The thread CPU clock includes the running
    /// slice. Three system calls per reading (the third, a `pread` of the thread's
    /// `schedstat` file descriptor, `schedstat`, for the run-queue wait): `CallbackClock`
    /// reads rarely.
    @inline(never)
    static func current(schedstat: inout Int32) -> ThreadUsage {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        let cpu = UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
        var usage = rusage()
        if threadResourceUsage(&usage) {
            return ThreadUsage(
                cpuNanoseconds: cpu, voluntarySwitches: UInt64(clamping: usage.ru_nvcsw),
                runQueueNanoseconds: runQueueWait(schedstat: &schedstat)
            )
        }
        return ThreadUsage(cpuNanoseconds: cpu, voluntarySwitches: nil, runQueueNanoseconds: nil)
    }

    /// The second field of the calling thread's `/proc/thread-self/schedstat`
    /// (`<on-cpu ns> <run-queue ns> <timeslices>`): nanoseconds runnable but not running.
    /// `schedstat` is the thread's descriptor, opened here on first use (-2 once opening
    /// failed: no procfs, or a kernel without scheduler statistics).
    private static func runQueueWait(schedstat: inout Int32) -> UInt64? {
        #if os(Linux)
        if schedstat == -1 {
            schedstat = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC)
            if schedstat < 0 { schedstat = -2 }
        }
        guard schedstat >= 0 else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 96) { buffer -> UInt64? in
            let count = pread(schedstat, buffer.baseAddress, buffer.count, 0)
            guard count > 0 else { return nil }
            var field = 0
            var value: UInt64 = 0
            var digits = 0
            for byte in buffer[..<count] {
                if byte >= 48 && byte <= 57 {
                    if field == 1 {
                        value = value &* 10 &+ UInt64(byte - 48)
                        digits += 1
                    }
                } else {
                    if field == 1 { return digits > 0 ? value : nil }
                    field += 1
                }
            }
            return field == 1 && digits > 0 ? value : nil
        }
        #else
        return nil
        #endif
    }
}

/// Times one callback: wall time always, and CPU time and waits without a system call
/// per callback.
///
/// The thread CPU clock is a system call on Linux (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`,
/// and `getrusage` for the waits), where the monotonic clock is read in user space (the
/// vDSO): reading them before and after every callback would cost more than all the rest
/// of recording (figures in BENCHMARKS.md, "Recording on the app's thread"). So:
/// - the thread's usage is read at the start of a callback unless the thread's last reading
///   (the reference) is still valid: taken at most `referenceNanoseconds` (200 µs) before
///   the start, and since then the thread never spent more than `awayNanoseconds` (20 µs)
///   at a stretch outside its timed callbacks (between the end of one and the start of the
///   next: the app's own code between posts, the registry's between records) nor in one
///   fast callback. A busy thread reads at most once per 200 µs; a
///   thread that was away, idle or in a longer callback reads afresh;
/// - after the callback it is read again only if the callback ran `slowNanoseconds` (50 µs)
///   or longer: its CPU time and waits are then the differences from the reference;
/// - a faster callback's CPU time is its wall time (an upper bound, exact unless it was
///   preempted, and then off by less than 50 µs) and its waits are not counted (`nil`).
///
/// What a measured callback's figures may hold beyond its own: CPU time the thread used
/// between the reference and the start (at most 200 µs; the CPU time is also capped at the
/// callback's wall time), and voluntary switches in that span, each within a stretch of at
/// most 20 µs (the thread gave up the CPU and had it back within 20 µs: a longer absence
/// makes a new reference). OJ010 needs CPU time and waits only for callbacks over a frame
/// budget (milliseconds; half of it for the CPU time, 8 ms by default): those are always
/// measured, and 200 µs is under 3% of that CPU threshold.
struct CallbackClock {
    static let referenceNanoseconds: UInt64 = 200_000
    static let awayNanoseconds: UInt64 = 20_000
    static let slowNanoseconds: UInt64 = 50_000

    let start: UInt64
    private let reference: ThreadUsage

    /// Starts at `start` (a clock reading taken before the callback: see
    /// `ThreadContext.loopTime`), reading the thread's usage if the context's reading is
    /// no longer a valid reference. Call right before the callback.
    init(_ context: ThreadContext, start: UInt64) {
        var start = start
        if start &- context.usageTime > Self.referenceNanoseconds
            || start &- context.coveredTime > Self.awayNanoseconds {
            context.usage = context.currentUsage
            // The system call is not the callback's time.
            start = monotonicNanoseconds()
            context.usageTime = start
        }
        self.start = start
        reference = context.usage
    }

    /// What one callback spent (see `finish`).
    struct Spent {
        var end: UInt64
        var duration: UInt64
        var cpu: UInt64
        /// Voluntary switches; `nil` when not counted.
        var waits: UInt64?
        /// Time runnable but waiting for a CPU (preempted, or woken and not yet run);
        /// `nil` when not measured.
        var runQueue: UInt64?
    }

    /// What the callback spent; call right after it.
    func finish(_ context: ThreadContext) -> Spent {
        let end = monotonicNanoseconds()
        let duration = end &- start
        if duration < Self.slowNanoseconds {
            // A fast callback that ran longer than a stretch away may have waited: the
            // next callback measures from a new reference.
            context.coveredTime = duration > Self.awayNanoseconds ? 0 : end
            return Spent(end: end, duration: duration, cpu: duration, waits: nil, runQueue: nil)
        }
        return slowFinish(context, end: end, duration: duration)
    }

    @inline(never)
    private func slowFinish(_ context: ThreadContext, end: UInt64, duration: UInt64) -> Spent {
        let now = context.currentUsage
        context.usage = now
        context.usageTime = end
        context.coveredTime = end
        // The reference may precede the start; a microsecond clock may round up.
        let cpu = min(now.cpuNanoseconds &- reference.cpuNanoseconds, duration)
        var waits: UInt64?
        if let after = now.voluntarySwitches, let before = reference.voluntarySwitches { waits = after &- before }
        var runQueue: UInt64?
        if let after = now.runQueueNanoseconds, let before = reference.runQueueNanoseconds, after >= before {
            runQueue = min(after - before, duration - cpu)
        }
        return Spent(end: end, duration: duration, cpu: cpu, waits: waits, runQueue: runQueue)
    }
}

/// Tells the calling thread's context that the recorder made it wait (a full ring under
/// the `.wait` policy): the next callback of a running delivery loop starts after the wait,
/// not at the thread's record before it, and measures its CPU time and waits from a fresh
/// reading. Without it, the wait (milliseconds while the disk stalls) was counted in that
/// callback's duration, and the wait's own switch in its waits: a quick callback on main
/// was reported as blocking the frame (OJ010) for the recorder's backpressure. Only after a
/// real wait: it reads the clock.
package func recordingThreadWaited() {
    let context = ThreadContext.current
    context.loopTime = monotonicNanoseconds()
    context.coveredTime = 0
}

/// The monotonic clock in nanoseconds (`CLOCK_MONOTONIC`, the same in every process of the
/// machine): what `ObserverEvent.time` and the recorder's session start are read from.
package func monotonicNanoseconds() -> UInt64 {
    // Read in C (`CThreadContext`): see `oj_monotonic_nanoseconds`.
    oj_monotonic_nanoseconds()
}
