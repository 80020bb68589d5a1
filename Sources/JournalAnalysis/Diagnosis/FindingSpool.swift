import JournalStore

/// Findings held in their printing order without being held in memory: each finding is
/// encoded as it is made and written to a table of a temporary SQLite database
/// (`ScratchDatabase`) with its sort key, and read back `ORDER BY` that key when the spool
/// is drained.
///
/// A long session makes findings in proportion to its history (one per registration
/// called off main, per replaced callback...), about 1.7 KB each as values; they are
/// printed ordered by session, first sequence number and rule code, so none can be printed
/// before the session's last event. Spooled, a diagnosis's memory stays flat in the number
/// of events: the database's page cache is bounded, and SQLite's sorter writes its runs
/// to files past it. The database is opened at the first finding and deleted when the
/// spool is drained (its file, if it has one, is already unlinked: nothing is left in the
/// temporary directory, even after a crash). Not thread-safe: one spool per diagnosis.
package final class FindingSpool {
    /// Each rule's place when rules are ordered by code: sorting compares these, not strings.
    private static let rank: [Rule: Int64] = Dictionary(
        uniqueKeysWithValues: Rule.allCases.sorted { $0.code < $1.code }.enumerated().map { ($1, Int64($0)) }
    )

    /// Opened at the first finding, closed (and so deleted) by `drain`.
    private var database: SQLiteDatabase?
    private var insert: SQLiteStatement?
    private let cacheKiB: Int
    private let faults: SQLiteFaultPlan?
    /// Findings added since the spool was last drained.
    private var added = 0
    private var group: Int64 = 0
    /// The encoding buffer, reused.
    private var buffer: [UInt8] = []
    /// The first failure to write the database, reported by `drain`: findings are added
    /// from rules' `finish`, which cannot fail for it.
    private var failure: AnalysisError?

    /// An empty spool.
    package convenience init() {
        self.init(cacheKiB: ScratchDatabase.cacheKiB, faults: nil)
    }

    /// An empty spool whose database has a page cache of `cacheKiB` and fails as `faults`
    /// says (tests; debug builds only).
    init(cacheKiB: Int, faults: SQLiteFaultPlan?) {
        self.cacheKiB = cacheKiB
        self.faults = faults
    }

    /// How many findings the spool holds.
    package var count: Int { added }

    /// Starts the next group (a session): its findings print after every earlier group's.
    package func nextGroup() { group += 1 }

    /// Adds a finding.
    package func append(_ finding: Finding) {
        added += 1
        guard failure == nil else { return }
        buffer.removeAll(keepingCapacity: true)
        FindingCoding.encode(finding, into: &buffer)
        do throws(SQLiteError) {
            let insert = try insertStatement()
            try insert.bind(group, at: 1)
            try insert.bind(finding.firstSeq, at: 2)
            try insert.bind(Self.rank[finding.rule] ?? -1, at: 3)
            try insert.bind(blob: buffer, at: 4)
            try insert.run()
        } catch {
            failure = ScratchDatabase.failure(error)
        }
    }

    /// The insert into the database, made with its table on the first finding. One
    /// transaction from the first finding to the drain: nothing is ever committed (the
    /// data dies with the connection), and a table only appended to has no page to journal.
    private func insertStatement() throws(SQLiteError) -> SQLiteStatement {
        if let insert { return insert }
        let database = try ScratchDatabase.open(
            // The rowid is the order of adding: the last key, so that ties keep that order.
            schema: "CREATE TABLE findings(grp INTEGER NOT NULL, first_seq INTEGER NOT NULL, rule INTEGER NOT NULL, body BLOB NOT NULL); BEGIN;",
            cacheKiB: cacheKiB, faults: faults
        )
        let insert = try database.prepare("INSERT INTO findings(grp, first_seq, rule, body) VALUES (?, ?, ?, ?)")
        self.database = database
        self.insert = insert
        return insert
    }

    /// Calls `body` with every finding, by group, first sequence number and rule code
    /// (findings equal on these in the order they were added), and empties the spool.
    package func drain(_ body: (Finding) throws(AnalysisError) -> Void) throws(AnalysisError) {
        defer {
            insert = nil
            database = nil
            added = 0
            failure = nil
        }
        if let failure { throw failure }
        guard let database else { return }
        let rows = try ScratchDatabase.prepare(
            "SELECT body FROM findings ORDER BY grp, first_seq, rule, rowid", on: database
        )
        while try ScratchDatabase.step(rows) {
            guard let finding = FindingCoding.decode(rows.blob(0)[...]) else {
                throw .output(path: "findings spool", detail: "damaged record")
            }
            try body(finding)
        }
    }
}

