import Foundation

/// `obsreplay export JOURNAL|DIR... --fleet OUT`: what a fleet's engines need from each
/// journal, as JSON Lines in a partitioned layout they read directly.
///
/// One file per table and journal, at `OUT/TABLE/HOST/DATE/JOURNAL_ID.jsonl`: `HOST` the
/// first session's host (characters other than letters, digits, `.`, `_` and `-` as `_`),
/// `DATE` the day it started (`YYYY-MM-DD`, UTC), `JOURNAL_ID` the journal's id
/// (`JournalIdentity`). Every row starts with `journal_id`, `host` and `run`, so files
/// may be renamed, moved and concatenated without losing where a row came from. Tables:
/// - `sessions`: one row per session (label, process, pid, start, end, clean end, counts);
/// - `findings`: the findings of `diagnose`, each with a `finding_id` (the journal's id
///   and the finding's place in it: sorting by it gives one stable example per
///   fingerprint) and a `severity_rank` (info 1, warning 2, error 3: ordered as
///   `diagnose` orders them);
/// - `call_sites`: deliveries per session and registering call site (`CallSiteDeliveries`);
/// - `events` (only when asked for): every event, the columns of `export --what events`.
///
/// A file is never replaced: a journal exported before (or a copy of one exported in the
/// same run: a copy is the same journal) is refused, and what is there stays.
package enum FleetExport {
    /// A table of the layout.
    package enum Table: String, CaseIterable, Sendable {
        case sessions, findings
        case callSites = "call_sites"
        case events
    }

    /// The columns every row starts with.
    package static let provenance = Exporter.provenanceColumns

    /// The columns of `table`, in order.
    package static func columns(of table: Table) -> [String] {
        switch table {
        case .sessions:
            return provenance + [
                "session_id", "label", "process", "pid", "started_at", "ended_at", "clean_end", "events", "registrations",
                "library_version",
            ]
        case .findings: return provenance + ["finding_id"] + findingColumns + ["severity_rank"]
        case .callSites: return provenance + CallSiteDeliveries.columns
        case .events: return provenance + Exporter.columns(for: .events)
        }
    }

    /// The columns of `export --what findings` the fleet table keeps: all but `evidence`
    /// and `fix`, the per-finding detail and advice a person reads in `diagnose` of the
    /// journal (`finding_id` names it), which no engine aggregates and which made the
    /// table outweigh the journals themselves.
    static let findingColumns = Exporter.columns(for: .findings).filter { !dropped.contains($0) }
    private static let dropped: Set = ["evidence", "fix"]
    /// Where the kept columns are in a row of `Exporter.findingCells`.
    private static let keptFindingCells = Exporter.columns(for: .findings).indices.filter {
        !dropped.contains(Exporter.columns(for: .findings)[$0])
    }

    /// `severity_rank`: 1 info, 2 warning, 3 error.
    package static func rank(_ severity: Severity) -> Int64 {
        switch severity {
        case .info: return 1
        case .warning: return 2
        case .error: return 3
        }
    }

    /// One journal's files, written under temporary names, waiting to be put in place.
    package struct StagedJournal: Sendable {
        /// The journal's path as read.
        package var path: String
        /// Its id (`JournalReader.journalID()`).
        package var id: String
        /// Its files, one per table, in `Table` order.
        package var files: [StagedFile]
        /// Rows written per table.
        package var rows: [Table: Int]
    }

    /// What happened to one journal.
    package enum Outcome: Sendable {
        /// Written, waiting for `publish`.
        case staged(StagedJournal)
        /// A journal with no sessions: nothing to export.
        case empty
        /// Not a journal (see `AnalysisError.isNotAJournal`).
        case skipped(AnalysisError)
        /// A journal that could not be read, or files that could not be written.
        case failed(AnalysisError)
    }

    /// The path of `table`'s file for a journal, relative to the export's folder.
    package static func relativePath(_ table: Table, host: String, startedAt: String, id: String) -> String {
        "\(table.rawValue)/\(folderName(host))/\(day(startedAt))/\(id).jsonl"
    }

    /// A host as a folder name: letters, digits, `.`, `_` and `-` kept, anything else `_`,
    /// at most 64 characters, never empty nor starting with `.`.
    static func folderName(_ host: String) -> String {
        var name = String(String.UnicodeScalarView(host.unicodeScalars.prefix(64).map { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar)) ? scalar : "_"
        }))
        if name.isEmpty || name.hasPrefix(".") { name = "_" + name }
        return name
    }

    /// `YYYY-MM-DD` of an ISO 8601 time, or `unknown-date`.
    static func day(_ startedAt: String) -> String {
        let digits = Array(startedAt.utf8.prefix(10))
        let ok = digits.count == 10 && digits.enumerated().allSatisfy { index, byte in
            index == 4 || index == 7 ? byte == UInt8(ascii: "-") : (0x30...0x39).contains(byte)
        }
        return ok ? String(decoding: digits, as: UTF8.self) : "unknown-date"
    }

    /// Reads the journal at `path` and writes its tables under `root` (temporary names).
    package static func stage(
        _ path: String, into root: String, events: Bool, options: DiagnosisOptions, progress: ReadProgress? = nil
    ) -> Outcome {
        let reader: JournalReader
        do {
            reader = try JournalReader(path: path)
        } catch {
            return error.isNotAJournal ? .skipped(error) : .failed(error)
        }
        var files: [StagedFile] = []
        do throws(AnalysisError) {
            let id = try reader.journalID()
            let sessions = try reader.sessions()
            guard let first = sessions.first else { return .empty }
            let tables = Table.allCases.filter { $0 != .events || events }
            var rows: [Table: Int] = [:]
            for table in tables {
                let file = try stagedFile(root, relativePath(table, host: first.host, startedAt: first.startedAt, id: id))
                files.append(file)
                rows[table] = try write(table, of: reader, sessions: sessions, id: id, options: options, to: file, progress: progress)
                try file.finishWriting()
            }
            return .staged(StagedJournal(path: path, id: id, files: files, rows: rows))
        } catch {
            for file in files { file.discard() }
            return .failed(error)
        }
    }

    /// Puts a staged journal's files in place, all or none: when one is already there
    /// (`AnalysisError.outputRefused`), those of this journal put in place are removed again.
    package static func publish(_ staged: StagedJournal, root: String) throws(AnalysisError) {
        var published: [String] = []
        for file in staged.files {
            let placed: Bool
            do {
                placed = try file.publish()
            } catch {
                for path in published { unlink(path) }
                for other in staged.files { other.discard() }
                throw error
            }
            guard placed else {
                for path in published { unlink(path) }
                for other in staged.files { other.discard() }
                throw .outputRefused(
                    path: file.path,
                    reason: "export \(staged.path) (journal \(staged.id)): a file of that journal is there already "
                        + "(exported before, or a copy of the journal was exported in this run); it is left as it was"
                )
            }
            published.append(file.path)
        }
    }

    private static func stagedFile(_ root: String, _ relative: String) throws(AnalysisError) -> StagedFile {
        let path = root + "/" + relative
        let directory = String(path[..<path.lastIndex(of: "/")!])
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            // Another worker may have made it meanwhile.
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw .output(path: directory, detail: "cannot create the folder")
            }
        }
        return try StagedFile(path)
    }

    /// Writes `table`'s rows for every one of `sessions`; returns how many.
    private static func write(
        _ table: Table, of reader: JournalReader, sessions: [SessionSummary], id: String, options: DiagnosisOptions,
        to file: StagedFile, progress: ReadProgress?
    ) throws(AnalysisError) -> Int {
        var count = 0
        var ordinal = 0
        for session in sessions {
            let prefix = zip(provenance, RowProvenance.cells(journalID: id, host: session.host, run: session.run))
                .map { (name: $0, value: $1) }
            let writer = TableWriter(
                columns: Array(columns(of: table).dropFirst(provenance.count)), format: .jsonl, raw: true, output: file,
                prefix: prefix
            )
            switch table {
            case .sessions:
                writer.row([
                    .int(session.id), .text(session.label), .text(session.process), .int(session.pid), .text(session.startedAt),
                    .text(session.endedAt), .bool(session.cleanEnd), .int(session.eventCount), .int(session.registrationCount),
                    .text(session.libraryVersion),
                ])
                count += 1
            case .findings:
                let spool = FindingSpool()
                try Diagnoser.diagnose(reader, session: session, options: options, into: spool, progress: progress)
                try spool.drain { finding in
                    let cells = Exporter.findingCells(finding)
                    writer.row(
                        [.text("\(id)-\(pad(ordinal))")] + keptFindingCells.map { cells[$0] } + [.int(rank(finding.severity))]
                    )
                    ordinal += 1
                    count += 1
                }
            case .callSites:
                guard session.eventCount > 0 else { continue }
                for sum in try CallSiteDeliveries.read(reader, session: session.id, budgetNs: options.slowCallbackBudgetNs) {
                    writer.row(sum.cells(session: session.id))
                    count += 1
                }
            case .events:
                guard session.eventCount > 0 else { continue }
                try Exporter.exportEvents(reader, session: session.id, table: writer)
                count += Int(clamping: session.eventCount)
            }
        }
        try file.flush()
        return count
    }

    /// `ordinal` as 10 digits, so that `finding_id`s sort as their places do.
    private static func pad(_ ordinal: Int) -> String {
        let digits = String(ordinal)
        return String(repeating: "0", count: max(0, 10 - digits.count)) + digits
    }
}
