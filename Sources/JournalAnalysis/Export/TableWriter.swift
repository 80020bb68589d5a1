/// Writes a table row by row as CSV (header first) or JSON Lines (keys = column names).
package struct TableWriter {
    package let columns: [String]
    let format: ExportFormat
    let csv: CSVWriter
    let output: any TextOutput
    /// The first cells of every row: a `journal` column (exports of several journals), or
    /// the provenance of the fleet export (`journal_id`, `host`, `run`).
    let prefix: [ExportCell]

    /// Starts the table (writes the CSV header unless `header` is false: a later journal
    /// of an export of several). `journal`: a first `journal` column of that value;
    /// `prefix`: first columns (names and values) in every row, after `journal`.
    package init(
        columns: [String], format: ExportFormat, raw: Bool, output: any TextOutput, journal: String? = nil, header: Bool = true,
        prefix: [(name: String, value: ExportCell)] = []
    ) {
        self.columns = (journal == nil ? [] : ["journal"]) + prefix.map(\.name) + columns
        self.format = format
        self.csv = CSVWriter(raw: raw)
        self.output = output
        self.prefix = (journal.map { [ExportCell.text($0)] } ?? []) + prefix.map(\.value)
        if format == .csv && header { output.write(csv.header(self.columns)) }
    }

    /// Writes one row; `given` then `suffix` line up with `columns` (without the `journal`
    /// and prefix columns).
    package func row(_ given: [ExportCell], suffix: [ExportCell] = []) {
        var cells = given
        if !prefix.isEmpty || !suffix.isEmpty {
            cells = prefix
            cells.reserveCapacity(prefix.count + given.count + suffix.count)
            cells += given
            cells += suffix
        }
        switch format {
        case .csv:
            output.write(csv.record(cells))
        case .jsonl, .chromeTrace:  // a trace is never a table: `Exporter` hands it to `ChromeTraceExporter`
            var line = ""
            JSONValue.object(zip(columns, cells.map(\.json)).map { ($0, $1) }).render(into: &line)
            line += "\n"
            output.write(line)
        }
    }
}
