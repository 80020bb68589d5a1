import JournalStore

extension JournalReader {
    /// Which journal this is, as 32 lowercase hexadecimal digits (see `JournalIdentity`):
    /// stored at creation, or derived from the first session of a journal an older
    /// version made.
    package func journalID() throws(AnalysisError) -> String {
        do {
            return try JournalIdentity.read(database, version: schemaVersion).id
        } catch {
            throw failure(error)
        }
    }
}
