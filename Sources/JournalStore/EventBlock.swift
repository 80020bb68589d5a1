/// The limits of a block of events, `event_blocks` (schema 5) and `event_packs` (schema 6,
/// `EventPack`), shared by the writer, the reader, the fixtures and the benchmarks; the
/// bodies' formats are docs/EVENT-BLOCKS.md's.
///
/// The limits are inlinable constants, not stored `static let`s: the writer tests them for
/// every event, and a `static let` from another module was a call to its accessor each time.
package enum EventBlock {
    /// The most events a block holds: enough that SQLite's per-row cost (a B-tree insert,
    /// a record) is spread thin, few enough that a block is small (about 25 KB) and the
    /// committed prefix is written often.
    @inlinable package static var maxEvents: Int { 256 }

    /// The longest body the writer writes, in bytes: a block is closed before it would
    /// pass this; an event that alone would pass it is written to `event_rows`. A quarter
    /// of what a reader accepts per value (16 MiB), so every block the writer writes reads.
    @inlinable package static var maxBodyBytes: Int { 4 << 20 }
}
