extension Rule {
    /// OJ010 slow-callback: see `SlowCallbackChecker.rule`.
    package static var slowCallback: Rule { SlowCallbackChecker.rule }
}

/// OJ010: callbacks that blocked the main thread's frame, and background callbacks that
/// used more CPU than a frame.
///
/// Wall time alone flaps: a microsecond callback preempted on a busy machine "takes"
/// 20 ms. So a delivery counts only when its own doing explains it:
/// - on main (the main thread, or the main queue): the callback *blocked* the thread
///   longer than the budget. Blocked time is the wall time less the time the thread was
///   runnable but waiting for a CPU (preemption, and the scheduler's delay in running a
///   thread woken from a sleep or a lock): its CPU time plus the time it chose to wait.
///   Where that run-queue wait is not recorded: wall time over the budget, and the thread
///   CPU time at least half the budget or a voluntary wait. Warning.
/// - in the background: thread CPU time over the budget (a background callback drops no
///   frame; it delays what its queue runs next). Info.
/// Journals without CPU time (schema 1) fall back to wall time.
struct SlowCallbackChecker: RuleChecker {
    /// OJ010: the rule this checker decides, described next to its logic.
    static let rule = Rule(
        code: "OJ010", name: "slow-callback", severities: [.warning, .info],
        summary: "A callback on main blocked longer than the frame budget, or a background callback used more CPU than it.",
        details: """
            The budget is 16 ms by default (one frame at 60 Hz; diagnose --budget-ms MS changes
            it). Wall time alone is not enough: a microsecond callback preempted on a busy
            machine can take 20 ms of wall time. Each delivery records its thread CPU time
            (CLOCK_THREAD_CPUTIME_ID) next to its wall time, and how often it gave up the CPU
            voluntarily (slept, waited for a lock or I/O; counted on Linux).

            warning: a callback on main (the main thread or the main queue) that *blocked* the
            thread longer than the budget. Blocked time is what the callback itself took: its
            wall time less the time its thread was runnable but waiting for a CPU (the
            scheduler's run-queue wait, measured per callback on Linux). That wait is the
            machine's load, not the callback: a callback preempted by other processes, or one
            that asked for a 2 ms sleep and was woken 17 ms late on a loaded machine, blocked
            for its CPU time and its requested wait only, and is not reported. A callback
            that computed, or slept, waited on a lock or did I/O for longer than the budget is
            reported whatever the load. It drops frames. Where the run-queue wait is not
            recorded, a callback on main over the budget is reported when its own CPU time was
            at least half the budget or it waited voluntarily while it ran.

            info: a callback off main whose CPU time alone was over the budget. It drops no frame
            (it delays what its thread runs next), so it is listed, not a warning; preemption on
            a loaded machine never counts.

            Journals without CPU time (schema 1) are judged on wall time.

            Apple platforms: Darwin's public API counts neither a thread's voluntary waits
            (no RUSAGE_THREAD) nor its run-queue wait, only its CPU time. There a callback on
            main over the budget is reported when its CPU time was at least half the budget;
            one that slept, waited on a lock or did synchronous I/O for 100 ms is not (on
            Linux it is). Record the same code on Linux to see those.
            """,
        fix: "Move the slow work off the delivering thread (dispatch it to a background queue) and keep callbacks short."
    )

    struct Group {
        var firstSeq: Int64
        var channelID: Int64?
        var ownerID: Int64?
        var maxNs: Int64
        var maxSeq: Int64
        var maxCPU: Int64?
        var onMain: Bool
        var count = 1

        /// One more slow delivery (`event`), reported with `duration`.
        mutating func add(_ event: EventRow, duration: Int64) {
            count += 1
            if duration > maxNs {
                maxNs = duration
                maxSeq = event.seq
                maxCPU = event.cpuNs
            }
        }
    }

