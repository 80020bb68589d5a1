// The rows a journal writer has staged, read by SQLite as the eponymous virtual table
// `journal_staged_events`, so that one `INSERT INTO events … SELECT * FROM
// journal_staged_events` inserts them all: no parameters to bind, texts read in place.
// Only `StagedEvents` (JournalStore) uses this: it fills the rows, points the batch at them
// for the statement's one step, and empties it before the rows move.
#ifndef OBSERVATION_JOURNAL_C_EVENT_BATCH_H
#define OBSERVATION_JOURNAL_C_EVENT_BATCH_H

#include <sqlite3.h>

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

/// What the virtual table shows: `count` rows at `rows`, their texts in `texts`. Valid while
/// the statement reading it steps; `count` is 0 at every other time.
typedef struct oj_event_batch {
    const oj_staged_event *rows;
    long count;
    const unsigned char *texts;
} oj_event_batch;

/// Registers the eponymous-only virtual table `journal_staged_events` on `db` (on no
/// other connection) and returns its batch in `*batch`, empty; the batch is freed with the
/// connection. Returns SQLITE_OK or SQLite's result code.
int oj_event_batch_register(sqlite3 *db, oj_event_batch **batch);

#endif
