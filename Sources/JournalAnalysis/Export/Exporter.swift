/// Streams events, registrations, deliveries or findings to CSV or JSON Lines.
///
/// Field names are stable (see `columns(for:)`, then `provenanceColumns`); rows come in
/// session and sequence order; memory stays flat however many rows there are.
package enum Exporter {
    /// The last columns of every row: the journal's id (`JournalReader.journalID`), and the
    /// host and run of the row's session, so exported files can be renamed, moved and
    /// concatenated without losing where each row came from.
    package static let provenanceColumns = ["journal_id", "host", "run"]

    /// The columns of each export, in order. These names are part of the tool's interface.
    package static func columns(for subject: ExportSubject) -> [String] {
        switch subject {
        case .events:
            return eventColumns.map(\.name)
        case .registrations:
            return [
                "session_id", "id", "channel_id", "channel", "policy", "owner_id", "owner", "call_site", "function",
                "options", "queue", "expects_main", "sender", "scope_id", "scope", "registered_seq", "removed_seq",
                "removal_reason",
            ]
        case .deliveries:
            return [
                "session_id", "seq", "time_ns", "kind", "change_seq", "channel_id", "channel", "registration_id",
                "owner_id", "owner", "call_site", "thread", "is_main", "expects_main", "depth", "duration_ns",
                "reason", "initial_value",
            ]
        case .findings:
            return [
                "session_id", "code", "name", "severity", "message", "channel", "owners", "call_sites", "seqs",
                "count", "evidence", "fix", "fingerprint",
            ]
        }
    }

    /// Writes `subject` of `session` (all sessions when `nil`) to `output`. The
    /// `chromeTrace` format writes events only (`subject` must be `.events`). With
    /// `journal`, rows start with a `journal` column of that value, and `header: false`
    /// leaves out the CSV header (the second and later journals of one export). Events
    /// read are added to `progress` (events, deliveries and findings exports).
    package static func export(
        _ subject: ExportSubject, from reader: JournalReader, session: Int64?, format: ExportFormat, raw: Bool,
        options: DiagnosisOptions = DiagnosisOptions(), to output: any TextOutput, journal: String? = nil, header: Bool = true,
        progress: ReadProgress? = nil
    ) throws(AnalysisError) {
        if format == .chromeTrace {
            precondition(subject == .events, "chrome-trace exports events only; the caller checks --what")
            try ChromeTraceExporter.export(from: reader, session: session, to: output)
            return
        }
        let table = TableWriter(
            columns: columns(for: subject) + provenanceColumns, format: format, raw: raw, output: output, journal: journal,
            header: header
        )
        var sessions: [SessionSummary]
        if let session { sessions = [try reader.session(session)] } else { sessions = try reader.sessions() }
        let provenance = RowProvenance(journalID: try reader.journalID(), sessions: sessions)
        // Sessions with no rows have none to export: a journal may hold hundreds of
        // thousands of them. (Findings still cover them: an unclean one is a finding.)
        if subject != .findings { sessions.removeAll { $0.eventCount == 0 && $0.registrationCount == 0 } }
        switch subject {
        case .events:
            for session in sessions where !output.isClosedByReader {
                try exportEvents(reader, session: session.id, table: table, provenance: provenance, progress: progress)
            }
        case .registrations:
            for session in sessions {
                let catalog = try reader.catalog(session: session.id)
                try reader.forEachRegistration(session: session.id) { sessionID, row in
                    table.row(registrationCells(sessionID, row, catalog), suffix: provenance.cells(sessionID))
                }
            }
        case .deliveries:
            for session in sessions where !output.isClosedByReader {
                try exportDeliveries(reader, session: session.id, table: table, provenance: provenance, progress: progress)
            }
        case .findings:
            // Spooled, not held: a long session's findings grow with its history.
            let spool = FindingSpool()
            for session in sessions { try Diagnoser.diagnose(reader, session: session, options: options, into: spool, progress: progress) }
            try spool.drain { table.row(findingCells($0), suffix: provenance.cells($0.sessionID)) }
        }
        try output.flush()
    }

    static func exportEvents(
        _ reader: JournalReader, session: Int64, table: TableWriter, provenance: RowProvenance? = nil,
        progress: ReadProgress? = nil
    ) throws(AnalysisError) {
        let catalog = try reader.catalog(session: session)
        // The fleet export's tables carry their provenance first (`TableWriter.prefix`).
        let suffix = provenance?.cells(session) ?? []
        var events = 0
        defer { progress?.add(events % ReadProgress.batch) }
        try reader.forEachEvent(session: session) { event in
            table.row(eventCells(event, catalog), suffix: suffix)
            events += 1
            if events % ReadProgress.batch == 0 { progress?.add(ReadProgress.batch) }
            // `export | head`: the rest would be computed for nothing (with a journal's
            // megabyte channel name in every row, for minutes).
            return !table.output.isClosedByReader
        }
    }

    /// A column of the events export: its name and its cell of an event.
    typealias EventColumnCell = (name: String, cell: @Sendable (EventRow, JournalCatalog) -> ExportCell)

    /// The columns of the events export, each named with its cell, in order: every column
    /// of `events` and `event_details` (`StoredEvent`, `StoredEventDetails`) and of the
    /// view `event_log`, decoded as the view decodes it, ids with their names beside them
    /// (`ExportTests` checks that none is missing). New columns are appended: the order is
    /// part of the interface.
    static let eventColumns: [EventColumnCell] = [
        ("session_id", { event, _ in .int(event.sessionID) }),
        ("seq", { event, _ in .int(event.seq) }),
        ("time_ns", { event, _ in .int(event.timeNs) }),
        ("kind", { event, _ in .text(event.kindText) }),
        ("thread", { event, _ in .int(event.thread) }),
        ("is_main", { event, _ in .bool(event.isMain) }),
        ("channel_id", { event, _ in .int(event.channelID) }),
        ("channel", { event, catalog in .text(catalog.channelName(event.channelID)) }),
        ("registration_id", { event, _ in .int(event.registrationID) }),
        ("owner_id", { event, _ in .int(event.ownerID) }),
        ("owner", { event, catalog in .text(catalog.objectName(event.ownerID)) }),
        ("other_registration_id", { event, _ in .int(event.otherRegistrationID) }),
        ("call_site", { event, catalog in .text(catalog.qualifiedCallSiteName(event.callSiteID)) }),
        ("scope_id", { event, _ in .int(event.scopeID) }),
        ("depth", { event, _ in .int(Int64(event.depth)) }),
        ("live_count", { event, _ in .int(event.liveCount) }),
        ("duration_ns", { event, _ in .int(event.durationNs) }),
        ("is_prior", { event, _ in .bool(event.isPrior) }),
        ("old_value", { event, _ in .text(event.oldValue) }),
        ("new_value", { event, _ in .text(event.newValue) }),
        ("reason", { event, _ in .text(event.reason) }),
        ("detail", { event, _ in .text(event.detail) }),
        ("main_queue", { event, _ in event.isMainQueue.map(ExportCell.bool) ?? .int(nil) }),
        ("cpu_ns", { event, _ in .int(event.cpuNs) }),
        ("waits", { event, _ in .int(event.waits) }),
        ("change_seq", { event, _ in .int(event.changeSeq) }),
        ("run_queue_ns", { event, _ in .int(event.runQueueNs) }),
    ]

    /// The cells of one event row, in `eventColumns` order (shared with `timeline --json`).
    package static func eventCells(_ event: EventRow, _ catalog: JournalCatalog) -> [ExportCell] {
        eventColumns.map { $0.cell(event, catalog) }
    }

    static func registrationCells(_ session: Int64, _ row: RegistrationRow, _ catalog: JournalCatalog) -> [ExportCell] {
        [
            .int(session), .int(row.id), .int(row.channelID), .text(catalog.channelName(row.channelID)),
            .text(catalog.channels[row.channelID]?.policy), .int(row.ownerID), .text(catalog.objectName(row.ownerID)),
            .text(catalog.qualifiedCallSiteName(row.callSiteID)), .text(catalog.callSites[row.callSiteID]?.function),
            .text(row.options), .text(row.queue), .bool(row.expectsMain), .text(catalog.objectName(row.senderID)),
            .int(row.scopeID), .text(row.scopeID.flatMap { catalog.scopes[$0]?.name }), .int(row.registeredSeq),
            .int(row.removedSeq), .text(row.removalReason),
        ]
    }

    static func exportDeliveries(
        _ reader: JournalReader, session: Int64, table: TableWriter, provenance: RowProvenance,
        progress: ReadProgress? = nil
    ) throws(AnalysisError) {
        let suffix = provenance.cells(session)
        var events = 0
        defer { progress?.add(events % ReadProgress.batch) }
        let catalog = try reader.catalog(session: session)
        var live = LiveRegistry()
        var tracker = DispatchTracker()
        var failure: AnalysisError?
        let lookup = { (id: Int64) throws(AnalysisError) -> RegistrationRow? in
            try reader.registration(session: session, id: id)
        }
        try reader.forEachEvent(session: session) { event in
            events += 1
            if events % ReadProgress.batch == 0 { progress?.add(ReadProgress.batch) }
            do throws(AnalysisError) {
                if event.kind == .delivered || event.kind == .skipped {
                    var row = event.registrationID.flatMap { live.registrations[$0] }
                    if row == nil, let id = event.registrationID { row = try lookup(id) }
                    let change = event.isInitialDelivery ? nil : tracker.change(for: event)
                    table.row([
                        .int(session), .int(event.seq), .int(event.timeNs), .text(event.kindText), .int(change?.seq),
                        .int(event.channelID), .text(catalog.channelName(event.channelID)), .int(event.registrationID),
                        .int(event.ownerID ?? row?.ownerID), .text(catalog.objectName(event.ownerID ?? row?.ownerID)),
                        .text(catalog.qualifiedCallSiteName(row?.callSiteID)), .int(event.thread), .bool(event.isMain),
                        .bool(row?.expectsMain ?? false), .int(Int64(event.depth)), .int(event.durationNs),
                        .text(event.reason), .text(event.isInitialDelivery ? event.newValue : nil),
                    ], suffix: suffix)
                }
                _ = tracker.feed(event)
                try live.apply(event, lookup: lookup)
                return !table.output.isClosedByReader
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
    }

    static func findingCells(_ finding: Finding) -> [ExportCell] {
        [
            .int(finding.sessionID), .text(finding.rule.code), .text(finding.rule.name), .text(finding.severity.rawValue),
            .text(finding.message), .text(finding.channel), .texts(finding.owners, separator: "; "),
            .texts(finding.callSites, separator: "; "), .ints(finding.seqs),
            .int(Int64(finding.count)), .texts(finding.evidence, separator: "\n"), .text(finding.fix),
            .text(finding.fingerprint),
        ]
    }
}
