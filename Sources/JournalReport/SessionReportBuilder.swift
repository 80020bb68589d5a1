import JournalStore
import JournalAnalysis

/// Builds a `SessionReport` in one streaming pass over a session's events (after the
/// diagnosis, whose findings say which events to remember).
///
/// Memory follows the report itself: the encoded events, one sequence number per row,
/// the lanes, the findings listed, and the live dispatches `DispatchTracker` keeps open;
/// not the session's history (registrations, findings and what-if changes stream past).
struct SessionReportBuilder {
    let reader: JournalReader
    let catalog: JournalCatalog
    var report: SessionReport
    /// The registrations live where a limited report's window begins (only then).
    private var liveAtWindow: [RegistrationRow] = []
    /// The stored row of each lane's registration (`nil`: the table lacks it).
    private var laneRows: [RegistrationRow?] = []
    /// Whether a registration expects the main thread, for the summarised session's
    /// off-main deliveries: looked up when first needed, dropped at its removal.
    private var expectsMain: [Int64: Bool] = [:]
    /// The first failure to read a registration while the events stream (thrown after).
    private var failure: AnalysisError?
    private var laneIndex: [Int64: Int] = [:]
    private var channelIndex: [Int64: Int] = [:]
    private var threadIndex: [Int64: Int] = [:]
    private var scopeIndex: [Int64: Int] = [:]
    private var lastRowOfLane: [Int] = []
    var tracker = DispatchTracker()
    /// A summarised session's rows (`nil`: every event is a row).
    var keep: Set<Int64>?
    /// For rows findings cite: the lanes and channel the event names.
    private var cited: [Int64: (lanes: [Int], channel: Int?)] = [:]
    private var previousSeq: Int64 = 0
    private var previousMicros: Int64 = 0

    /// The report of `session`: its findings (with `options`) and its events.
    /// With a `window`, only the events in it are drawn; the findings (and the missed
    /// changes) still come from the whole session.
    static func build(
        _ reader: JournalReader, session: SessionSummary, options: DiagnosisOptions, window: ReportWindow? = nil,
        detailLimit: Int64 = SessionReport.detailLimit, progress: ReadProgress? = nil
    ) throws(AnalysisError) -> SessionReport {
        // Streamed out of the spool: only the findings the page lists are kept, the rest counted.
        let spool = FindingSpool()
        try Diagnoser.diagnose(reader, session: session, options: options, into: spool, progress: progress)
        var tally = FindingTally()
        var findings: [Finding] = []
        try spool.drain { finding in
            if tally.add(finding, listed: ReportPage.perRule) { findings.append(finding) }
        }
        var builder = SessionReportBuilder(
            reader: reader, catalog: try reader.catalog(session: session.id),
            report: SessionReport(summary: session, budgetNs: options.slowCallbackBudgetNs)
        )
        builder.report.window = window
        builder.report.tally = tally
        for finding in findings {
            for seq in finding.seqs { builder.cited[seq] = ([], nil) }
        }
        var registrationCount = 0
        var liveAtWindow: [RegistrationRow] = []
        try reader.forEachRegistration(session: session.id) { _, row in
            registrationCount += 1
            if let window, row.registeredSeq < window.from && (row.removedSeq ?? .max) >= window.from {
                liveAtWindow.append(row)
            }
        }
        builder.liveAtWindow = liveAtWindow
        builder.report.registrationCount = registrationCount
        let summarised = window == nil && session.eventCount > detailLimit
        var missed = MissedChanges()
        var missedNotDrawn = 0
        if summarised {
            (builder.keep, missed, missedNotDrawn) = try builder.keptSeqs(reader, session: session, findings: findings)
            builder.report.density = ReportDensity(lastSeq: session.lastSeq)
        } else {
            // Every change drawn is a row.
            try builder.whatIf(reader, session: session) { change in
                if window.map({ $0.from <= change.seq && change.seq <= $0.to }) ?? true { missed.add(change) }
            }
        }
        missed.sort()
        let filter = window.map { EventFilter(from: $0.from, to: $0.to) } ?? EventFilter()
        var drawn = 0
        try reader.forEachEvent(session: session.id, filter: filter) { event in
            builder.add(event)
            drawn += 1
            if drawn % ReadProgress.batch == 0 { progress?.add(ReadProgress.batch) }
            return builder.failure == nil
        }
        // A window draws fewer events than the session has: the pass counts as whole.
        progress?.add(
            window == nil ? drawn % ReadProgress.batch : max(0, Int(session.eventCount) - (drawn - drawn % ReadProgress.batch))
        )
        if let failure = builder.failure { throw failure }
        for change in builder.tracker.finish() { builder.noteCompleted(change) }
        builder.report.unheard.sort()
        builder.finishLanes()
        builder.addMissed(missed)
        builder.report.findings = findings.map { builder.cite($0) }
        if builder.keep != nil {
            builder.report.notes.append(
                "This session has \(session.eventCount) events, more than the report draws one by one (\(detailLimit)): each channel's changes and deliveries are drawn as counts per 1/\(ReportDensity.bins) of the session, and only what the findings shown cite is drawn event by event (\(builder.report.seqs.count) events, \(builder.report.lanes.count) registrations). For every event of a stretch, run obsreplay report with --from SEQ --to SEQ (up to \(detailLimit) events) or --around SEQ."
            )
        }
        if missedNotDrawn > 0 {
            builder.report.notes.append(
                "Of the changes an owner missed on a channel after its registration there was replaced, the first \(SessionReport.missedPerOwner) are drawn; \(missedNotDrawn) later misses are not (the findings count them all)."
            )
        }
        if let window {
            builder.report.notes.append(
                "Only the events from seq \(window.from) to seq \(window.to) are drawn (\(builder.report.seqs.count) of \(session.eventCount)); the findings are those of the whole session. Run obsreplay report without --from, --to and --around for all of it."
            )
        }
        return builder.report
    }