/// A finding as bytes, for `FindingSpool`: lengths and integers little-endian, strings
/// as UTF-8.
enum FindingCoding {
    static func encode(_ finding: Finding, into out: inout [UInt8]) {
        func int(_ value: Int64) { for shift in 0..<8 { out.append(UInt8(truncatingIfNeeded: value >> (8 * Int64(shift)))) } }
        func text(_ value: String) {
            var value = value
            value.withUTF8 { utf8 in
                int(Int64(utf8.count))
                out.append(contentsOf: utf8)
            }
        }
        func texts(_ values: [String]) {
            int(Int64(values.count))
            for value in values { text(value) }
        }
        text(finding.rule.code)
        text(finding.severity.rawValue)
        int(finding.sessionID)
        text(finding.message)
        texts(finding.evidence)
        int(Int64(finding.seqs.count))
        for seq in finding.seqs { int(seq) }
        texts(finding.callSites)
        texts(finding.owners)
        int(finding.channel == nil ? 0 : 1)
        if let channel = finding.channel { text(channel) }
        int(Int64(finding.count))
        int(finding.specificFix == nil ? 0 : 1)
        if let fix = finding.specificFix { text(fix) }
        let functions = finding.functions.sorted { $0.key < $1.key }
        texts(functions.map(\.key))
        texts(functions.map(\.value))
    }

    static func decode(_ bytes: ArraySlice<UInt8>) -> Finding? {
        var index = bytes.startIndex
        func int() -> Int64? {
            guard bytes.endIndex - index >= 8 else { return nil }
            var value: Int64 = 0
            for shift in 0..<8 { value |= Int64(bytes[index + shift]) << (8 * Int64(shift)) }
            index += 8
            return value
        }
        func text() -> String? {
            guard let count = int(), count >= 0, bytes.endIndex - index >= Int(count) else { return nil }
            defer { index += Int(count) }
            return String(decoding: bytes[index..<(index + Int(count))], as: UTF8.self)
        }
        func texts() -> [String]? {
            guard let count = int(), count >= 0 else { return nil }
            var result: [String] = []
            for _ in 0..<count {
                guard let value = text() else { return nil }
                result.append(value)
            }
            return result
        }
        guard let code = text(), let rule = Rule.allCases.first(where: { $0.code == code }),
              let severity = text().flatMap(Severity.init(rawValue:)), let session = int(), let message = text(),
              let evidence = texts(), let seqCount = int(), seqCount >= 0
        else { return nil }
        var seqs: [Int64] = []
        seqs.reserveCapacity(Int(seqCount))
        for _ in 0..<seqCount {
            guard let seq = int() else { return nil }
            seqs.append(seq)
        }
        guard let callSites = texts(), let owners = texts(), let hasChannel = int() else { return nil }
        var channel: String?
        if hasChannel != 0 {
            guard let value = text() else { return nil }
            channel = value
        }
        guard let count = int(), let hasFix = int() else { return nil }
        var fix: String?
        if hasFix != 0 {
            guard let value = text() else { return nil }
            fix = value
        }
        guard let functionSites = texts(), let functionNames = texts(), functionSites.count == functionNames.count else {
            return nil
        }
        // Fields set as stored: the initialiser's sorting and de-duplication already ran.
        var finding = Finding(rule: rule, severity: severity, sessionID: session, message: message)
        finding.evidence = evidence
        finding.seqs = seqs
        finding.callSites = callSites
        finding.owners = owners
        finding.channel = channel
        finding.count = Int(count)
        finding.specificFix = fix
        finding.functions = Dictionary(zip(functionSites, functionNames)) { first, _ in first }
        return finding
    }
}
