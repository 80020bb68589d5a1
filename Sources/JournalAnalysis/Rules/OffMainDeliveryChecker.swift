/// OJ008: a registration that expects the main thread was called off main: neither on
/// the main thread nor on the main queue (under `dispatchMain()` on Linux the main queue
/// runs on another thread, and a `queue: .main` delivery there is on main).
final class OffMainDeliveryChecker: RuleChecker {
    struct Group {
        var registration: RegistrationRow
        var firstSeq: Int64
        var threads: [Int64]
        var count = 1
    }

    private var groups: [Int64: Group] = [:]

    func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        guard event.kind == .delivered, !event.isOnMain, let id = event.registrationID else { return }
        if groups[id] != nil {
            groups[id]!.count += 1
            if groups[id]!.threads.count < 5, !groups[id]!.threads.contains(event.thread) {
                groups[id]!.threads.append(event.thread)
            }
            return
        }
        guard let row = try context.registration(id), row.expectsMain else { return }
        groups[id] = Group(registration: row, firstSeq: event.seq, threads: [event.thread])
    }

    func finish(_ context: DiagnosisContext) -> [Finding] {
        groups.values.sorted { $0.firstSeq < $1.firstSeq }.map { group in
            let row = group.registration
            let owner = context.owner(row.ownerID)
            let channel = context.channel(row.channelID)
            let site = context.site(row.callSiteID)
            let threads = group.threads.map(String.init).joined(separator: ", ")
            let asked = row.queue.map { "asked for queue \(quoted($0, limit: 60))" } ?? "declared it expects the main thread"
            return Finding(
                rule: .offMainDelivery, sessionID: context.session.id,
                message: "\(owner)'s callback on \(channel) (\(site)) expects the main thread but ran \(times(group.count)) on thread \(threads) (first at seq \(group.firstSeq)).",
                evidence: [
                    "seq \(row.registeredSeq): \(owner) registered at \(site) and \(asked)",
                    "seq \(group.firstSeq): delivered on thread \(group.threads[0]), not the main thread",
                ],
                seqs: [row.registeredSeq, group.firstSeq], callSites: [site], owners: [owner], channel: channel,
                count: group.count
            )
        }
    }
}