    /// Records a change that reached nobody once its dispatch is complete.
    mutating func noteCompleted(_ change: DispatchTracker.CompletedChange) {
        guard !change.event.isPrior, change.receipts.isEmpty, let row = report.row(of: change.event.seq) else { return }
        report.unheard.append(row)
    }

    /// The what-if multicast replay of the session's single-slot channels (`replay --what-if
    /// multicast`): per change, the owners a multicast channel would have called and the slot
    /// did not, handed to `body` once final (in sequence order per channel only). None when
    /// the session has no single-slot channel.
    func whatIf(
        _ reader: JournalReader, session: SessionSummary, _ body: @escaping (ReplayState.WhatIfChange) -> Void
    ) throws(AnalysisError) {
        guard session.lastSeq > 0 else { return }
        var singleSlot = false
        try reader.forEachChannel(session: session.id) { _, channel in singleSlot = singleSlot || channel.isSingleSlot }
        guard singleSlot else { return }
        _ = try ReplayEngine.replay(reader, session: session, at: session.lastSeq, whatIfMulticast: true, onWhatIf: body)
    }

    /// A summarised session's rows: the events of the findings the page lists, the
    /// registrations and removals of the registrations those name, and the first
    /// `SessionReport.missedPerOwner` changes each of their owners missed on the channel
    /// after being replaced there; with what the what-if replay says of the kept changes,
    /// and how many missed changes were left out by that limit (a replaced owner that
    /// lives on misses every later change: without it the page grew with the session).
    func keptSeqs(
        _ reader: JournalReader, session: SessionSummary, findings: [Finding]
    ) throws(AnalysisError) -> (Set<Int64>, MissedChanges, Int) {
        var keep = Set<Int64>()
        for finding in findings { keep.formUnion(finding.seqs) }
        var kept = Set<Int64>()
        for seq in keep {
            try reader.forEachEvent(session: session.id, filter: EventFilter(from: seq, to: seq)) { event in
                if let id = event.registrationID { kept.insert(id) }
                if let id = event.otherRegistrationID { kept.insert(id) }
                return true
            }
        }
        var replacedOwners: [String: [RegistrationRow]] = [:]
        for id in kept {
            guard let row = try reader.registration(session: session.id, id: id) else { continue }
            keep.insert(row.registeredSeq)
            if let removed = row.removedSeq { keep.insert(removed) }
            if row.removal == .replaced {
                let key = (catalog.channelName(row.channelID) ?? "") + "\u{0}" + (catalog.objectName(row.ownerID) ?? "")
                replacedOwners[key, default: []].append(row)
            }
        }
        var missed = MissedChanges()
        // Per channel and owner: the changes missed after the replacement so far (the
        // replay hands a channel's changes out in order, so the first ones are drawn).
        var missedSoFar: [String: Int] = [:]
        var notDrawn = 0
        try self.whatIf(reader, session: session) { change in
            let owners = change.missed
            guard !owners.isEmpty else { return }
            var beyondLimit = 0
            for owner in owners.uniqued() {
                let key = change.channel + "\u{0}" + owner
                guard replacedOwners[key]?.contains(where: { ($0.removedSeq ?? .max) < change.seq }) == true else { continue }
                missedSoFar[key, default: 0] += 1
                if missedSoFar[key]! <= SessionReport.missedPerOwner { keep.insert(change.seq) } else { beyondLimit += 1 }
            }
            // Drawn anyway when kept for another reason (another owner, a finding).
            if keep.contains(change.seq) { missed.add(change) } else { notDrawn += beyondLimit }
        }
        return (keep, missed, notDrawn)
    }

