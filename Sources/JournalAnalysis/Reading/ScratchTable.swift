import JournalStore

/// A rule's groups by key (a registration id), the recently used ones in memory and the
/// rest in a temporary SQLite database (`ScratchDatabase`), with only the keys written
/// out kept in memory.
///
/// Some rules keep a group per registration that misbehaved (called off main, slow...)
/// until the session ends, for its finding: about 100 bytes each, in proportion to the
/// session's history, not to what is live. Here the table holds two generations of at
/// most `capacity` entries in memory (as `CatalogTable` does): when the recent one fills,
/// the older one is written to the database in one transaction and the recent one becomes
/// the older; an entry used again comes back to the recent one (taken out of the database
/// if need be). Every entry is in exactly one place: a generation or the database. Values
/// are plain bytes (`BitwiseCopyable`), stored as they are: the database lives and dies
/// with the table. The set of keys written out answers a miss without a query.
///
/// A write that fails is undone and keeps the entries, and every later one, in memory
/// (nothing is lost: the table just stops spilling); a failed read answers `nil` and is
/// kept in `failure`, which `drain` throws: the rule's verdicts would be wrong. Not
/// thread-safe.
final class ScratchTable<Value: BitwiseCopyable> {
    private var recent: [Int64: Value] = [:]
    private var older: [Int64: Value] = [:]
    /// The keys of the entries in the database.
    private var stored: Set<Int64> = []
    private let capacity: Int
    /// The order `drain` hands entries out in (then by key), stored with each entry.
    private let order: (Value) -> Int64
    /// Opened when the table first spills, with its two statements.
    private var database: SQLiteDatabase?
    private var insert: SQLiteStatement?
    private var delete: SQLiteStatement?
    private let cacheKiB: Int
    private let faults: SQLiteFaultPlan?
    /// Set when a write failed: entries stay in memory from then on.
    private var inMemoryOnly = false
    /// The first read of the database that failed, if any.
    private(set) var failure: AnalysisError?

    /// An empty table keeping up to twice `capacity` entries in memory and the rest in a
    /// temporary database, handing entries out by `order` of their value, then by key.
    /// - Parameters:
    ///   - cacheKiB: the database's page cache (tests pass a small one).
    ///   - faults: failures to inject into the database's calls (tests; debug builds only).
    init(
        capacity: Int = 512, orderedBy order: @escaping (Value) -> Int64,
        cacheKiB: Int = ScratchDatabase.cacheKiB, faults: SQLiteFaultPlan? = nil
    ) {
        self.capacity = max(capacity, 1)
        self.order = order
        self.cacheKiB = cacheKiB
        self.faults = faults
    }

    /// How many entries the table holds, in memory and written out.
    var count: Int { recent.count + older.count + stored.count }

    /// How many entries are in memory: at most about twice the capacity.
    var entriesInMemory: Int { recent.count + older.count }

    /// How many entries are in the database.
    var entriesWrittenOut: Int { stored.count }

    /// The entry with `key`, moved to the recent generation; setting `nil` removes it.
    subscript(key: Int64) -> Value? {
        get {
            if let value = recent[key] { return value }
            if let value = older.removeValue(forKey: key) {
                keep(key, value)
                return value
            }
            guard stored.remove(key) != nil else { return nil }
            guard let value = take(key) else { return nil }
            keep(key, value)
            return value
        }
        set {
            if older.removeValue(forKey: key) == nil, stored.remove(key) != nil { _ = take(key) }
            if let newValue {
                if recent[key] != nil {
                    recent[key] = newValue
                } else {
                    keep(key, newValue)
                }
            } else {
                recent[key] = nil
            }
        }
    }

