// The delivery loop, the registry's hot path.

extension ObserverRegistry {
    /// The delivery loop: calls every live entry of `snapshot` that wants this change,
    /// in order, and returns the entries found with a deallocated owner.
    ///
    /// Not generic, so it is compiled once, fully optimised: the payload is passed
    /// erased and only each entry's `call` knows its type. `change` is the change's
    /// number for events (0 without a sink); `context` the calling thread's context when
    /// the post has looked it up (with a sink), so its deliveries need not look it up again.
    func deliver(
        _ snapshot: ContiguousArray<RegistrationEntry?>, payload: ErasedPayload, unchanged: Bool, isPrior: Bool,
        sender: AnyObject?, depth: Int, change: UInt64, context: ThreadContext?, enqueue: (RegistrationEntry) -> Void
    ) -> [RegistrationEntry] {
        var dead: [RegistrationEntry] = []
        // Unretained: no retain and release per delivery (`forEachUnretained`). Kept for
        // what it saves in `callgrind-per-event.sh RegistryBenchmark post` (BENCHMARKS.md,
        // "Instructions per post, and threads").
        snapshot.forEachUnretained { entry in
            deliver(
                to: entry, payload: payload, unchanged: unchanged, isPrior: isPrior, sender: sender,
                depth: depth, change: change, context: context, dead: &dead, enqueue: enqueue
            )
        }
        return dead
    }

    /// One step of the delivery loop.
    func deliver(
        to entry: RegistrationEntry, payload: ErasedPayload, unchanged: Bool, isPrior: Bool, sender: AnyObject?,
        depth: Int, change: UInt64, context: ThreadContext?, dead: inout [RegistrationEntry],
        enqueue: (RegistrationEntry) -> Void
    ) {
        if entry.isRemoved { return }
        let options = entry.options
        if isPrior && !options.contains(.prior) { return }
        guard let owner = entry.owner else {
            dead.append(entry)
            return
        }
        if unchanged && options.contains(.onlyWhenChanged) {
            if hasSink { reportSkip(entry, .unchanged, depth: depth, change: change) }
            return
        }
        if entry.filtersBySender && (sender == nil || entry.sender !== sender) {
            if hasSink { reportSkip(entry, .senderMismatch, depth: depth, change: change) }
            return
        }
        if entry.queue != nil {
            enqueue(entry)
        } else {
            invoke(entry, owner: owner, payload: payload, depth: depth, change: change, context: context)
        }
    }
}