    /// Draws the what-if answer: each missed change on the owner's lane that was replaced
    /// on that channel before it.
    mutating func addMissed(_ missed: MissedChanges) {
        // Replaced lanes by channel name and owner name, in the report's (escaped) text.
        var replaced: [String: [Int]] = [:]
        for (index, lane) in report.lanes.enumerated() where lane.end == .replaced {
            let key = (report.strings.text(report.channels[lane.channel].name) ?? "") + "\u{0}" + (report.strings.text(lane.owner) ?? "")
            replaced[key, default: []].append(index)
        }
        for change in missed.changes {
            guard let row = report.row(of: change.seq) else { continue }
            let channel = TerminalText.escaped(missed.labels[Int(change.channel)])
            for owner in change.owners {
                let key = channel + "\u{0}" + TerminalText.escaped(missed.labels[Int(owner)])
                // The owner's latest lane on the channel replaced before the change.
                guard let lane = replaced[key]?.last(where: { report.lanes[$0].endRow >= 0 && report.lanes[$0].endRow < row })
                else { continue }
                report.missed.append((row, lane))
            }
        }
    }

    // MARK: - Rows

    mutating func add(_ event: EventRow) {
        typealias Kind = ReportEventLayout.Kind
        let row = report.seqs.count
        if row == 0, let window = report.window { openLanesLive(at: window.from, event) }
        if let keep, !keep.contains(event.seq) {
            do throws(AnalysisError) { try count(event) } catch { failure = failure ?? error }
            return
        }
        let kind = Kind(event.kind)
        let micros = event.timeNs / 1000
        var flags = event.isMain ? ReportEventLayout.Flag.main.rawValue : 0
        var fields: [Int64] = []
        var lanes: [Int] = []
        var channel: Int? = event.channelID.map { self.channel($0) }

        switch kind {
        case .registered:
            let lane = self.lane(event.registrationID, event, row: row)
            lanes = [lane].compactMap { $0 }
            fields = [oneBased(lane), Int64(event.depth)]
        case .replaced:
            let lane = self.lane(event.registrationID, event, row: row)
            let other = event.otherRegistrationID.flatMap { laneIndex[$0] }
            if let other { end(other, row: row, reason: JournalRemovalReason.replaced.name) }
            lanes = [lane, other].compactMap { $0 }
            fields = [oneBased(lane), oneBased(other)]
        case .removed:
            let lane = self.lane(event.registrationID, event, row: row)
            if let lane { end(lane, row: row, reason: event.reason) }
            lanes = [lane].compactMap { $0 }
            fields = [oneBased(lane), Int64(report.strings.name(catalog.callSiteName(event.callSiteID))),
                      Int64(report.strings.name(event.reason))]
        case .removeUnregistered:
            // Names a registration only if it existed; never opens a lane.
            let lane = event.registrationID.flatMap { laneIndex[$0] }
            lanes = [lane].compactMap { $0 }
            fields = [oneBased(channel), oneBased(lane), Int64(report.strings.name(catalog.objectName(event.ownerID))),
                      Int64(report.strings.name(catalog.callSiteName(event.callSiteID))),
                      Int64(report.strings.value(event.detail))]
        case .changed:
            if event.isPrior { flags |= ReportEventLayout.Flag.prior.rawValue }
            if let old = event.oldValue, old == event.newValue { flags |= ReportEventLayout.Flag.redundant.rawValue }
            if event.liveCount == 0 { flags |= ReportEventLayout.Flag.noCallback.rawValue }
            fields = [oneBased(channel), Int64(report.strings.value(event.oldValue)),
                      Int64(report.strings.value(event.newValue)),
                      Int64(report.strings.name(catalog.callSiteName(event.callSiteID))), event.liveCount ?? -1,
                      Int64(event.depth)]
        case .delivered:
            let lane = self.lane(event.registrationID, event, row: row)
            lanes = [lane].compactMap { $0 }
            let duration = max(event.durationNs ?? 0, 0)
            if event.isInitialDelivery {
                flags |= ReportEventLayout.Flag.initial.rawValue
            }
            if let lane, report.lanes[lane].expectsMain, !event.isOnMain { flags |= ReportEventLayout.Flag.offMain.rawValue }
            if duration > report.budgetNs { flags |= ReportEventLayout.Flag.slow.rawValue }
            fields = [oneBased(lane), Self.microsecondsRoundedUp(duration), changeDistance(event, row: row), Int64(event.depth),
                      Int64(event.isInitialDelivery ? report.strings.value(event.newValue) : 0)]
        case .skipped:
            let lane = self.lane(event.registrationID, event, row: row)
            lanes = [lane].compactMap { $0 }
            fields = [oneBased(lane), changeDistance(event, row: row), Int64(report.strings.name(event.reason)),
                      Int64(event.depth)]
        case .scopeBegan, .scopeEnded:
            let scope = event.scopeID.map { self.scope($0) }
            if let scope {
                if kind == .scopeBegan { report.scopes[scope].beganRow = row } else { report.scopes[scope].endedRow = row }
            }
            fields = [oneBased(scope)]
        case .gap:
            let text = [event.reason, event.detail].compactMap { $0 }.joined(separator: ": ")
            fields = [Int64(report.strings.value(text))]
        case .unknown:
            let lane = event.registrationID.flatMap { laneIndex[$0] }
            lanes = [lane].compactMap { $0 }
            fields = [oneBased(channel), oneBased(lane), Int64(report.strings.name(event.kindText))]
        }
        if channel == nil, let first = lanes.first { channel = report.lanes[first].channel }
        if cited[event.seq] != nil { cited[event.seq] = (lanes, channel) }
        for lane in lanes where lane < lastRowOfLane.count { lastRowOfLane[lane] = row }
        for completed in tracker.feed(event) { noteCompleted(completed) }

        report.events.append(Int64(kind.rawValue))
        report.events.append(event.seq - previousSeq)
        report.events.append(micros - previousMicros)
        report.events.append(Int64(thread(event)))
        report.events.append(Int64(flags))
        for field in fields { report.events.append(field) }
        report.seqs.append(event.seq)
        previousSeq = event.seq
        previousMicros = micros
    }

