import JournalAnalysis

extension SessionReport {
    /// The session as the page's script reads it (see `ReportEventLayout`):
    /// `meta`, `strings`, `threads` `[number, isMain]`, `channels` `[journal id, name,
    /// singleSlot]`, `lanes` (fields as `laneFields`), `scopes` `[journal id, name, began
    /// row, ended row]`, `missed` as flat `[change row, lane, ...]`, `unheard` change rows, `rows` and the
    /// encoded events `ev`. Plain JSON; the page makes it
    /// safe inside its script element.
    ///
    /// How many bytes of JSON `json(to:)` collects before handing them out.
    static let jsonPieceSize = 1 << 16

    /// `json()` handed to `out` in pieces of about `jsonPieceSize` bytes (more only for a
    /// single long value), so the page can be written out without ever being one string.
    func json<Failure: Error>(to out: (String) throws(Failure) -> Void) throws(Failure) {
        var buffer = ""
        func flushIfFull() throws(Failure) {
            guard buffer.utf8.count >= Self.jsonPieceSize else { return }
            try out(buffer)
            buffer = ""
        }
        func text(_ text: String) throws(Failure) {
            buffer += text
            try flushIfFull()
        }
        func value(_ value: JSONValue) throws(Failure) {
            value.render(into: &buffer)
            try flushIfFull()
        }
        func array<Element>(_ elements: [Element], _ render: (Element, inout String) -> Void) throws(Failure) {
            buffer += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { buffer += "," }
                render(element, &buffer)
                try flushIfFull()
            }
            buffer += "]"
        }
        func values<Element>(_ elements: [Element], _ value: (Element) -> JSONValue) throws(Failure) {
            try array(elements) { value($0).render(into: &$1) }
        }
        let meta = JSONValue.object([
            ("id", .int(summary.id)), ("label", .string(TerminalText.escaped(summary.label))),
            ("process", .string(TerminalText.escaped(summary.process))), ("pid", .int(summary.pid)),
            ("host", .string(TerminalText.escaped(summary.host))), ("startedAt", .string(TerminalText.escaped(summary.startedAt))),
            ("endedAt", .text(summary.endedAt.map(TerminalText.escaped))), ("cleanEnd", .bool(summary.cleanEnd)),
            ("events", .int(density == nil ? Int64(seqs.count) : summary.eventCount)), ("registrations", .int(Int64(lanes.count))),
            ("endUs", .int(summary.lastTimeNs / 1000)), ("budgetUs", .int(budgetNs / 1000)),
        ])
        try text("{\"meta\":")
        try value(meta)
        try text(",\"strings\":")
        try values(strings.values, JSONValue.string)
        try text(",\"threads\":")
        try values(threads) { .array([.int($0.number), .int($0.isMain ? 1 : 0)]) }
        try text(",\"channels\":")
        try values(channels) { .array([.int($0.journalID), .int(Int64($0.name)), .int($0.singleSlot ? 1 : 0)]) }
        try text(",\"lanes\":")
        try values(lanes) { lane in
            .array([
                .int(lane.registrationID), .int(Int64(lane.channel)), .int(Int64(lane.owner)), .int(Int64(lane.site)),
                .int(Int64(lane.function)), .int(Int64(lane.options)), .int(Int64(lane.queue)), .int(lane.expectsMain ? 1 : 0),
                .int(Int64(lane.scope)), .int(Int64(lane.startRow)), .int(Int64(lane.endRow)), .int(Int64(lane.end.rawValue)),
                .int(Int64(lane.reason)),
            ])
        }
        try text(",\"scopes\":")
        try values(scopes) { .array([.int($0.journalID), .int(Int64($0.name)), .int(Int64($0.beganRow)), .int(Int64($0.endedRow))]) }
        try text(",\"missed\":")
        // Flat `[row, lane, row, lane, ...]`.
        try array(missed) { pair, buffer in buffer += "\(pair.row),\(pair.lane)" }
        try text(",\"unheard\":")
        try array(unheard) { row, buffer in buffer += String(row) }
        if let density {
            try text(",\"density\":")
            density.render(into: &buffer)
            try flushIfFull()
        }
        try text(",\"rows\":\(seqs.count),\"ev\":[")
        // Digits, commas and minus signs only: cut anywhere.
        var start = 0
        while start < events.bytes.count {
            let end = min(start + Self.jsonPieceSize, events.bytes.count)
            try text(String(decoding: events.bytes[start..<end], as: UTF8.self))
            start = end
        }
        buffer += "]}"
        try out(buffer)
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
