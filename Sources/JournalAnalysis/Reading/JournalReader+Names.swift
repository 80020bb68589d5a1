import JournalStore

/// The one place a reader loads names (`strings` rows): shortened to `JournalName.maxBytes`
/// and kept by id.
///
/// Every table that names something holds a `strings` id; each name is read once here
/// rather than joined into each query, so a name of megabytes in a journal from elsewhere
/// is read (and hashed) once, not once per channel, object, call site or registration
/// naming it, and what output repeats per event is never longer than the limit.
extension JournalReader {
    /// How many names are kept: past it the kept ones are dropped and read again when
    /// asked for. Each is at most `JournalName.maxBytes`, so they hold at most 16 MB.
    static let keptNames = 16_384

    /// The name with `stringID`, shortened (`JournalName.capped`), or `nil` when
    /// `strings` has no such row.
    func name(stringID: Int64) throws(AnalysisError) -> String? {
        if let known = names[stringID] { return known }
        var found: String?
        try query("SELECT value FROM strings WHERE id = ?1", [.int(stringID)]) { found = JournalName.capped($0.text(0)) }
        if names.count >= Self.keptNames { names.removeAll(keepingCapacity: true) }
        names[stringID] = .some(found)
        return found
    }
}

extension JournalReader {
    /// The ids of the names that read as `text`: the name stored as it is, and, when
    /// `text` is a shortened name (as output shows one), every longer name shortened to
    /// it, so that a name copied from output finds what it names.
    func stringIDs(named text: String) throws(AnalysisError) -> [Int64] {
        var ids: [Int64] = []
        try query("SELECT id FROM strings WHERE value = ?1", [.text(text)]) { ids.append($0.int(0)) }
        guard !JournalName.isTooLong(text), text.hasSuffix("]"), text.contains("…[") else { return ids }
        var long: [Int64] = []
        try query("SELECT id FROM strings WHERE length(CAST(value AS BLOB)) > ?1", [.int(Int64(JournalName.maxBytes))]) {
            long.append($0.int(0))
        }
        for id in long where try name(stringID: id) == text { ids.append(id) }
        return ids
    }
}
