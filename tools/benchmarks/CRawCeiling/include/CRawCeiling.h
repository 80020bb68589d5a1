#ifndef C_RAW_CEILING_H
#define C_RAW_CEILING_H

#include <sqlite3.h>

/// The raw ceiling of JournalBenchmark, in C: inserts `rows` rows into the `events` table
/// of `db` with the SQLite C API alone, copies of events `first_seq` and `first_seq + 1` of
/// session `session` (every stored column, as the recorder wrote it) alternately, each
/// with a new `seq`, `time_ns` and new decimal texts for its value columns. One prepared
/// `INSERT … VALUES` of `rows_per_statement` rows (the writer's statement), 10,000 rows
/// per `BEGIN IMMEDIATE` transaction, texts bound without a copy (`SQLITE_STATIC`).
/// `rows` must be a multiple of `rows_per_statement` (at most 256).
/// Returns SQLITE_OK, or the failing call's result code (its message: sqlite3_errmsg).
int raw_ceiling_insert(sqlite3 *db, sqlite3_int64 session, sqlite3_int64 first_seq, long rows, int rows_per_statement);

/// The same rows and transactions through the writer's statement: `rows_per_statement` rows
/// (at most 256) staged in the layout of CEventBatch and inserted by one `INSERT INTO events
/// (…) SELECT * FROM journal_staged_events` (the virtual table registered on `db` here).
/// Returns SQLITE_OK, or the failing call's result code.
int raw_ceiling_insert_staged(sqlite3 *db, sqlite3_int64 session, sqlite3_int64 first_seq, long rows, int rows_per_statement);

#endif
