#include "CEventBatch.h"

#include <string.h>

// The module of `journal_staged_events`: a read-only table of the batch's rows in order,
// no index, no rowid of use (the row's position).

typedef struct staged_table {
    sqlite3_vtab base;
    const oj_event_batch *batch;
} staged_table;

typedef struct staged_cursor {
    sqlite3_vtab_cursor base;
    const oj_event_batch *batch;
    long index;
} staged_cursor;

static int staged_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **error) {
    (void)argc;
    (void)argv;
    (void)error;
    // Column names only: the values keep the types xColumn gives them.
    int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, i10, i11, i12, i13, t0, t1, t2)");
    if (rc != SQLITE_OK) return rc;
    staged_table *table = sqlite3_malloc(sizeof *table);
    if (table == NULL) return SQLITE_NOMEM;
    memset(table, 0, sizeof *table);
    table->batch = aux;
    *out = &table->base;
    return SQLITE_OK;
}

static int staged_disconnect(sqlite3_vtab *table) {
    sqlite3_free(table);
    return SQLITE_OK;
}

static int staged_best_index(sqlite3_vtab *table, sqlite3_index_info *info) {
    (void)table;
    info->estimatedCost = 1000;
    info->estimatedRows = 1000;
    return SQLITE_OK;
}

static int staged_open(sqlite3_vtab *table, sqlite3_vtab_cursor **out) {
    staged_cursor *cursor = sqlite3_malloc(sizeof *cursor);
    if (cursor == NULL) return SQLITE_NOMEM;
    memset(cursor, 0, sizeof *cursor);
    cursor->batch = ((staged_table *)table)->batch;
    *out = &cursor->base;
    return SQLITE_OK;
}

static int staged_close(sqlite3_vtab_cursor *cursor) {
    sqlite3_free(cursor);
    return SQLITE_OK;
}

static int staged_filter(sqlite3_vtab_cursor *cursor, int index, const char *name, int argc, sqlite3_value **argv) {
    (void)index;
    (void)name;
    (void)argc;
    (void)argv;
    ((staged_cursor *)cursor)->index = 0;
    return SQLITE_OK;
}

static int staged_next(sqlite3_vtab_cursor *cursor) {
    ((staged_cursor *)cursor)->index += 1;
    return SQLITE_OK;
}

static int staged_eof(sqlite3_vtab_cursor *base) {
    const staged_cursor *cursor = (const staged_cursor *)base;
    return cursor->index >= cursor->batch->count;
}

static int staged_column(sqlite3_vtab_cursor *base, sqlite3_context *context, int column) {
    const staged_cursor *cursor = (const staged_cursor *)base;
    const oj_event_batch *batch = cursor->batch;
    const oj_staged_event *row = &batch->rows[cursor->index];
    // Not setting a result gives NULL.
    if ((row->nulls >> column) & 1u) return SQLITE_OK;
    if (column < OJ_STAGED_INTEGERS) {
        sqlite3_result_int64(context, row->integers[column]);
    } else if (column < OJ_STAGED_INTEGERS + OJ_STAGED_TEXTS) {
        int text = column - OJ_STAGED_INTEGERS;
        // Static: the texts stay put until the statement's step has returned.
        sqlite3_result_text(context, (const char *)batch->texts + row->text_offsets[text], (int)row->text_lengths[text], SQLITE_STATIC);
    }
    return SQLITE_OK;
}

static int staged_rowid(sqlite3_vtab_cursor *cursor, sqlite3_int64 *rowid) {
    *rowid = ((const staged_cursor *)cursor)->index;
    return SQLITE_OK;
}

static const sqlite3_module staged_module = {
    .iVersion = 0,
    // Eponymous-only: no xCreate, so `CREATE VIRTUAL TABLE … USING` cannot make another.
    .xCreate = NULL,
    .xConnect = staged_connect,
    .xBestIndex = staged_best_index,
    .xDisconnect = staged_disconnect,
    .xDestroy = staged_disconnect,
    .xOpen = staged_open,
    .xClose = staged_close,
    .xFilter = staged_filter,
    .xNext = staged_next,
    .xEof = staged_eof,
    .xColumn = staged_column,
    .xRowid = staged_rowid,
};

static void free_batch(void *batch) {
    oj_event_batch *freed = batch;
    sqlite3_free(freed->rows);
    sqlite3_free(freed->texts);
    sqlite3_free(freed);
}

int oj_event_batch_register(sqlite3 *db, long capacity, oj_event_batch **batch) {
    if (capacity < 1) return SQLITE_MISUSE;
    // A second registration would replace the module and free the first batch under its
    // owner: refuse it (and a table of that name, which no journal has).
    sqlite3_stmt *probe;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM journal_staged_events", -1, &probe, NULL) == SQLITE_OK) {
        sqlite3_finalize(probe);
        return SQLITE_MISUSE;
    }
    oj_event_batch *made = sqlite3_malloc(sizeof *made);
    if (made == NULL) return SQLITE_NOMEM;
    memset(made, 0, sizeof *made);
    made->capacity = capacity;
    made->texts_capacity = 4096;
    made->rows = sqlite3_malloc64(sizeof(oj_staged_event) * (sqlite3_uint64)capacity);
    made->texts = sqlite3_malloc64(made->texts_capacity);
    if (made->rows == NULL || made->texts == NULL) {
        free_batch(made);
        return SQLITE_NOMEM;
    }
    // On failure SQLite calls the destructor itself.
    int rc = sqlite3_create_module_v2(db, "journal_staged_events", &staged_module, made, free_batch);
    if (rc != SQLITE_OK) return rc;
    *batch = made;
    return SQLITE_OK;
}

int oj_event_batch_reserve_texts(oj_event_batch *batch, size_t extra) {
    // Offsets and lengths are 32-bit; SQLite's texts are shorter still.
    const size_t limit = (size_t)1 << 31;
    if (extra >= limit || batch->texts_used >= limit - extra) return SQLITE_TOOBIG;
    size_t needed = batch->texts_used + extra;
    if (needed <= batch->texts_capacity) return SQLITE_OK;
    size_t grown = batch->texts_capacity * 2;
    if (grown < needed) grown = needed;
    unsigned char *texts = sqlite3_realloc64(batch->texts, grown);
    if (texts == NULL) return SQLITE_NOMEM;
    batch->texts = texts;
    batch->texts_capacity = grown;
    return SQLITE_OK;
}