    /// An event a summarised session does not draw: counted on its channel.
    mutating func count(_ event: EventRow) throws(AnalysisError) {
        for completed in tracker.feed(event) { noteCompleted(completed) }
        var problem = event.kind == .skipped || (event.durationNs ?? 0) > report.budgetNs
        if event.kind == .delivered, !event.isMain, let id = event.registrationID, try expectsMain(id) {
            problem = true
        }
        // A removed registration is asked about no more (a hostile journal's later delivery
        // to it is looked up again).
        switch event.kind {
        case .removed: if let id = event.registrationID { expectsMain[id] = nil }
        case .replaced: if let id = event.otherRegistrationID { expectsMain[id] = nil }
        default: break
        }
        let channel = event.channelID.map { self.channel($0) }
        report.density?.count(event, channel: channel, problem: problem)
    }

    /// Whether the registration `id` expects the main thread (the table's word; `false`
    /// when the table lacks it).
    mutating func expectsMain(_ id: Int64) throws(AnalysisError) -> Bool {
        if let known = expectsMain[id] { return known }
        let answer = try reader.registration(session: report.summary.id, id: id)?.expectsMain ?? false
        expectsMain[id] = answer
        return answer
    }

    /// How many rows back the change a delivery or skip belongs to (0: not known).
    mutating func changeDistance(_ event: EventRow, row: Int) -> Int64 {
        guard !event.isInitialDelivery, let change = tracker.change(for: event), let changeRow = report.row(of: change.seq)
        else { return 0 }
        return Int64(row - changeRow)
    }

    /// Whole microseconds, rounded up, of a non-negative duration in nanoseconds; written
    /// so that a journal's 2⁶³−1 ns does not overflow as `(ns + 999) / 1000` did.
    static func microsecondsRoundedUp(_ nanoseconds: Int64) -> Int64 {
        nanoseconds / 1000 + (nanoseconds % 1000 > 0 ? 1 : 0)
    }

    func oneBased(_ index: Int?) -> Int64 { index.map { Int64($0 + 1) } ?? 0 }

    // MARK: - Lanes, channels, threads, scopes

    /// A limited report: the registrations already live when its window begins get their
    /// lanes from its first row, so a lane that spans the window is drawn across it.
    mutating func openLanesLive(at seq: Int64, _ first: EventRow) {
        for row in liveAtWindow where row.registeredSeq < seq && (row.removedSeq ?? .max) >= seq {
            _ = lane(row.id, first, row: 0, stored: .some(row))
        }
        liveAtWindow = []
    }

