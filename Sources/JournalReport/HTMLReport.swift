import Foundation
package import JournalAnalysis

/// The HTML timeline report of a journal: one self-contained file per call, with a
/// swimlane per registration grouped by channel, change ticks, delivery marks, and the
/// findings of `diagnose` linked to what they cite.
///
/// The file needs nothing but a browser: CSS, script and data are inline, and its
/// Content-Security-Policy lets nothing load from anywhere. Journal text is escaped for
/// HTML, and the embedded data is escaped so it cannot end its script element.
package enum HTMLReport {
    /// Writes the report of `sessions` of the journal at `journalPath` to `outputPath`
    /// (by default beside the journal: `demo.sqlite` → `demo.html`) and returns the path
    /// written. See `OutputFile` for what each kind of path gets: a regular file is
    /// replaced atomically (a failed report leaves no partial file), a new one is created
    /// `0600`, a FIFO or device is written in place, and the journal and its side files
    /// are refused. The default path is one the user never chose (it may have come with
    /// the journal): there only a regular file is replaced, and a symlink, FIFO or device
    /// is refused. The journal is opened read-only and never written. `progress` counts the
    /// events read by the diagnosis and the drawing passes (`passes` per event).
    @discardableResult
    package static func write(
        journalPath: String, sessions: ReportSelection = .latest, to outputPath: String? = nil,
        options: DiagnosisOptions = DiagnosisOptions(), window: ReportWindow? = nil, progress: ReadProgress? = nil
    ) throws(AnalysisError) -> String {
        try write(
            JournalReader(path: journalPath), sessions: sessions, to: outputPath, options: options, window: window,
            progress: progress
        )
    }

    /// `write(journalPath:…)` with the journal's reader already open (a caller that read the
    /// sessions first need not open an older journal's upgraded copy twice).
    @discardableResult
    package static func write(
        _ reader: JournalReader, sessions: ReportSelection = .latest, to outputPath: String? = nil,
        options: DiagnosisOptions = DiagnosisOptions(), window: ReportWindow? = nil, progress: ReadProgress? = nil
    ) throws(AnalysisError) -> String {
        let journalPath = reader.path
        let path = outputPath ?? defaultPath(forJournal: journalPath)
        // Opened before rendering so a refused path fails fast, and never with a partial
        // file. A path made from the journal's name is one the user never chose.
        let file = try OutputFile.open(
            path, protecting: [journalPath], what: "report", origin: outputPath == nil ? .derived : .named
        )
        let (reports, leftOut) = try build(reader, sessions: sessions, options: options, window: window, progress: progress)
        // Written as it is made, in pieces of about `writeSize`: the page is never one string.
        var pending = ""
        try ReportPage.write(reports, leftOut: leftOut, journalPath: reader.path, nonce: nonce()) { (piece: String) throws(AnalysisError) -> Void in
            pending += piece
            if pending.utf8.count >= writeSize {
                try file.write(pending)
                pending = ""
            }
        }
        try file.write(pending)
        try file.commit()
        return path
    }

    /// How many bytes `write` collects before writing them.
    static let writeSize = 1 << 16

    /// The report's HTML; with a `window`, only the events of those sequence numbers are drawn.
    /// A session of more than `detailLimit` events (and no window) is summarised per channel.
    package static func render(
        _ reader: JournalReader, sessions: ReportSelection = .latest, options: DiagnosisOptions = DiagnosisOptions(),
        window: ReportWindow? = nil, detailLimit: Int64 = SessionReport.detailLimit
    ) throws(AnalysisError) -> String {
        let (reports, leftOut) = try build(reader, sessions: sessions, options: options, window: window, detailLimit: detailLimit)
        return ReportPage.render(reports, leftOut: leftOut, journalPath: reader.path, nonce: nonce())
    }

    /// The reports of the selected sessions (everything the page shows, before any of it
    /// is written), and the sessions of `.all` left out (`SessionsLeftOut`).
    static func build(
        _ reader: JournalReader, sessions: ReportSelection, options: DiagnosisOptions, window: ReportWindow?,
        detailLimit: Int64 = SessionReport.detailLimit, progress: ReadProgress? = nil
    ) throws(AnalysisError) -> (reports: [SessionReport], leftOut: SessionsLeftOut) {
        let (summaries, leftOut) = try self.sessions(reader, sessions)
        var reports: [SessionReport] = []
        for summary in summaries {
            reports.append(try SessionReportBuilder.build(
                reader, session: summary, options: options, window: window, detailLimit: detailLimit, progress: progress
            ))
        }
        return (reports, leftOut)
    }

    /// How many times `write` reads each event of a session (the diagnosis, then the
    /// drawing): a progress display's total is this times the sessions' events.
    package static let passes: Int64 = 2

    /// The summaries of the sessions `selection` names that the page draws, and those of
    /// `.all` it leaves out (`SessionsLeftOut`).
    /// - Throws: `AnalysisError` for an unknown session, or a journal with none.
    package static func sessions(
        _ reader: JournalReader, _ selection: ReportSelection
    ) throws(AnalysisError) -> (drawn: [SessionSummary], leftOut: SessionsLeftOut) {
        switch selection {
        case .latest: return ([try reader.session(nil)], .none)
        case let .session(id): return ([try reader.session(id)], .none)
        case .all:
            let all = try reader.sessions()
            if all.isEmpty { throw .noSessions(path: reader.path) }
            return SessionsLeftOut.select(all)
        }
    }

    /// The report's path beside a journal: its extension replaced by `.html`.
    package static func defaultPath(forJournal journalPath: String) -> String {
        // String-based, so a relative journal path gives a relative report path, as the
        // person typed it.
        (journalPath as NSString).deletingPathExtension + ".html"
    }

    /// A fresh nonce for the page's Content-Security-Policy: text injected from a journal
    /// could not guess it, so it could not run even if it escaped the escaping.
    package static func nonce() -> String {
        var generator = SystemRandomNumberGenerator()
        // Zero-padded: 128 bits are always 32 hex digits (unpadded, a leading zero digit made it shorter).
        return (0..<2).map { _ in
            let digits = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }
}
