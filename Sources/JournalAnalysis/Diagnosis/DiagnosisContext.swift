/// What rules see while a session streams past: the session, its names, the live
/// registrations *before* the current event is applied, and lookups for the rest.
final class DiagnosisContext {
    let reader: JournalReader
    let session: SessionSummary
    let catalog: JournalCatalog
    let options: DiagnosisOptions
    var live = LiveRegistry()
    /// The last registration read from the table: a `registered` event is looked at by
    /// several rules and then applied, and one lookup serves them all.
    private var lastLookup: RegistrationRow?

    init(reader: JournalReader, session: SessionSummary, catalog: JournalCatalog, options: DiagnosisOptions) {
        self.reader = reader
        self.session = session
        self.catalog = catalog
        self.options = options
    }

    /// Whether the session has a `withObservationTracking` site (`TrackingSite`): asked by
    /// several rules of nearly every event, so answered once, on the first event, inside
    /// the pass's read (a journal being written may gain channels before the pass begins).
    /// A failed read answers `true`: the rules then look at each channel, as they would
    /// without this answer, and meet the failure themselves.
    private(set) lazy var hasTrackingSites: Bool = {
        do throws(AnalysisError) {
            return try reader.hasChannel(session: session.id, keyPrefix: TrackingSite.keyPrefix)
        } catch {
            return true
        }
    }()

    /// A registration: the live one, else from the table.
    func registration(_ id: Int64?) throws(AnalysisError) -> RegistrationRow? {
        guard let id else { return nil }
        if let row = live.registrations[id] { return row }
        return try storedRegistration(id)
    }

    /// A registration from the table (never from `live`, so it may be called while
    /// `live` is being updated).
    func storedRegistration(_ id: Int64) throws(AnalysisError) -> RegistrationRow? {
        if let row = lastLookup, row.id == id { return row }
        lastLookup = try reader.registration(session: session.id, id: id)
        return lastLookup
    }

    func owner(_ id: Int64?) -> String { catalog.objectName(id) ?? "an unknown owner" }
    func channel(_ id: Int64?) -> String { catalog.channelName(id) ?? "an unknown channel" }
    func site(_ id: Int64?) -> String { catalog.callSiteName(id) ?? "an unknown call site" }
    /// `File.swift:42 in deinit`: the call site with its function, where the function says
    /// which of several similar calls it is.
    func siteInFunction(_ id: Int64?) -> String {
        guard let id, let function = catalog.callSites[id]?.function, !function.isEmpty else { return site(id) }
        return "\(site(id)) in \(function)"
    }

    /// A registration's owner, channel and call site as findings name them; the event's
    /// own owner and channel win over the table's (a row may be missing after a crash).
    func callback(
        _ id: Int64, owner: Int64? = nil, channel: Int64? = nil
    ) throws(AnalysisError) -> (owner: String, channel: String, site: String) {
        let row = try registration(id)
        return (self.owner(owner ?? row?.ownerID), self.channel(channel ?? row?.channelID), site(row?.callSiteID))
    }
}

/// One rule's state machine over a session's events.
///
/// `observe` sees every event in order, with `context.live` as it was before the event;
/// `completed` sees each change with the deliveries attributed to it; `finish` hands
/// the findings to `emit` one at a time (a long session's findings are spooled, never
/// held together). Checkers keep only what their rule needs (live state and per-channel or
/// per-registration counters), never the events themselves. A value type: its state is
/// reached through the `inout` of its calls, checked for exclusive access when compiled,
/// where a class's stored properties are checked again on every access while it runs.
protocol RuleChecker {
    /// The rule this checker decides: code, name, severities and documentation, declared
    /// next to the logic and listed once in `RuleCatalog`.
    static var rule: Rule { get }
    /// A checker with no state, for one session.
    init()
    mutating func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError)
    mutating func completed(_ change: DispatchTracker.CompletedChange, _ context: DiagnosisContext)
    mutating func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError)
}

extension RuleChecker {
    mutating func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {}
    mutating func completed(_ change: DispatchTracker.CompletedChange, _ context: DiagnosisContext) {}
}

/// "1 change", "3 changes".
func plural(_ count: Int, _ singular: String, _ pluralForm: String? = nil) -> String {
    "\(count) \(count == 1 ? singular : (pluralForm ?? singular + "s"))"
}

/// "1 time", "twice"-free wording that reads well in evidence: "3 times".
func times(_ count: Int) -> String { count == 1 ? "once" : "\(count) times" }

/// Milliseconds with one decimal: `48.2 ms`. Rounded on the magnitude, so the largest
/// durations a damaged journal can claim neither overflow nor print as `0.-2 ms`.
package func milliseconds(_ ns: Int64) -> String {
    let magnitude = ns.magnitude
    let tenths = magnitude / 100_000 + (magnitude % 100_000 >= 50_000 ? 1 : 0)
    return "\(ns < 0 ? "-" : "")\(tenths / 10).\(tenths % 10) ms"
}

/// A recorded value shown inside a message: quoted, cut to `limit` characters.
package func quoted(_ value: String?, limit: Int = 40) -> String {
    guard let value else { return "nil" }
    return "\"\(TerminalText.value(value, limit: limit))\""
}
