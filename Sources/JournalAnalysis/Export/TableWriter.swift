/// Writes a table row by row as CSV (header first) or JSON Lines (keys = column names).
package struct TableWriter {
    package let columns: [String]
    let format: ExportFormat
    let csv: CSVWriter
    let output: any TextOutput

    /// Starts the table (writes the CSV header).
    package init(columns: [String], format: ExportFormat, raw: Bool, output: any TextOutput) {
        self.columns = columns
        self.format = format
        self.csv = CSVWriter(raw: raw)
        self.output = output
        if format == .csv { output.write(csv.header(columns)) }
    }

    /// Writes one row; `cells` line up with `columns`.
    package func row(_ cells: [ExportCell]) {
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
