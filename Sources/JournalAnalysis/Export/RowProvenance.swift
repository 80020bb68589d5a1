/// Where an exported row comes from: the cells of `Exporter.provenanceColumns`.
struct RowProvenance {
    let journalID: String
    /// Host and run by session id, for the sessions exported.
    let origins: [Int64: (host: String, run: String?)]

    init(journalID: String, sessions: [SessionSummary]) {
        self.journalID = journalID
        origins = Dictionary(sessions.map { ($0.id, ($0.host, $0.run)) }, uniquingKeysWith: { first, _ in first })
    }

    /// The cells of a row of session `session`.
    func cells(_ session: Int64) -> [ExportCell] {
        let origin = origins[session]
        return Self.cells(journalID: journalID, host: origin?.host, run: origin?.run)
    }

    /// The cells of `Exporter.provenanceColumns`, in order.
    static func cells(journalID: String, host: String?, run: String?) -> [ExportCell] {
        [.text(journalID), .text(host), .text(run)]
    }
}
