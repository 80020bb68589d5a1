import JournalAnalysis

/// `obsreplay timeline JOURNAL`: the events of a session, as a person reads them.
enum TimelineCommand {
    static let command = ObsReplay.Command(
        spec: CommandSpec(
            name: "timeline",
            abstract: "Print the events of a session: sequence, time, thread, kind, channel, owner, call site, old → new.",
            discussion: """
                Nested dispatch is indented by depth. Filters combine (all must match).
                JSON (--json): JSON Lines, one object per event, with the fields of
                'export --what events'.
                """,
            arguments: [CommonOptions.journal],
            options: [CommonOptions.session, key, owner, kind, from, to, limit, CommonOptions.json]
        ),
        run: run
    )

    static let key = ValueOption.text("key", value: "key", help: "Only events on channels with this key.")
    static let owner = ValueOption("owner", value: "type",
                                   help: "Only events whose owner has this type name, or is this object (Type#id, as printed).") {
        .success(OwnerSpelling($0))
    }
    static let kind = ListOption<EventKind>.named(
        "kind", value: "kind", help: "Only events of this kind (repeatable, or comma-separated): "
            + EventKind.names.joined(separator: ", ") + ".",
        names: EventKind.names, lookup: EventKind.init(name:)
    )
    static let from = ValueOption.integer("from", value: "seq", help: "Start at this sequence number.")
    static let to = ValueOption.integer("to", value: "seq", help: "Stop after this sequence number.")
    static let limit = ValueOption.integer("limit", value: "n", help: "Print at most n events.")

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws(CLIError) -> Int32 {
        let sessionID = try arguments.value(CommonOptions.session)
        let from = try arguments.value(Self.from) ?? 1
        let to = try arguments.value(Self.to) ?? .max
        let limit = try arguments.value(Self.limit)
        let kinds = try arguments.values(kind)
        let owner = try arguments.value(Self.owner)
        let key = try arguments.value(Self.key)
        let reader = try context.openJournal(arguments.argument(CommonOptions.journal))
        let json = arguments.flag(CommonOptions.json)
        try analysing { () throws(AnalysisError) in
            let session = try reader.session(sessionID)
            if from > session.lastSeqOrStart {
                throw .sequenceBeyondEnd(path: reader.path, session: session.id, seq: from, last: session.lastSeq)
            }
            let catalog = try reader.catalog(session: session.id)
            let filter = EventFilter(from: from, to: to, kinds: kinds, channelKey: key, ownerType: owner?.type)
            let columns = Exporter.columns(for: .events)
            var printed: Int64 = 0
            var failure: AnalysisError?
            try reader.forEachEvent(session: session.id, filter: filter) { event in
                if let id = owner?.id, event.ownerID != id { return true }
                if let limit, printed >= limit { return false }
                printed += 1
                if json {
                    context.json(.object(zip(columns, Exporter.eventCells(event, catalog).map(\.json)).map { ($0, $1) }))
                } else {
                    do throws(AnalysisError) {
                        context.line(try describe(event, catalog, reader))
                    } catch {
                        failure = error
                        return false
                    }
                }
                return !context.out.closedByReader
            }
            if let failure { throw failure }
        }
        return ExitCode.success
    }

    /// One event as a line: `   17  +0.153s  main  replaced  Player#1.isPlayingChanged  ...`.
    static func describe(_ event: EventRow, _ catalog: JournalCatalog, _ reader: JournalReader) throws(AnalysisError) -> String {
        let thread = event.isMain ? "main" : "t\(event.thread)"
        let indent = String(repeating: "  ", count: max(0, min(event.depth, 20)))
        var parts: [String] = []
        let channel = catalog.channelName(event.channelID)
        func registrationSite(_ id: Int64?) throws(AnalysisError) -> (owner: String?, site: String?) {
            guard let id, let row = try reader.registration(session: event.sessionID, id: id) else { return (nil, nil) }
            return (catalog.objectName(row.ownerID), catalog.callSiteName(row.callSiteID))
        }
        switch event.kind {
        case .registered?:
            let registration = try registrationSite(event.registrationID)
            parts = [channel, registration.owner ?? catalog.objectName(event.ownerID), registration.site, event.registrationID.map { "reg \($0)" }]
                .compactMap { $0 }
        case .replaced?:
            let new = try registrationSite(event.registrationID)
            let old = try registrationSite(event.otherRegistrationID)
            parts = [channel, new.owner ?? catalog.objectName(event.ownerID), new.site, event.registrationID.map { "reg \($0)" }].compactMap { $0 }
            if let other = event.otherRegistrationID {
                parts.append("replaces reg \(other) of \(old.owner ?? "?") (\(old.site ?? "?"))")
            }
        case .removed?, .cancelAfterAutoRemoval?, .ownerGone?:
            var owner = catalog.objectName(event.ownerID)
            if owner == nil { owner = try registrationSite(event.registrationID).owner }
            parts = [channel, owner, event.registrationID.map { "reg \($0)" }, event.reason, event.callSiteID.map { "at \(catalog.callSiteName($0) ?? "?")" }]
                .compactMap { $0 }
        case .removeUnregistered?:
            parts = [
                channel ?? "(no such channel)", catalog.objectName(event.ownerID), event.registrationID.map { "reg \($0)" },
                event.callSiteID.map { "at \(catalog.callSiteName($0) ?? "?")" }, event.detail,
            ].compactMap { $0 }
        case .changed?:
            parts = [channel ?? "?"]
            if event.oldValue != nil || event.newValue != nil {
                parts.append("\(TerminalText.value(event.oldValue)) → \(TerminalText.value(event.newValue))")
            }
            if event.isPrior { parts.append("(prior)") }
            if let site = event.callSiteID { parts.append("at \(catalog.callSiteName(site) ?? "?")") }
            if let live = event.liveCount { parts.append("live \(live)") }
        case .delivered?, .skipped?:
            parts = [channel, catalog.objectName(event.ownerID), event.registrationID.map { "reg \($0)" }].compactMap { $0 }
            if let duration = event.durationNs { parts.append(milliseconds(duration)) }
            if let reason = event.reason { parts.append(reason) }
            if event.isInitialDelivery { parts.append("initial \(event.newValue.map { TerminalText.value($0) } ?? "")") }
        case .scopeBegan?, .scopeEnded?:
            let name = event.scopeID.flatMap { catalog.scopes[$0]?.name }
            parts = ["scope \(event.scopeID ?? 0)", name.map { "\"\($0)\"" }].compactMap { $0 }
        case .gap?:
            parts = [event.reason, event.detail].compactMap { $0 }
        case nil:
            parts = [channel, catalog.objectName(event.ownerID), event.detail].compactMap { $0 }
        }
        return pad(String(event.seq), 7, left: true) + "  " + pad(relativeTime(event.timeNs), 10, left: true) + "  "
            + pad(thread, 5) + "  " + indent + pad(event.kindText, 18) + "  " + parts.joined(separator: "  ")
    }
}

/// `--owner`: a type name (`VideoScreen`) or one object as the tool prints it
/// (`VideoScreen#3`).
struct OwnerSpelling: Equatable {
    var type: String
    var id: Int64?

    init(_ text: String) {
        if let hash = text.lastIndex(of: "#"), let id = Int64(text[text.index(after: hash)...]), hash > text.startIndex {
            type = String(text[..<hash])
            self.id = id
        } else {
            type = text
            id = nil
        }
    }
}
