/// Writes a table row by row as CSV (header first) or JSON Lines (keys = column names).
package struct TableWriter {
    package let columns: [String]
    let format: ExportFormat
    let csv: CSVWriter
    let output: any TextOutput
    /// A first `journal` column with this value (exports of several journals).
    let journal: String?

    /// Starts the table (writes the CSV header unless `header` is false: a later journal
    /// of an export of several).
    package init(
        columns: [String], format: ExportFormat, raw: Bool, output: any TextOutput, journal: String? = nil, header: Bool = true
    ) {
        self.columns = (journal == nil ? [] : ["journal"]) + columns
        self.format = format
        self.csv = CSVWriter(raw: raw)
        self.output = output
        self.journal = journal
        if format == .csv && header { output.write(csv.header(self.columns)) }
    }

    /// Writes one row; `cells` line up with `columns` (without the `journal` column).
    package func row(_ given: [ExportCell]) {
        let cells = journal.map { [ExportCell.text($0)] + given } ?? given
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
