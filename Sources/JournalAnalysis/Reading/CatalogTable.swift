/// One of a session's name tables (objects, channels, scopes), read from the journal by id
/// on demand and kept in a bounded cache.
///
/// A long session creates objects, channels and scopes continually (a screen, its model's
/// channels, its scope and its observers for every visit): loaded whole, the catalog grew
/// with the session's history.
/// Readers only ever ask for the few that current events name, so the table holds two
/// generations of at most `capacity` entries each: when the recent one fills, it becomes
/// the older one and the older is dropped; an entry found in the older generation moves
/// back to the recent one. Misses (ids the journal does not name) are cached too.
///
/// A lookup cannot throw (names are asked for everywhere); a failed read answers `nil`
/// and is kept in `failure`, for the reader to report once its pass is over. Not
/// thread-safe, like the `JournalReader` it reads through.
package final class CatalogTable<Value> {
    private var recent = IDMap<Value?>()
    private var older = IDMap<Value?>()
    private let capacity: Int
    private let load: ((Int64) throws(AnalysisError) -> Value?)?
    /// The first read that failed, if any.
    package private(set) var failure: AnalysisError?

    /// A table that reads an id with `load` (`nil`: an empty table).
    init(capacity: Int = 8192, load: ((Int64) throws(AnalysisError) -> Value?)?) {
        self.capacity = max(capacity, 1)
        self.load = load
    }

    /// The entry with `id`, or `nil` when the journal does not name it.
    package subscript(id: Int64) -> Value? {
        if let hit = recent[id] { return hit }
        let value: Value?
        if let hit = older.removeValue(forKey: id) {
            value = hit
        } else if let load {
            do throws(AnalysisError) {
                value = try load(id)
            } catch {
                if failure == nil { failure = error }
                return nil
            }
        } else {
            return nil
        }
        if recent.count >= capacity {
            // The dropped generation's storage becomes the new recent one: a fresh one per
            // turn left the allocator a freed block of the same size each time, which
            // the process's resident memory kept as it grew with the session.
            swap(&older, &recent)
            recent.removeAll(keepingCapacity: true)
        }
        recent[id] = .some(value)
        return value
    }

    /// How many entries are held (both generations): bounded by twice the capacity.
    var heldEntries: Int { recent.count + older.count }
}
