import JournalAnalysis

extension SessionReport {
    /// The session as the page's script reads it (see `ReportEventLayout`):
    /// `meta`, `strings`, `threads` `[number, isMain]`, `channels` `[journal id, name,
    /// singleSlot]`, `lanes` (fields as `laneFields`), `scopes` `[journal id, name, began
    /// row, ended row]`, `missed` as flat `[change row, lane, ...]`, `unheard` change rows, `rows` and the
    /// encoded events `ev`. Plain JSON; the page makes it
    /// safe inside its script element.
    func json() -> String {
        let meta = JSONValue.object([
            ("id", .int(summary.id)), ("label", .string(TerminalText.escaped(summary.label))),
            ("process", .string(TerminalText.escaped(summary.process))), ("pid", .int(summary.pid)),
            ("host", .string(TerminalText.escaped(summary.host))), ("startedAt", .string(TerminalText.escaped(summary.startedAt))),
            ("endedAt", .text(summary.endedAt.map(TerminalText.escaped))), ("cleanEnd", .bool(summary.cleanEnd)),
            ("events", .int(density == nil ? Int64(seqs.count) : summary.eventCount)), ("registrations", .int(Int64(lanes.count))),
            ("endUs", .int(summary.lastTimeNs / 1000)), ("budgetUs", .int(budgetNs / 1000)),
        ])
        var out = "{\"meta\":"
        meta.render(into: &out)
        out += ",\"strings\":"
        JSONValue.array(strings.values.map(JSONValue.string)).render(into: &out)
        out += ",\"threads\":"
        JSONValue.array(threads.map { .array([.int($0.number), .int($0.isMain ? 1 : 0)]) }).render(into: &out)
        out += ",\"channels\":"
        JSONValue.array(channels.map { .array([.int($0.journalID), .int(Int64($0.name)), .int($0.singleSlot ? 1 : 0)]) })
            .render(into: &out)
        out += ",\"lanes\":"
        JSONValue.array(lanes.map { lane in
            .array([
                .int(lane.registrationID), .int(Int64(lane.channel)), .int(Int64(lane.owner)), .int(Int64(lane.site)),
                .int(Int64(lane.function)), .int(Int64(lane.options)), .int(Int64(lane.queue)), .int(lane.expectsMain ? 1 : 0),
                .int(Int64(lane.scope)), .int(Int64(lane.startRow)), .int(Int64(lane.endRow)), .int(Int64(lane.end.rawValue)),
                .int(Int64(lane.reason)),
            ])
        }).render(into: &out)
        out += ",\"scopes\":"
        JSONValue.array(scopes.map { .array([.int($0.journalID), .int(Int64($0.name)), .int(Int64($0.beganRow)), .int(Int64($0.endedRow))]) })
            .render(into: &out)
        out += ",\"missed\":"
        JSONValue.array(missed.flatMap { [JSONValue.int(Int64($0.row)), .int(Int64($0.lane))] }).render(into: &out)
        out += ",\"unheard\":"
        JSONValue.array(unheard.map { .int(Int64($0)) }).render(into: &out)
        if let density {
            out += ",\"density\":"
            density.json.render(into: &out)
        }
        out += ",\"rows\":\(seqs.count),\"ev\":["
        out += String(decoding: events.bytes, as: UTF8.self)
        out += "]}"
        return out
    }

    /// The fields of each entry of `lanes`, in order (documentation for readers of the data).
    static let laneFields = [
        "registration", "channel", "owner", "site", "function", "options", "queue", "expectsMain", "scope", "startRow",
        "endRow", "end", "reason",
    ]

    /// The layout the page's script decodes with (`ReportEventLayout`, lane fields, flags,
    /// lane ends).
    static func layoutJSON() -> String {
        JSONValue.object([
            ("common", .array(ReportEventLayout.common.map(JSONValue.string))),
            ("kinds", .array(ReportEventLayout.Kind.allCases.map { kind in
                .object([("name", .string(kind.name)), ("fields", .array(ReportEventLayout.fields(of: kind).map(JSONValue.string)))])
            })),
            ("flags", .object(ReportEventLayout.Flag.allCases.map { (String(describing: $0), .int(Int64($0.rawValue))) })),
            ("ends", .array(LaneEnd.allCases.map { .string($0.name) })),
            ("laneFields", .array(laneFields.map(JSONValue.string))),
        ]).rendered
    }
}
