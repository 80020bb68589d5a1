/// The file formats `export` writes.
package enum ExportFormat: String, Sendable, CaseIterable {
    /// RFC 4180 CSV with a header row.
    case csv
    /// JSON Lines: one object per row, keys as the CSV header names.
    case jsonl
    /// The Trace Event Format for Perfetto and chrome://tracing (`ChromeTraceExporter`):
    /// a session's events on a timeline, so only with `ExportSubject.events`.
    case chromeTrace = "chrome-trace"
}

/// What `export` writes.
package enum ExportSubject: String, Sendable, CaseIterable {
    case events
    case registrations
    case deliveries
    case findings
}
