/// OJ010: callbacks that blocked the main thread's frame, and background callbacks that
/// used more CPU than a frame.
///
/// Wall time alone flaps: a microsecond callback preempted on a busy machine "takes"
/// 20 ms. So a delivery counts only when its own work explains it:
/// - on main (the main thread, or the main queue): wall time over the budget, and the
///   callback *blocking* — its thread CPU time at least half the budget, or it gave up
///   the CPU voluntarily (slept, waited for a lock or I/O) while running. Warning.
/// - in the background: thread CPU time over the budget (a background callback drops no
///   frame; it delays what its queue runs next). Info.
/// Journals without CPU time (schema 1) fall back to wall time.
final class SlowCallbackChecker: RuleChecker {
    struct Group {
        var firstSeq: Int64
        var channelID: Int64?
        var ownerID: Int64?
        var maxNs: Int64
        var maxSeq: Int64
        var maxCPU: Int64?
        var onMain: Bool
        var count = 1
    }

    private var groups: [Int64: Group] = [:]

    /// Whether a delivery counts, and the time it is reported with (wall on main, CPU in
    /// the background).
    static func slowness(of event: EventRow, budget: Int64) -> Int64? {
        guard let wall = event.durationNs else { return nil }
        if event.isOnMain {
            guard wall > budget else { return nil }
            guard let cpu = event.cpuNs else { return wall }
            let blocked = (event.waits ?? 0) > 0
            return cpu >= budget / 2 || blocked ? wall : nil
        }
        let cpu = event.cpuNs ?? wall
        return cpu > budget ? cpu : nil
    }

    func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        guard event.kind == .delivered, let id = event.registrationID,
              let duration = Self.slowness(of: event, budget: context.options.slowCallbackBudgetNs)
        else { return }
        // One group per registration and kind of thread: main and background differ in severity.
        let key = event.isOnMain ? id : -id
        guard groups[key] != nil else {
            groups[key] = Group(
                firstSeq: event.seq, channelID: event.channelID, ownerID: event.ownerID, maxNs: duration,
                maxSeq: event.seq, maxCPU: event.cpuNs, onMain: event.isOnMain
            )
            return
        }
        groups[key]!.count += 1
        if duration > groups[key]!.maxNs {
            groups[key]!.maxNs = duration
            groups[key]!.maxSeq = event.seq
            groups[key]!.maxCPU = event.cpuNs
        }
    }

    func finish(_ context: DiagnosisContext) throws(AnalysisError) -> [Finding] {
        var findings: [Finding] = []
        let budget = milliseconds(context.options.slowCallbackBudgetNs)
        for (key, group) in groups.sorted(by: { ($0.value.firstSeq, $0.key) < ($1.value.firstSeq, $1.key) }) {
            let (owner, channel, site) = try context.callback(abs(key), owner: group.ownerID, channel: group.channelID)
            let finding: Finding
            if group.onMain {
                let cpu = group.maxCPU.map { ", \(milliseconds($0)) of it on the CPU" } ?? ""
                finding = Finding(
                    rule: .slowCallback, severity: .warning, sessionID: context.session.id,
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
                    rule: .slowCallback, severity: .info, sessionID: context.session.id,
                    message: "\(owner)'s callback on \(channel) (\(site)) used more than \(budget) of CPU \(times(group.count)) off the main thread, up to \(milliseconds(group.maxNs)) (first at seq \(group.firstSeq)).",
                    evidence: [
                        "seq \(group.firstSeq): first background delivery over \(budget) of CPU time",
                        "seq \(group.maxSeq): the most, \(milliseconds(group.maxNs)) of CPU time",
                    ],
                    seqs: [group.firstSeq, group.maxSeq], callSites: [site], owners: [owner], channel: channel,
                    count: group.count
                )
            }
            findings.append(finding)
        }
        return findings
    }
}
