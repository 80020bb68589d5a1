/// Which journal a file is: the id every export made from it carries, so rows stay
/// attributable after their files are copied, renamed or concatenated.
///
/// A journal of schema 8 or later has its id in the `journal` table, random, written
/// when it was created; a copy of the file is the same journal and has the same id. A
/// journal made by an older version has none stored: its id is derived from its first
/// session (host, process, pid, wall-clock and monotonic start), the same on every
/// reading and before and after an upgrade (an upgrade stores no id). Both are 32
/// lowercase hexadecimal digits.
package struct JournalIdentity: Sendable, Equatable {
    /// 32 lowercase hexadecimal digits.
    package var id: String
    /// Whether the id was derived from the first session rather than stored.
    package var isDerived: Bool

    /// The first schema version that stores an id.
    package static let storedSinceVersion = 8

    /// The identity of the journal behind `database`, whose file is at schema `version`
    /// (the file's own version: an upgraded copy of an older journal has an id stored by
    /// the upgrade, different on every copy, which is not the journal's).
    /// - Throws: `SQLiteError` when the journal cannot be read.
    package static func read(_ database: SQLiteDatabase, version: Int) throws(SQLiteError) -> JournalIdentity {
        if version >= storedSinceVersion {
            // The first row only: a hostile file may hold many, or a huge value.
            let statement = try database.prepare("SELECT id FROM journal WHERE length(id) = 32 ORDER BY rowid LIMIT 1")
            if try statement.step(), !statement.isNull(0) {
                let id = statement.text(0)
                if isWellFormed(id) { return JournalIdentity(id: id, isDerived: false) }
            }
        }
        let statement = try database.prepare("""
            SELECT host, process, pid, started_at, start_ns FROM sessions ORDER BY id LIMIT 1
            """)
        var parts: [String] = []
        if try statement.step() {
            parts = [
                JournalName.capped(statement.text(0)), JournalName.capped(statement.text(1)), String(statement.int(2)),
                JournalName.capped(statement.text(3)), String(statement.int(4)),
            ]
        }
        return JournalIdentity(id: derivedID(parts), isDerived: true)
    }

    /// The id derived from a first session's `parts`: two 64-bit FNV-1a hashes of them,
    /// one per line.
    static func derivedID(_ parts: [String]) -> String {
        let bytes = Array(parts.joined(separator: "\n").utf8)
        return JournalName.hex(JournalName.fnv1a(bytes, basis: 0xcbf2_9ce4_8422_2325))
            + JournalName.hex(JournalName.fnv1a(bytes, basis: 0x6c62_272e_07bb_0142))
    }

    /// Whether `id` is 32 lowercase hexadecimal digits.
    package static func isWellFormed(_ id: String) -> Bool {
        id.utf8.count == 32 && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
