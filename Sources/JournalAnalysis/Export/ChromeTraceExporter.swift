import JournalStore

/// Writes sessions in the Trace Event Format (the JSON that Perfetto and chrome://tracing
/// open), so a recording can be looked at beside other traces.
///
/// Layout of the document: `{"displayTimeUnit":"ms","otherData":{...},"traceEvents":[...]}`
/// with one event per line. Each session is a process (`pid` = session id, named by a
/// `process_name` metadata event); each registry thread is a thread of it (`tid` = the
/// thread number, named `thread N (main)` by `thread_name`). Timestamps are microseconds
/// from the session's start.
///
/// - `delivered` → a complete event (`X`) on the delivering thread, starting `duration`
///   before the recorded time (the registry stamps a delivery when the callback returns);
/// - `changed`, `removed`, `replaced`, `removeUnregistered`, `skipped`, `gap` and kinds this
///   version does not know → instant events (`i`, thread scope; `gap` process scope);
/// - a registration's lifetime → an async span (`b` at `registered`/`replaced`, `e` at its
///   removal or replacement) named after its channel, so Perfetto groups a channel's
///   lifetimes together; `cat` `registration`, `id` the registration id;
/// - a scope → an async span with `cat` `scope`.
///
/// Spans still open when a session ends (leaked registrations, scopes never ended) end
/// at the session's last event with `args.ended` = `live at end`, so begins and ends
/// always balance. Events of a thread come out ordered by timestamp: a callback's own
/// nested events are held until the outermost callback on that thread returns (its
/// complete event starts before them). Memory follows live registrations and the events
/// inside one callback, not the session's length.
package enum ChromeTraceExporter {
    /// Writes `session` (every session when `nil`) of `reader` to `output`.
    package static func export(from reader: JournalReader, session: Int64?, to output: any TextOutput) throws(AnalysisError) {
        let sessions: [SessionSummary]
        if let session { sessions = [try reader.session(session)] } else { sessions = try reader.sessions() }
        var document = TraceDocument(output: output)
        document.open()
        for summary in sessions where !output.isClosedByReader {
            try SessionTrace(reader: reader, summary: summary).write(to: &document)
        }
        document.close()
        try output.flush()
    }

    /// Microseconds with three decimals (`1234.567`), from nanoseconds; never negative.
    static func micros(_ ns: Int64) -> JSONValue {
        .double(Double(max(ns, 0)) / 1000)
    }
}

/// The JSON document: opening, comma-separated events, closing.
struct TraceDocument {
    let output: any TextOutput
    private var first = true

    init(output: any TextOutput) {
        self.output = output
    }

    func open() {
        output.write("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"obsreplay\"},\"traceEvents\":[\n")
    }

    mutating func append(_ line: String) {
        output.write(first ? line : ",\n" + line)
        first = false
    }

    func close() {
        output.write("\n]}\n")
    }
}

/// The trace of one session.
struct SessionTrace {
    let reader: JournalReader
    let summary: SessionSummary

    /// An event waiting for its thread's outermost callback to return.
    struct Pending {
        var ns: Int64
        var line: String
    }

    /// An open async span: what its `e` must repeat.
    struct Span {
        var name: String
        var thread: Int64
    }

    /// A thread flushes anyway past this many held events (a callback that never
    /// returned in a crashed session must not hold the rest of the trace in memory).
    static let holdLimit = 100_000