    /// One per registration ever slow on main, and one per registration ever slow in the
    /// background, by registration id, so mostly written out: a long session has thousands,
    /// in proportion to its history. Two tables, because main and background differ in
    /// severity and any Int64 is a registration id a journal may hold: no arithmetic on
    /// the id (such as negating it) can fold both kinds into one key space.
    private var mainGroups = ScratchTable<Group>(orderedBy: \.firstSeq)
    private var backgroundGroups = ScratchTable<Group>(orderedBy: \.firstSeq)

    /// Whether a delivery counts, and the time it is reported with (wall on main, CPU in
    /// the background).
    static func slowness(of event: EventRow, budget: Int64) -> Int64? {
        guard let wall = event.durationNs else { return nil }
        if event.isOnMain {
            guard wall > budget else { return nil }
            guard let cpu = event.cpuNs else { return wall }
            if let runQueue = event.runQueueNs, runQueue >= 0 {
                // Blocked: the wall time less the wait for a CPU (never below the CPU time).
                let blocked = max(wall - min(runQueue, wall), cpu)
                return blocked > budget ? blocked : nil
            }
            let blocked = (event.waits ?? 0) > 0
            return cpu >= budget / 2 || blocked ? wall : nil
        }
        let cpu = event.cpuNs ?? wall
        return cpu > budget ? cpu : nil
    }

    mutating func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        guard event.kind == .delivered, let id = event.registrationID,
              let duration = Self.slowness(of: event, budget: context.options.slowCallbackBudgetNs)
        else { return }
        let groups = event.isOnMain ? mainGroups : backgroundGroups
        guard var group = groups[id] else {
            groups[id] = Group(
                firstSeq: event.seq, channelID: event.channelID, ownerID: event.ownerID, maxNs: duration,
                maxSeq: event.seq, maxCPU: event.cpuNs, onMain: event.isOnMain
            )
            return
        }
        group.add(event, duration: duration)
        groups[id] = group
    }

    mutating func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError) {
        let budget = milliseconds(context.options.slowCallbackBudgetNs)
        // The diagnoser orders findings by first seq (a delivery is on main or not, so the
        // two tables' groups never share one): draining one table after the other is enough.
        for groups in [mainGroups, backgroundGroups] {
            try groups.drain { id, group throws(AnalysisError) in
                try emit(finding(id, group, budget: budget, context))
            }
        }
    }

    private func finding(_ id: Int64, _ group: Group, budget: String, _ context: DiagnosisContext) throws(AnalysisError) -> Finding {
        let (owner, channel, site) = try context.callback(id, owner: group.ownerID, channel: group.channelID)
        let finding: Finding
        if group.onMain {
            let cpu = group.maxCPU.map { ", \(milliseconds($0)) of it on the CPU" } ?? ""
            finding = Finding(
                rule: Self.rule, severity: .warning, sessionID: context.session.id,
                message: "\(owner)'s callback on \(channel) (\(site)) blocked the main thread longer than \(budget) \(times(group.count)), up to \(milliseconds(group.maxNs)) (first at seq \(group.firstSeq)).",
                evidence: [
                    "seq \(group.firstSeq): first delivery on main over \(budget)",
                    "seq \(group.maxSeq): the slowest, \(milliseconds(group.maxNs))\(cpu)",
                ],
                seqs: [group.firstSeq, group.maxSeq], callSites: [site], owners: [owner], channel: channel,
                count: group.count
            )
        } else {
            finding = Finding(
                rule: Self.rule, severity: .info, sessionID: context.session.id,
                message: "\(owner)'s callback on \(channel) (\(site)) used more than \(budget) of CPU \(times(group.count)) off the main thread, up to \(milliseconds(group.maxNs)) (first at seq \(group.firstSeq)).",
                evidence: [
                    "seq \(group.firstSeq): first background delivery over \(budget) of CPU time",
                    "seq \(group.maxSeq): the most, \(milliseconds(group.maxNs)) of CPU time",
                ],
                seqs: [group.firstSeq, group.maxSeq], callSites: [site], owners: [owner], channel: channel,
                count: group.count
            )
        }
        return finding
    }
}
