extension AnalysisError {
    /// Whether the file is simply not a journal (empty, not SQLite, another application's
    /// database, not a regular file): when a directory is searched, such files are skipped
    /// with a notice. A damaged journal, or one of another schema version, is an error,
    /// as it would be on its own.
    package var isNotAJournal: Bool {
        guard case let .journal(error) = self else { return false }
        switch error {
        case .notAFile, .emptyFile, .notSQLite, .foreignDatabase: return true
        default: return false
        }
    }
}