    /// The lane of a registration, opened at `row` when first named (with its stored row,
    /// read from the table unless given).
    mutating func lane(_ id: Int64?, _ event: EventRow, row: Int, stored given: RegistrationRow?? = nil) -> Int? {
        guard let id else { return nil }
        if let index = laneIndex[id] { return index }
        let stored: RegistrationRow?
        if let given {
            stored = given
        } else {
            do throws(AnalysisError) { stored = try reader.registration(session: report.summary.id, id: id) } catch {
                failure = failure ?? error
                stored = nil
            }
        }
        let channelID = stored?.channelID ?? event.channelID ?? 0
        let callSiteID = stored?.callSiteID
        let lane = SessionReport.Lane(
            registrationID: id, channel: channel(channelID),
            owner: report.strings.name(catalog.objectName(stored?.ownerID ?? event.ownerID) ?? "?"),
            site: report.strings.name(catalog.callSiteName(callSiteID)),
            function: report.strings.name(callSiteID.flatMap { catalog.callSites[$0]?.function }),
            options: report.strings.name(stored?.options), queue: report.strings.name(stored?.queue),
            expectsMain: stored?.expectsMain ?? false, scope: (stored?.scopeID).map { scope($0) + 1 } ?? 0,
            startRow: row, endRow: -1, end: .live, reason: 0
        )
        report.lanes.append(lane)
        laneRows.append(stored)
        lastRowOfLane.append(row)
        laneIndex[id] = report.lanes.count - 1
        return report.lanes.count - 1
    }

    mutating func end(_ lane: Int, row: Int, reason: String?) {
        guard report.lanes[lane].endRow < 0 else { return }
        report.lanes[lane].endRow = row
        report.lanes[lane].end = LaneEnd(reason: reason ?? JournalRemovalReason.explicit.name)
        report.lanes[lane].reason = report.strings.name(reason)
    }

    /// Lanes whose removal the table records but the events do not (dropped in a gap):
    /// they end at the last row that names them, with the table's reason.
    mutating func finishLanes() {
        for index in report.lanes.indices where report.lanes[index].endRow < 0 {
            guard let stored = laneRows[index], let reason = stored.removalReason
            else { continue }
            // Removed after a limited report's window: drawn to the window's end.
            let after = report.window.map { (stored.removedSeq ?? 0) > $0.to } ?? false
            end(index, row: after ? report.seqs.count - 1 : lastRowOfLane[index], reason: reason)
        }
    }

    mutating func channel(_ id: Int64) -> Int {
        if let index = channelIndex[id] { return index }
        report.channels.append(SessionReport.Channel(
            journalID: id, name: report.strings.name(catalog.channelName(id) ?? "channel#\(id)"),
            singleSlot: catalog.channels[id]?.isSingleSlot ?? false
        ))
        channelIndex[id] = report.channels.count - 1
        return report.channels.count - 1
    }

    mutating func thread(_ event: EventRow) -> Int {
        if let index = threadIndex[event.thread] { return index }
        report.threads.append((event.thread, event.isMain))
        threadIndex[event.thread] = report.threads.count - 1
        return report.threads.count - 1
    }

    mutating func scope(_ id: Int64) -> Int {
        if let index = scopeIndex[id] { return index }
        report.scopes.append(SessionReport.Scope(
            journalID: id, name: report.strings.name(catalog.scopes[id]?.name ?? "scope \(id)"), beganRow: -1, endedRow: -1
        ))
        scopeIndex[id] = report.scopes.count - 1
        return report.scopes.count - 1
    }

    // MARK: - Findings

    /// The rows, lanes and channels a finding cites: its sequence numbers' events, the
    /// registrations those events name, and its channel.
    func cite(_ finding: Finding) -> SessionReport.CitedFinding {
        var rows: [Int] = [], lanes: [Int] = [], channels: [Int] = []
        for seq in finding.seqs {
            guard let row = report.row(of: seq) else { continue }
            rows.append(row)
            if let names = cited[seq] {
                lanes += names.lanes
                if let channel = names.channel { channels.append(channel) }
            }
        }
        if let name = finding.channel,
           let match = report.channels.indices.first(where: { report.strings.text(report.channels[$0].name) == TerminalText.escaped(name) }) {
            channels.insert(match, at: 0)
        }
        return SessionReport.CitedFinding(finding: finding, rows: rows, lanes: lanes.uniqued(), channels: channels.uniqued())
    }
}
