import JournalStore

/// Rows of one session's table (objects, registrations) found by id, with a statement
/// kept open on the table in id order for the ids a pass asks for next.
///
/// A session makes its objects and registrations in id order, and a pass over its
/// events first asks for them in nearly that order: the row asked for next is then the
/// next row of the open statement, where a fresh primary-key search restarts a statement
/// and descends the tree again. A step reads every selected column of the row it passes,
/// so a row more than `reach` rows ahead is searched for, and a row behind the cursor
/// (a registration asked for again after its removal) is searched for with a second
/// statement, leaving the cursor where the next new row will be asked for. One lookup
/// costs at most a search and `reach` steps, whatever ids a journal holds.
///
/// The SQL must select `id` first and take the session as `?1` and the lowest id as
/// `?2`: `SELECT id, … FROM t WHERE session_id = ?1 AND id >= ?2 ORDER BY id`. Not
/// thread-safe, like the `JournalReader` that keeps it and steps it (passed in, never
/// held: the reader holds the lookup).
final class ForwardLookup {
    /// Walks forward through the table.
    private let cursor: SQLiteStatement
    /// Searches for rows behind `cursor`.
    private let probe: SQLiteStatement
    /// The session of `position`.
    private var session: Int64?
    private var position = Position.unset

    private enum Position {
        case unset
        /// On the row with this id.
        case on(Int64)
        /// No row has an id at or above this one.
        case end(from: Int64)
    }

    /// How many rows a lookup steps over before it searches instead.
    static let reach = 2

    init(reader: JournalReader, sql: String) throws(AnalysisError) {
        cursor = try reader.prepare(sql)
        probe = try reader.prepare(sql)
    }

    /// The statement on the row of `session` with `id`, for its columns to be read before
    /// the next lookup; `nil` when the table has no such row.
    func row(session: Int64, id: Int64, in reader: JournalReader) throws(AnalysisError) -> SQLiteStatement? {
        if session != self.session {
            self.session = session
            position = .unset
        }
        switch position {
        case let .on(at) where at == id:
            return cursor
        case let .on(at) where at > id:
            return try search(probe, session: session, id: id, in: reader).found ? probe : nil
        case let .on(at):
            var last = at
            for _ in 0..<Self.reach {
                guard try reader.step(cursor) else {
                    // `last < id`, so `last + 1` cannot overflow.
                    position = .end(from: last + 1)
                    return nil
                }
                last = cursor.int(0)
                position = .on(last)
                if last == id { return cursor }
                if last > id { return nil }
            }
        case let .end(from) where id >= from:
            return nil
        case .end, .unset:
            break
        }
        let (found, at) = try search(cursor, session: session, id: id, in: reader)
        position = at.map(Position.on) ?? .end(from: id)
        return found ? cursor : nil
    }

    /// Puts `statement` on the first row at or after `id`: whether that row is `id`, and
    /// its id (`nil`: no such row).
    private func search(
        _ statement: SQLiteStatement, session: Int64, id: Int64, in reader: JournalReader
    ) throws(AnalysisError) -> (found: Bool, at: Int64?) {
        statement.reset()
        try reader.bind(statement, [.int(session), .int(id)])
        guard try reader.step(statement) else { return (false, nil) }
        let at = statement.int(0)
        return (at == id, at)
    }
}
