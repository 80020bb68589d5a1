extension Rule {
    /// OJ008 off-main-delivery: see `OffMainDeliveryChecker.rule`.
    package static var offMainDelivery: Rule { OffMainDeliveryChecker.rule }
}

/// OJ008: a registration that expects the main thread was called off main: neither on
/// the main thread nor on the main queue (under `dispatchMain()` on Linux the main queue
/// runs on another thread, and a `queue: .main` delivery there is on main).
struct OffMainDeliveryChecker: RuleChecker {
    /// OJ008: the rule this checker decides, described next to its logic.
    static let rule = Rule(
        code: "OJ008", name: "off-main-delivery", severities: [.error],
        summary: "A registration that asked for the main thread was called neither on the main thread nor on the main queue.",
        details: """
            A registration declared that it expects the main thread (or asked for the main
            queue), and a delivery to it ran off main: UI work off the main thread.

            "On main" is the main thread or the main queue, recorded per event (schema 2,
            events.main_queue, from a dispatch-specific key set on the main queue). Under
            dispatchMain() on Linux the main queue is drained by a thread that is not the main
            thread; a delivery through the main queue there is on main and never reported.
            """,
        fix: "Register with queue: .main, or post the change from the main thread."
    )

    /// One per registration ever called off main, so kept small: the registration's row
    /// (owner, channel, call site, queue) is read back from the table when it is reported.
    struct Group {
        var registrationID: Int64
        var firstSeq: Int64
        /// The first five threads, in order: inline, so a group is plain bytes
        /// (`ScratchTable`) and costs no allocation.
        var firstThreads = FirstValues(limit: 5)
        var count = 1

        init(registrationID: Int64, firstSeq: Int64, thread: Int64) {
            self.registrationID = registrationID
            self.firstSeq = firstSeq
            firstThreads.append(thread)
        }

        /// The threads listed, first first.
        var threads: [Int64] { firstThreads.values }

        /// One more delivery off main, on `thread` (the first five threads are listed).
        mutating func add(thread: Int64) {
            count += 1
            guard !firstThreads.contains(thread) else { return }
            firstThreads.append(thread)
        }
    }

    /// One per registration ever called off main, so mostly written out.
    private var groups = ScratchTable<Group>(orderedBy: \.firstSeq)

    mutating func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        guard event.kind == .delivered, !event.isOnMain, let id = event.registrationID else { return }
        if var group = groups[id] {
            group.add(thread: event.thread)
            groups[id] = group
            return
        }
        guard let row = try context.registration(id), row.expectsMain else { return }
        groups[id] = Group(registrationID: id, firstSeq: event.seq, thread: event.thread)
    }

    mutating func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError) {
        try groups.drain { _, group throws(AnalysisError) in
            // The row the group was made from (it exists: the group was made from it).
            guard let row = try context.registration(group.registrationID) else { return }
            let owner = context.owner(row.ownerID)
            let channel = context.channel(row.channelID)
            let site = context.site(row.callSiteID)
            let threads = group.threads.map(String.init).joined(separator: ", ")
            let asked = row.queue.map { "asked for queue \(quoted($0, limit: 60))" } ?? "declared it expects the main thread"
            emit(Finding(
                rule: Self.rule, sessionID: context.session.id,
                message: "\(owner)'s callback on \(channel) (\(site)) expects the main thread but ran \(times(group.count)) on thread \(threads) (first at seq \(group.firstSeq)).",
                evidence: [
                    "seq \(row.registeredSeq): \(owner) registered at \(site) and \(asked)",
                    "seq \(group.firstSeq): delivered on thread \(group.threads[0]), not the main thread",
                ],
                seqs: [row.registeredSeq, group.firstSeq], callSites: [site], owners: [owner], channel: channel,
                count: group.count
            ))
        }
    }
}