    func write(to document: inout TraceDocument) throws(AnalysisError) {
        let pid = JSONValue.int(summary.id)
        let catalog = try reader.catalog(session: summary.id)
        document.append(JSONValue.object([
            ("name", .string("process_name")), ("ph", .string("M")), ("pid", pid), ("tid", .int(0)), ("ts", .int(0)),
            ("args", .object([("name", .string("session \(summary.id): \(summary.label) (\(summary.process), pid \(summary.pid))"))])),
        ]).rendered)
        document.append(JSONValue.object([
            ("name", .string("process_sort_index")), ("ph", .string("M")), ("pid", pid), ("tid", .int(0)), ("ts", .int(0)),
            ("args", .object([("sort_index", .int(summary.id))])),
        ]).rendered)
        var held: [Int64: [Pending]] = [:]
        var namedThreads: Set<Int64> = []
        var registrations: [Int64: Span] = [:]
        var scopes: [Int64: Span] = [:]
        var live = LiveRegistry()
        var lastNs: Int64 = 0
        var lastThread: Int64 = 1
        var failure: AnalysisError?
        let lookup = { (id: Int64) throws(AnalysisError) -> RegistrationRow? in
            try reader.registration(session: summary.id, id: id)
        }
        /// The live row, else the table's (a delivery after removal, a late row).
        func registration(_ id: Int64?) throws(AnalysisError) -> RegistrationRow? {
            guard let id else { return nil }
            if let row = live.registrations[id] { return row }
            return try lookup(id)
        }

        func flush(_ thread: Int64, into document: inout TraceDocument) {
            guard let pending = held.removeValue(forKey: thread) else { return }
            // Stable: equal timestamps keep the journal's order.
            for entry in pending.enumerated().sorted(by: { ($0.element.ns, $0.offset) < ($1.element.ns, $1.offset) }) {
                document.append(entry.element.line)
            }
        }

        try reader.forEachEvent(session: summary.id) { event in
            do throws(AnalysisError) {
                if namedThreads.insert(event.thread).inserted {
                    document.append(JSONValue.object([
                        ("name", .string("thread_name")), ("ph", .string("M")), ("pid", pid), ("tid", .int(event.thread)),
                        ("ts", .int(0)),
                        ("args", .object([("name", .string("thread \(event.thread)" + (event.isMain ? " (main)" : "")))])),
                    ]).rendered)
                }
                var lines: [Pending] = []
                func emit(_ ph: String, _ name: String, ns: Int64, _ members: [(String, JSONValue)]) {
                    var object: [(String, JSONValue)] = [
                        ("name", .string(name)), ("ph", .string(ph)), ("pid", pid), ("tid", .int(event.thread)),
                        ("ts", ChromeTraceExporter.micros(ns)),
                    ]
                    object += members
                    lines.append(Pending(ns: ns, line: JSONValue.object(object).rendered))
                }
                let channel = catalog.channelName(event.channelID) ?? "?"
                let seq = ("seq", JSONValue.int(event.seq))

                func begin(_ id: Int64) throws(AnalysisError) {
                    let row = try registration(id)
                    registrations[id] = Span(name: channel, thread: event.thread)
                    emit("b", channel, ns: event.timeNs, [
                        ("cat", .string("registration")), ("id", .int(id)),
                        ("args", .object([
                            seq, ("registration", .int(id)), ("owner", .text(catalog.objectName(event.ownerID ?? row?.ownerID))),
                            ("call_site", .text(catalog.callSiteName(row?.callSiteID))),
                            ("function", .text(row.flatMap { catalog.callSites[$0.callSiteID]?.function })),
                            ("options", .text(row?.options)), ("queue", .text(row?.queue)),
                            ("expects_main", .bool(row?.expectsMain ?? false)),
                        ])),
                    ])
                }
                func end(_ id: Int64, _ how: String) {
                    guard let span = registrations.removeValue(forKey: id) else { return }
                    emit("e", span.name, ns: event.timeNs, [
                        ("cat", .string("registration")), ("id", .int(id)),
                        ("args", .object([seq, ("ended", .string(how))])),
                    ])
                }
                func instant(_ name: String, scope: String = "t", _ args: [(String, JSONValue)]) {
                    emit("i", name, ns: event.timeNs, [("cat", .string(event.kindText)), ("s", .string(scope)), ("args", .object([seq] + args))])
                }

                switch event.kind {
                case .registered:
                    if let id = event.registrationID { try begin(id) }
                case .replaced:
                    if let old = event.otherRegistrationID { end(old, JournalRemovalReason.replaced.name) }
                    instant("replaced on \(channel)", [
                        ("registration", .number(event.registrationID)), ("replaced", .number(event.otherRegistrationID)),
                        ("owner", .text(catalog.objectName(event.ownerID))),
                    ])
                    if let id = event.registrationID { try begin(id) }
                case .removed:
                    let owner = catalog.objectName(event.ownerID) ?? "?"
                    instant("removed \(owner) from \(channel)", [
                        ("registration", .number(event.registrationID)), ("owner", .string(owner)),
                        ("reason", .text(event.reason)), ("call_site", .text(catalog.callSiteName(event.callSiteID))),
                    ])
                    if let id = event.registrationID { end(id, event.reason ?? EventKind.removed.name) }
                case .ownerGone:
                    instant("owner gone \(catalog.objectName(event.ownerID) ?? "?")", [("registration", .number(event.registrationID))])
                case .cancelAfterAutoRemoval:
                    instant("cancel after auto-removal", [
                        ("registration", .number(event.registrationID)), ("reason", .text(event.reason)),
                        ("call_site", .text(catalog.callSiteName(event.callSiteID))),
                    ])
                case .removeUnregistered:
                    instant("remove-unregistered", [
                        ("channel", .text(catalog.channelName(event.channelID))), ("registration", .number(event.registrationID)),
                        ("owner", .text(catalog.objectName(event.ownerID))),
                        ("call_site", .text(catalog.callSiteName(event.callSiteID))), ("detail", .text(event.detail)),
                    ])
                case .changed:
                    instant("changed \(channel)", [
                        ("old", .text(event.oldValue)), ("new", .text(event.newValue)), ("live_count", .number(event.liveCount)),
                        ("depth", .int(Int64(event.depth))), ("is_prior", .bool(event.isPrior)),
                        ("call_site", .text(catalog.callSiteName(event.callSiteID))),
                    ])
                case .delivered:
                    let duration = max(event.durationNs ?? 0, 0)
                    let row = try registration(event.registrationID)
                    let owner = catalog.objectName(event.ownerID ?? row?.ownerID) ?? "?"
                    let expectsMain = row?.expectsMain ?? false
                    // A journal may claim a time near Int64.min: the start then stays at the minimum.
                    let (start, overflow) = event.timeNs.subtractingReportingOverflow(duration)
                    emit("X", "\(channel) → \(owner)", ns: overflow ? .min : start, [
                        ("cat", .string("delivery")), ("dur", ChromeTraceExporter.micros(duration)),
                        ("args", .object([
                            seq, ("registration", .number(event.registrationID)), ("owner", .string(owner)),
                            ("call_site", .text(catalog.callSiteName(row?.callSiteID))), ("depth", .int(Int64(event.depth))),
                            ("expects_main", .bool(expectsMain)), ("off_main", .bool(expectsMain && !event.isOnMain)),
                            ("initial_value", .text(event.isInitialDelivery ? event.newValue : nil)),
                        ])),
                    ])
                case .skipped:
                    instant("skipped \(catalog.objectName(event.ownerID) ?? "?") on \(channel)", [
                        ("registration", .number(event.registrationID)), ("reason", .text(event.reason)),
                    ])
                case .scopeBegan:
                    if let id = event.scopeID {
                        let name = catalog.scopes[id]?.name ?? "scope \(id)"
                        scopes[id] = Span(name: name, thread: event.thread)
                        emit("b", name, ns: event.timeNs, [("cat", .string("scope")), ("id", .int(id)), ("args", .object([seq]))])
                    }
                case .scopeEnded:
                    if let id = event.scopeID, let span = scopes.removeValue(forKey: id) {
                        emit("e", span.name, ns: event.timeNs, [
                            ("cat", .string("scope")), ("id", .int(id)), ("args", .object([seq, ("ended", .string("ended"))])),
                        ])
                    }
                case .gap:
                    instant(EventKind.gap.name, scope: "p", [("reason", .text(event.reason)), ("detail", .text(event.detail))])
                case nil:
                    instant(event.kindText, [("detail", .text(event.detail))])
                }
                try live.apply(event, lookup: lookup)
                // At depth 0 no callback is running on this thread any more: nothing that
                // comes later on it can start before what is held. (One event's lines share
                // its timestamp, so with nothing held they go straight out.)
                if event.depth == 0 && held[event.thread] == nil {
                    for line in lines { document.append(line.line) }
                } else {
                    held[event.thread, default: []] += lines
                    if event.depth == 0 || held[event.thread]!.count > Self.holdLimit { flush(event.thread, into: &document) }
                }
                lastNs = event.timeNs
                lastThread = event.thread
                // `export | head`: the rest would be computed for nothing.
                return !document.output.isClosedByReader
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
        for thread in held.keys.sorted() { flush(thread, into: &document) }
        // Close what is still open at the session's end, so every span balances.
        for (id, span) in registrations.sorted(by: { $0.key < $1.key }) {
            document.append(closing(span, cat: "registration", id: id, pid: pid, ns: lastNs, thread: lastThread))
        }
        for (id, span) in scopes.sorted(by: { $0.key < $1.key }) {
            document.append(closing(span, cat: "scope", id: id, pid: pid, ns: lastNs, thread: lastThread))
        }
    }

    func closing(_ span: Span, cat: String, id: Int64, pid: JSONValue, ns: Int64, thread: Int64) -> String {
        JSONValue.object([
            ("name", .string(span.name)), ("ph", .string("e")), ("pid", pid), ("tid", .int(thread)),
            ("ts", ChromeTraceExporter.micros(ns)), ("cat", .string(cat)), ("id", .int(id)),
            ("args", .object([("ended", .string("live at end"))])),
        ]).rendered
    }
}
