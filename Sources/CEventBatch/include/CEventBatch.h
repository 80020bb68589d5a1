// The rows a journal writer has staged, read by SQLite as the eponymous virtual table
// `journal_staged_events`, so that one `INSERT INTO events … SELECT * FROM
// journal_staged_events` inserts them all: no parameters to bind, texts read in place.
// Only `StagedEvents` (JournalStore) and the benchmarks' C ceiling use this: they fill the
// rows and texts in place, run the statement, and empty the batch.
#ifndef OBSERVATION_JOURNAL_C_EVENT_BATCH_H
#define OBSERVATION_JOURNAL_C_EVENT_BATCH_H

#include <sqlite3.h>
#include <stddef.h>

/// The integer columns of a row: `events`' first 14 columns (`EventColumn` 0 … 13).
#define OJ_STAGED_INTEGERS 14
/// The text columns that follow them: `old_value`, `new_value`, `reason` (14 … 16).
#define OJ_STAGED_TEXTS 3

/// One staged row of `events`, in the table's column order.
typedef struct oj_staged_event {
    sqlite3_int64 integers[OJ_STAGED_INTEGERS];
    /// Bit `c` set: column `c` (0 … 16) is NULL, whatever its value here.
    unsigned int nulls;
    /// A text column's bytes: `text_lengths[t]` bytes at `texts + text_offsets[t]` (UTF-8).
    unsigned int text_offsets[OJ_STAGED_TEXTS];
    unsigned int text_lengths[OJ_STAGED_TEXTS];
} oj_staged_event;

/// What the virtual table shows: the first `count` of `capacity` rows at `rows`, their texts
/// in the first `texts_used` of `texts_capacity` bytes at `texts` (never NULL). Owned by the
/// connection it is registered on and freed with it.
typedef struct oj_event_batch {
    oj_staged_event *rows;
    long count;
    long capacity;
    unsigned char *texts;
    size_t texts_used;
    size_t texts_capacity;
} oj_event_batch;

/// Registers the eponymous-only virtual table `journal_staged_events` on `db` (on no
/// other connection) over a new empty batch of `capacity` rows (at least 1), returned in
/// `*batch`. Returns SQLITE_OK, SQLITE_MISUSE if `db` already has a `journal_staged_events`,
/// or SQLite's result code.
int oj_event_batch_register(sqlite3 *db, long capacity, oj_event_batch **batch);

/// Makes room for `extra` more text bytes at `texts + texts_used` (moving the texts: the
/// rows hold offsets). Returns SQLITE_OK, SQLITE_TOOBIG past 2 GiB or SQLITE_NOMEM.
int oj_event_batch_reserve_texts(oj_event_batch *batch, size_t extra);

#endif
