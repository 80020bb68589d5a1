/// Deliveries of one session summed per call site (where the callback was registered):
/// the fleet export's compact stand-in for every delivery row. Every figure merges
/// across sessions and journals by sum (or max), so an engine's totals are exact.
package struct CallSiteDeliveries: Sendable, Equatable {
    /// `Module/File.swift:line` of the registration, `nil` when the journal does not name it.
    package var callSite: String?
    /// Callbacks run.
    package var deliveries: Int64 = 0
    /// Deliveries skipped (the owner gone, the value unchanged, ...).
    package var skipped: Int64 = 0
    /// Deliveries with a recorded duration.
    package var timed: Int64 = 0
    /// The sum and the largest of those durations, in nanoseconds.
    package var totalNs: Int64 = 0
    package var maxNs: Int64 = 0
    /// Deliveries that ran longer than the slow-callback budget.
    package var overBudget: Int64 = 0
    /// Deliveries off the main thread to a registration that expects the main thread.
    package var offMain: Int64 = 0

    /// The column names of the fleet export's `call_sites` table after the provenance.
    package static let columns = [
        "session_id", "call_site", "deliveries", "skipped", "timed", "total_ns", "max_ns", "over_budget", "off_main",
    ]

    /// The cells of `columns` for `session`.
    package func cells(session: Int64) -> [ExportCell] {
        [
            .int(session), .text(callSite), .int(deliveries), .int(skipped), .int(timed), .int(totalNs), .int(maxNs),
            .int(overBudget), .int(offMain),
        ]
    }

    /// The deliveries and skips of `session`, per call site, ordered by call site (`nil` first).
    /// Registrations are looked up by id as deliveries name them, a bounded number kept.
    package static func read(
        _ reader: JournalReader, session: Int64, budgetNs: Int64, progress: ReadProgress? = nil
    ) throws(AnalysisError) -> [CallSiteDeliveries] {
        let catalog = try reader.catalog(session: session)
        var registrations: [Int64: RegistrationRow?] = [:]
        var sums: [String?: CallSiteDeliveries] = [:]
        var failure: AnalysisError?
        var events = 0
        defer { progress?.add(events % ReadProgress.batch) }
        try reader.forEachEvent(session: session, filter: EventFilter(kinds: [.delivered, .skipped])) { event in
            events += 1
            if events % ReadProgress.batch == 0 { progress?.add(ReadProgress.batch) }
            var registration: RegistrationRow?
            if let id = event.registrationID {
                if let known = registrations[id] {
                    registration = known
                } else {
                    do throws(AnalysisError) {
                        registration = try reader.registration(session: session, id: id)
                    } catch {
                        failure = error
                        return false
                    }
                    // A session with millions of registrations keeps the recent ones only.
                    if registrations.count >= 4096 { registrations.removeAll(keepingCapacity: true) }
                    registrations[id] = .some(registration)
                }
            }
            let site = catalog.qualifiedCallSiteName(registration?.callSiteID)
            var sum = sums[site] ?? CallSiteDeliveries(callSite: site)
            if event.kind == .skipped {
                sum.skipped += 1
            } else {
                sum.deliveries += 1
                if let duration = event.durationNs {
                    sum.timed += 1
                    // Saturates: a hostile journal's durations may sum past `Int64.max`.
                    let (total, overflow) = sum.totalNs.addingReportingOverflow(max(0, duration))
                    sum.totalNs = overflow ? .max : total
                    sum.maxNs = max(sum.maxNs, duration)
                    if duration > budgetNs { sum.overBudget += 1 }
                }
                if registration?.expectsMain == true && !event.isMain { sum.offMain += 1 }
            }
            sums[site] = sum
            return true
        }
        if let failure { throw failure }
        return sums.values.sorted { ($0.callSite == nil ? 0 : 1, $0.callSite ?? "") < ($1.callSite == nil ? 0 : 1, $1.callSite ?? "") }
    }
}