    /// Hands out every entry, ordered by `order` of its value and then by key, and empties
    /// the table: those in memory, sorted, merged with the database's, read in that order.
    func drain(_ body: (Int64, Value) throws(AnalysisError) -> Void) throws(AnalysisError) {
        if let failure { throw failure }
        defer { reset() }
        // The keys in memory in order (values stay in the generations until handed out).
        var inMemory = recent.map { (order: order($1), key: $0) } + older.map { (order: order($1), key: $0) }
        inMemory.sort { ($0.order, $0.key) < ($1.order, $1.key) }
        func handOut(_ key: Int64) throws(AnalysisError) {
            guard let value = recent.removeValue(forKey: key) ?? older.removeValue(forKey: key) else { return }
            try body(key, value)
        }
        var next = 0
        if let database, !stored.isEmpty {
            let rows = try ScratchDatabase.prepare("SELECT key, ord, value FROM entries ORDER BY ord, key", on: database)
            while try ScratchDatabase.step(rows) {
                let key = rows.int(0), order = rows.int(1)
                while next < inMemory.count, (inMemory[next].order, inMemory[next].key) < (order, key) {
                    try handOut(inMemory[next].key)
                    next += 1
                }
                guard let value = rows.value(ofBlob: 2, as: Value.self) else { throw Self.damaged(key) }
                try body(key, value)
            }
        }
        for entry in inMemory[next...] { try handOut(entry.key) }
    }

    /// Empties the table; closing the database deletes it.
    private func reset() {
        recent = [:]
        older = [:]
        stored = []
        insert = nil
        delete = nil
        database = nil
        inMemoryOnly = false
    }

    /// Puts an entry in the recent generation, writing the older one out when it is full.
    private func keep(_ key: Int64, _ value: Value) {
        if recent.count >= capacity, !inMemoryOnly {
            spillOlder()
            // The emptied older generation's storage becomes the recent one (as in
            // `CatalogTable`): no fresh allocation per turn.
            swap(&older, &recent)
            recent.reserveCapacity(capacity)
        }
        recent[key] = value
    }

    /// Writes the older generation's entries to the database in one transaction; if it
    /// fails (undone), they stay in memory, in the recent generation, and so do all later
    /// entries.
    private func spillOlder() {
        guard !older.isEmpty else { return }
        do throws(SQLiteError) {
            let (database, insert) = try statements()
            try database.writeTransaction { () throws(SQLiteError) in
                for (key, value) in older {
                    try insert.bind(key, at: 1)
                    try insert.bind(order(value), at: 2)
                    try insert.bind(bytesOf: value, at: 3)
                    try insert.run()
                }
            }
            for key in older.keys { stored.insert(key) }
        } catch {
            inMemoryOnly = true
            for (key, value) in older { recent[key] = value }
        }
        older.removeAll(keepingCapacity: true)
    }

    /// The database and its insert, made with its table on first use.
    private func statements() throws(SQLiteError) -> (SQLiteDatabase, SQLiteStatement) {
        if let database, let insert { return (database, insert) }
        let database = try ScratchDatabase.open(
            schema: "CREATE TABLE entries(key INTEGER PRIMARY KEY, ord INTEGER NOT NULL, value BLOB NOT NULL);",
            cacheKiB: cacheKiB, faults: faults
        )
        let insert = try database.prepare("INSERT INTO entries(key, ord, value) VALUES (?, ?, ?)")
        delete = try database.prepare("DELETE FROM entries WHERE key = ? RETURNING value")
        self.database = database
        self.insert = insert
        return (database, insert)
    }

    /// Takes the entry with `key` out of the database (the caller has removed the key from
    /// `stored`); `nil`, and `failure` set, if it cannot be read back.
    private func take(_ key: Int64) -> Value? {
        var value: Value?
        do throws(SQLiteError) {
            if let delete {
                delete.reset()
                try delete.bind(key, at: 1)
                // Stepped to its end, so that the deletion's transaction commits.
                while try delete.step() { value = value ?? delete.value(ofBlob: 0, as: Value.self) }
            }
        } catch {
            if failure == nil { failure = ScratchDatabase.failure(error) }
            return nil
        }
        if value == nil, failure == nil { failure = Self.damaged(key) }
        return value
    }

    private static func damaged(_ key: Int64) -> AnalysisError {
        .output(path: "temporary database", detail: "the entry for key \(key) is missing or damaged")
    }
}
