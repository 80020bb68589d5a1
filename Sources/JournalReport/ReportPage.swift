import JournalAnalysis

/// Assembles the report's page: one self-contained HTML document (inline CSS, script
/// and SVG; no network: the Content-Security-Policy allows nothing to load, and only the
/// page's own nonce-carrying style and script to run).
///
/// Server-rendered parts (session summaries, legend, findings) are HTML-escaped; the
/// timeline is drawn by the script from the JSON data, made safe for its `<script>`.
enum ReportPage {
    static func render(_ reports: [SessionReport], leftOut: SessionsLeftOut = .none, journalPath: String, nonce: String) -> String {
        var html = ""
        write(reports, leftOut: leftOut, journalPath: journalPath, nonce: nonce) { (piece: String) -> Void in html += piece }
        return html
    }

    /// The page handed to `out` in pieces (each session's section, then its data in pieces
    /// of `SessionReport.jsonPieceSize`): written to a file, it is never held whole.
    static func write<Failure: Error>(
        _ reports: [SessionReport], leftOut: SessionsLeftOut = .none, journalPath: String, nonce: String,
        to out: (String) throws(Failure) -> Void
    ) throws(Failure) {
        let file = journalPath.split(separator: "/").last.map(String.init) ?? journalPath
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-\(nonce)'; script-src 'nonce-\(nonce)'; img-src data:; base-uri 'none'; form-action 'none'">
            <meta name="generator" content="obsreplay">
            <title>obsreplay report: \(HTMLText.escaped(file))</title>
            <style nonce="\(nonce)">\(ReportAssets.css)</style>
            </head>
            <body>
            <header class="top">
            <h1>Observation journal report</h1>
            <p class="source">Journal <span class="mono">\(HTMLText.escaped(journalPath))</span>: \(plural(reports.count, "session")) shown. Hover the chart for details, drag across it to zoom, click a finding (or Tab to it and press Enter) to zoom to what it cites; Escape goes back.</p>

            """
        html += leftOut.html
        if reports.count > 1 {
            html += "<nav class=\"sessions\">"
            for (index, report) in reports.enumerated() {
                html += "<button type=\"button\" data-index=\"\(index)\"\(index == 0 ? " class=\"current\"" : "")>session \(report.summary.id): \(HTMLText.escaped(report.summary.label))</button>"
            }
            html += "</nav>\n"
        }
        html += "</header>\n"
        html += "<div id=\"js-errors\" hidden><strong>The timeline could not be drawn:</strong><ul></ul></div>\n"
        html += "<noscript><p>The timeline is drawn with JavaScript; the findings are readable without it.</p></noscript>\n"
        try out(html)
        for (index, report) in reports.enumerated() {
            try out(section(report, index: index))
        }
        try out("<div id=\"tooltip\" role=\"tooltip\" hidden></div>\n")
        // Escaped piece by piece: the escaping replaces single characters, so cutting
        // between pieces changes nothing.
        try out("<script type=\"application/json\" id=\"report-data\">")
        try out(HTMLText.scriptSafeJSON("{\"version\":1,\"layout\":" + SessionReport.layoutJSON() + ",\"sessions\":["))
        for (index, report) in reports.enumerated() {
            if index > 0 { try out(",") }
            try report.json { (piece: String) throws(Failure) -> Void in try out(HTMLText.scriptSafeJSON(piece)) }
        }
        try out("]}</script>\n")
        try out("<script nonce=\"\(nonce)\">" + ReportAssets.javascript + "</script>\n")
        try out("</body>\n</html>\n")
    }

    static func section(_ report: SessionReport, index: Int) -> String {
        let summary = report.summary
        let findings = report.findings
        var html = "<section class=\"session\" id=\"session-\(summary.id)\" data-index=\"\(index)\"\(index == 0 ? "" : " hidden")>\n"
        html += "<div class=\"summary\"><h2>Session \(summary.id): \(HTMLText.escaped(summary.label))</h2><dl>"
        var facts: [(String, String)] = [
            ("process", "\(HTMLText.escaped(summary.process)) (pid \(summary.pid), \(HTMLText.escaped(summary.host)))"),
            ("started", HTMLText.escaped(summary.startedAt)),
            ("duration", durationText(summary.lastTimeNs)),
            ("events", report.density == nil ? "\(report.seqs.count)" : "\(summary.eventCount) (summarised)"),
            ("registrations", report.density == nil ? "\(report.lanes.count)" : "\(report.registrationCount) (\(report.lanes.count) drawn)"),
            ("channels", "\(report.channels.count)"),
        ]
        facts.append(summary.cleanEnd
            ? ("ended", HTMLText.escaped(summary.endedAt ?? "cleanly"))
            : ("ended", "<span class=\"unclean\">not cleanly (crash, or still recording)</span>"))
        for (name, value) in facts {
            html += "<div><dt>\(name)</dt><dd>\(value)</dd></div>"
        }
        html += "</dl></div>\n"
        for note in report.notes {
            html += "<p class=\"note\">\(HTMLText.escaped(note))</p>\n"
        }
        html += "<div class=\"layout\">\n<div class=\"chart-panel\">\n"
        html += """
            <div class="toolbar"><span class="axis-choice" role="group" aria-label="Horizontal axis"><button type="button" class="axis-order" aria-pressed="false" title="One column per event, in sequence order">Event order</button><button type="button" class="axis-time" aria-pressed="false" title="Events placed at their recorded time">Time</button></span><button type="button" class="zoom-reset">Show all</button><button type="button" class="zoom-out">Zoom out</button><button type="button" class="back" disabled title="Back to the previous view (Escape)">Back</button><span class="range" aria-live="polite"></span><span class="hint">Drag across the chart to zoom.</span></div>

            """
        html += legend(session: summary.id)
        html += """
            <div class="chart-frame"><svg class="axis" xmlns="http://www.w3.org/2000/svg" aria-hidden="true"></svg><div class="chart-scroll"><svg class="chart" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Timeline of session \(summary.id)"></svg></div></div>
            </div>

            """
        let tally = report.tally
        let counts = Severity.allCases.reversed().map { severity in
            let count = tally.bySeverity[severity] ?? 0
            return "\(count) \(severity.rawValue)" + (count == 1 || severity == .info ? "" : "s")
        }
        html += "<aside class=\"findings\"><h3>Findings: \(tally.total) (\(counts.joined(separator: ", ")))</h3>\n"
        if tally.total == 0 {
            html += "<p class=\"none\">No findings: every rule of the catalog passed.</p>\n"
        }
        // Grouped by rule, errors first; a long group starts closed and shows its first
        // `perRule` findings (diagnose lists them all).
        for group in groups(findings, tally) {
            let first = group[0].finding
            let total = tally.byRule[first.rule]?.count ?? group.count
            let open = total <= 10 ? " open" : ""
            html += "<details class=\"rule-group sev-\(first.severity.rawValue)\"\(open)><summary><code>\(first.rule.code)</code> <span class=\"rule\">\(first.rule.name)</span> <span class=\"count\">\(total)</span></summary><ol>\n"
            for (number, cited) in group.prefix(perRule).enumerated() {
                html += findingItem(cited, report, key: "\(first.rule.code)-\(number + 1)", session: summary.id)
            }
            html += "</ol>"
            if total > perRule {
                html += "<p class=\"more\">\(total - perRule) more not shown here: obsreplay diagnose --session \(summary.id) lists them all.</p>"
            }
            html += "</details>\n"
        }
        html += "</aside>\n</div>\n</section>\n"
        return html
    }

    /// Findings shown per rule: keeps the page's size bounded however many a long session has.
    static let perRule = 100

    /// Findings grouped by rule: errors first (by the most serious finding of the rule,
    /// listed or not), then by code; each group in sequence order.
    static func groups(_ findings: [SessionReport.CitedFinding], _ tally: FindingTally) -> [[SessionReport.CitedFinding]] {
        var byRule: [Rule: [SessionReport.CitedFinding]] = [:]
        for cited in findings { byRule[cited.finding.rule, default: []].append(cited) }
        func severity(_ group: [SessionReport.CitedFinding]) -> Severity {
            tally.byRule[group[0].finding.rule]?.severity ?? group.map(\.finding.severity).max()!
        }
        return byRule.values.sorted { a, b in
            let (x, y) = (severity(a), severity(b))
            return x != y ? x > y : a[0].finding.rule.code < b[0].finding.rule.code
        }
    }

    /// One finding; `key` (`OJ001-1`: the rule's code and the finding's number within it)
    /// names it in the URL fragment (`#f=OJ001-1`, `#s=2&f=OJ001-1` for another session).
    static func findingItem(_ cited: SessionReport.CitedFinding, _ report: SessionReport, key: String, session: Int64) -> String {
        let finding = cited.finding
        func list(_ values: [Int]) -> String { values.map(String.init).joined(separator: " ") }
        var html = "<li class=\"finding sev-\(finding.severity.rawValue)\" id=\"f-\(session)-\(key)\" data-key=\"\(key)\" tabindex=\"0\" aria-label=\"\(finding.severity.rawValue) \(key): \(HTMLText.escaped(finding.message))\" data-rows=\"\(list(cited.rows))\" data-lanes=\"\(list(cited.lanes))\" data-channels=\"\(list(cited.channels))\">"
        html += "<div class=\"head\"><span class=\"sev\">\(finding.severity.rawValue)</span><span class=\"key\">\(key)</span><a class=\"link\" href=\"#s=\(session)&amp;f=\(key)\" title=\"Link to this finding\">#</a></div>"
        html += "<p class=\"message\">\(HTMLText.escaped(finding.message))</p>"
        if !finding.evidence.isEmpty {
            html += "<ul class=\"evidence\">" + finding.evidence.map { "<li>\(HTMLText.escaped($0))</li>" }.joined() + "</ul>"
        }
        if !cited.rows.isEmpty || !cited.lanes.isEmpty {
            html += "<div class=\"cites\"><span>Show:</span>"
            for row in cited.rows {
                html += "<button type=\"button\" class=\"cite\" data-row=\"\(row)\">seq \(report.seqs[row])</button>"
            }
            for lane in cited.lanes {
                html += "<button type=\"button\" class=\"cite\" data-lane=\"\(lane)\">\(HTMLText.escaped(report.laneName(lane)))</button>"
            }
            html += "</div>"
        }
        html += "<p class=\"fix\">Fix: \(HTMLText.escaped(finding.fix))</p></li>\n"
        return html
    }

    /// The legend: lane colours by how a registration ended, then the marks.
    static func legend(session: Int64) -> String {
        var html = "<div class=\"legend\">"
        func swatch(_ body: String, _ label: String) {
            html += "<span><svg width=\"22\" height=\"12\" aria-hidden=\"true\">\(body)</svg>\(label)</span>"
        }
        for end in LaneEnd.allCases where end != .other {
            swatch("<g class=\"end-\(end.name)\"><rect class=\"bar\" x=\"1\" y=\"2\" width=\"20\" height=\"8\"/></g>", end.legend)
        }
        swatch("<rect class=\"mark\" x=\"9\" y=\"2\" width=\"2\" height=\"8\"/>", "delivery")
        swatch("<rect class=\"mark off-main\" x=\"9\" y=\"0\" width=\"3\" height=\"12\"/>", "off the main thread")
        swatch("<rect class=\"mark slow\" x=\"3\" y=\"1\" width=\"16\" height=\"10\"/>", "slow (its duration)")
        swatch("<rect class=\"mark skipped\" x=\"9\" y=\"2\" width=\"3\" height=\"8\"/>", EventKind.skipped.name)
        swatch("<path class=\"tick\" d=\"M11 1v10\"/>", "change")
        swatch("<circle class=\"unheard\" cx=\"11\" cy=\"6\" r=\"4\"/>", "change that reached nobody")
        swatch("<rect class=\"missed\" x=\"8\" y=\"1\" width=\"6\" height=\"10\"/>", "missed: replaced while its owner was alive")
        swatch(
            "<defs><pattern id=\"legend-hatch-\(session)\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect class=\"hatch-bg\" width=\"6\" height=\"6\"/><line class=\"hatch-line\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\"/></pattern></defs><rect class=\"leaked\" x=\"1\" y=\"2\" width=\"20\" height=\"8\" fill=\"url(#legend-hatch-\(session))\"/>",
            "live after its scope ended (leaked)"
        )
        swatch("<path class=\"unregistered\" d=\"M7 2l8 8M7 10l8 -8\"/>", "removal of nothing")
        swatch("<rect class=\"gap\" x=\"8\" y=\"2\" width=\"5\" height=\"8\"/>", "dropped events")
        html += "</div>\n"
        return html
    }

    /// `76.000 ms`, `12.345 s`.
    static func durationText(_ ns: Int64) -> String {
        let micros = max(ns, 0) / 1000
        if micros >= 1_000_000 { return "\(micros / 1_000_000).\(padded(micros % 1_000_000 / 1000)) s" }
        return "\(micros / 1000).\(padded(micros % 1000)) ms"
    }

    static func padded(_ value: Int64) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, 3 - text.count)) + text
    }

    static func plural(_ count: Int, _ word: String) -> String { "\(count) \(word)\(count == 1 ? "" : "s")" }
}
