/// The limits and SQL of `event_blocks` (schema 5), shared by the writer, the fixtures and
/// the benchmarks; the body's format is docs/EVENT-BLOCKS.md's (see `EventBlockEncoder`).
package enum EventBlock {
    /// The most events a block holds: enough that SQLite's per-row cost (a B-tree insert,
    /// a record) is spread thin, few enough that a block is small (about 25 KB) and the
    /// committed prefix is written often.
    package static let maxEvents = 256

    /// The longest body the writer writes, in bytes: a block is closed before it would
    /// pass this; an event that alone would pass it is written to `event_rows`. A quarter
    /// of what a reader accepts per value (16 MiB), so every block the writer writes reads.
    package static let maxBodyBytes = 4 << 20

    /// Inserts one block: parameters session_id, first_seq, last_seq, event_count, body.
    package static let insertSQL =
        "INSERT INTO event_blocks (session_id, first_seq, last_seq, event_count, body) VALUES (?, ?, ?, ?, ?)"
}
