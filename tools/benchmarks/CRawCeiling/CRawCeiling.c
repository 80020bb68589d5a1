#include "CRawCeiling.h"

#include "CEventBatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { max_columns = 64, max_rows_per_statement = 256, digits_size = 24 };

/// Writes the decimal digits of `value` (not negative) ending at `end`; returns the first.
static char *digits(sqlite3_int64 value, char *end) {
    do {
        *--end = (char)('0' + value % 10);
        value /= 10;
    } while (value > 0);
    return end;
}

/// The ceilings' sample: the stored columns of `events` in table order (`names`, joined by
/// ", "), where seq, time_ns and the two value columns are, and the two template rows.
typedef struct sample {
    char names[4096];
    int columns, seq_column, time_column, value_columns[2];
    sqlite3_value *templates[2][max_columns];
    int is_text[2][max_columns];
} sample;

static void free_sample(sample *s) {
    for (int row = 0; row < 2; row++) {
        for (int column = 0; column < s->columns; column++) sqlite3_value_free(s->templates[row][column]);
    }
}

/// Reads the table's columns and copies rows `first_seq` and `first_seq + 1` of `session`.
static int load_sample(sqlite3 *db, sqlite3_int64 session, sqlite3_int64 first_seq, sample *s) {
    memset(s, 0, sizeof *s);
    s->seq_column = s->time_column = s->value_columns[0] = s->value_columns[1] = -1;
    int rc;
    // The table's stored columns, in table order.
    sqlite3_stmt *info;
    if ((rc = sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('events') ORDER BY cid", -1, &info, NULL))) {
        return rc;
    }
    while (sqlite3_step(info) == SQLITE_ROW && s->columns < max_columns) {
        const char *name = (const char *)sqlite3_column_text(info, 0);
        if (strlen(s->names) + strlen(name) + 3 > sizeof s->names) break;
        if (s->columns > 0) strcat(s->names, ", ");
        strcat(s->names, name);
        if (strcmp(name, "seq") == 0) s->seq_column = s->columns;
        if (strcmp(name, "time_ns") == 0) s->time_column = s->columns;
        if (strcmp(name, "old_value") == 0) s->value_columns[0] = s->columns;
        if (strcmp(name, "new_value") == 0) s->value_columns[1] = s->columns;
        s->columns += 1;
    }
    sqlite3_finalize(info);
    if (s->columns == 0 || s->seq_column < 0 || s->time_column < 0) return SQLITE_ERROR;

    // The two template rows, copied out of SQLite.
    size_t select_size = strlen(s->names) + 128;
    char *select_sql = malloc(select_size);
    snprintf(select_sql, select_size, "SELECT %s FROM events WHERE session_id = ?1 AND seq = ?2", s->names);
    sqlite3_stmt *select;
    rc = sqlite3_prepare_v2(db, select_sql, -1, &select, NULL);
    free(select_sql);
    if (rc) return rc;
    for (int row = 0; row < 2; row++) {
        sqlite3_bind_int64(select, 1, session);
        sqlite3_bind_int64(select, 2, first_seq + row);
        if (sqlite3_step(select) != SQLITE_ROW) {
            sqlite3_finalize(select);
            return SQLITE_ERROR;
        }
        for (int column = 0; column < s->columns; column++) {
            s->templates[row][column] = sqlite3_value_dup(sqlite3_column_value(select, column));
        }
        sqlite3_reset(select);
    }
    sqlite3_finalize(select);
    for (int row = 0; row < 2; row++) {
        for (int value = 0; value < 2; value++) {
            int column = s->value_columns[value];
            if (column >= 0) s->is_text[row][column] = sqlite3_value_type(s->templates[row][column]) == SQLITE_TEXT;
        }
    }

    return SQLITE_OK;
}

int raw_ceiling_insert(sqlite3 *db, sqlite3_int64 session, sqlite3_int64 first_seq, long rows, int rows_per_statement) {
    if (rows_per_statement < 1 || rows_per_statement > max_rows_per_statement || rows % rows_per_statement != 0) {
        return SQLITE_MISUSE;
    }
    sample s;
    int rc = load_sample(db, session, first_seq, &s);
    if (rc) goto done;

    // INSERT INTO events (…) VALUES (?, …), … with rows_per_statement rows.
    size_t row_size = (size_t)s.columns * 3 + 4;
    size_t insert_size = strlen(s.names) + 64 + row_size * (size_t)rows_per_statement;
    char *insert_sql = malloc(insert_size);
    char *end = insert_sql + sprintf(insert_sql, "INSERT INTO events (%s) VALUES ", s.names);
    for (int row = 0; row < rows_per_statement; row++) {
        if (row > 0) *end++ = ',';
        *end++ = '(';
        for (int column = 0; column < s.columns; column++) {
            if (column > 0) *end++ = ',';
            *end++ = '?';
        }
        *end++ = ')';
    }
    *end = 0;
    sqlite3_stmt *insert;
    rc = sqlite3_prepare_v3(db, insert_sql, -1, SQLITE_PREPARE_PERSISTENT, &insert, NULL);
    free(insert_sql);
    if (rc) goto done;

    // The value texts of one statement's rows: they live until its step is done.
    char (*texts)[2][digits_size] = malloc(sizeof(char[max_rows_per_statement][2][digits_size]));
    sqlite3_int64 seq = 1000;
    const sqlite3_int64 last = seq + rows;
    while (seq < last && rc == SQLITE_OK) {
        if ((rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL))) break;
        for (long statement = 0; statement < 10000 / rows_per_statement && seq < last; statement++) {
            for (int row = 0; row < rows_per_statement; row++, seq++) {
                sqlite3_value **template = s.templates[seq % 2];
                const int *text = s.is_text[seq % 2];
                int base = row * s.columns;
                for (int column = 0; column < s.columns; column++) {
                    int parameter = base + column + 1;
                    if (column == s.seq_column) {
                        sqlite3_bind_int64(insert, parameter, seq);
                    } else if (column == s.time_column) {
                        sqlite3_bind_int64(insert, parameter, seq * 300);
                    } else if (text[column]) {
                        char *buffer = texts[row][column == s.value_columns[1]];
                        char *start = digits(seq / 2, buffer + digits_size);
                        sqlite3_bind_text(insert, parameter, start, (int)(buffer + digits_size - start), SQLITE_STATIC);
                    } else {
                        sqlite3_bind_value(insert, parameter, template[column]);
                    }
                }
            }
            rc = sqlite3_step(insert);
            sqlite3_reset(insert);
            if (rc != SQLITE_DONE) break;
            rc = SQLITE_OK;
        }
        if (rc == SQLITE_OK) {
            rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
        } else {
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        }
    }
    sqlite3_finalize(insert);
    free(texts);
done:
    free_sample(&s);
    return rc;
}

int raw_ceiling_insert_staged(sqlite3 *db, sqlite3_int64 session, sqlite3_int64 first_seq, long rows, int rows_per_statement) {
    if (rows_per_statement < 1 || rows_per_statement > max_rows_per_statement || rows % rows_per_statement != 0) {
        return SQLITE_MISUSE;
    }
    sample s;
    int rc = load_sample(db, session, first_seq, &s);
    if (rc) goto done;
    // The staged layout is the table's: 14 integer columns, then 3 text columns.
    if (s.columns != OJ_STAGED_INTEGERS + OJ_STAGED_TEXTS) {
        rc = SQLITE_ERROR;
        goto done;
    }
    oj_event_batch *batch;
    if ((rc = oj_event_batch_register(db, rows_per_statement, &batch))) goto done;
    // Room for every text of a statement's rows: value digits, and the templates' other
    // texts cut to 255 bytes.
    if ((rc = oj_event_batch_reserve_texts(batch, (size_t)rows_per_statement * OJ_STAGED_TEXTS * 256))) goto done;
    char *insert_sql = malloc(strlen(s.names) + 128);
    sprintf(insert_sql, "INSERT INTO events (%s) SELECT * FROM journal_staged_events", s.names);
    sqlite3_stmt *insert;
    rc = sqlite3_prepare_v3(db, insert_sql, -1, SQLITE_PREPARE_PERSISTENT, &insert, NULL);
    free(insert_sql);
    if (rc) goto done;

    oj_staged_event *staged = batch->rows;
    unsigned char *texts = batch->texts;
    sqlite3_int64 seq = 1000;
    const sqlite3_int64 last = seq + rows;
    while (seq < last && rc == SQLITE_OK) {
        if ((rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL))) break;
        for (long statement = 0; statement < 10000 / rows_per_statement && seq < last; statement++) {
            size_t used = 0;
            for (int row = 0; row < rows_per_statement; row++, seq++) {
                sqlite3_value **template = s.templates[seq % 2];
                const int *text = s.is_text[seq % 2];
                oj_staged_event *out = &staged[row];
                out->nulls = 0;
                for (int column = 0; column < s.columns; column++) {
                    if (column == s.seq_column) {
                        out->integers[column] = seq;
                    } else if (column == s.time_column) {
                        out->integers[column] = seq * 300;
                    } else if (sqlite3_value_type(template[column]) == SQLITE_NULL) {
                        out->nulls |= 1u << column;
                    } else if (column < OJ_STAGED_INTEGERS) {
                        out->integers[column] = sqlite3_value_int64(template[column]);
                    } else {
                        // A value's digits, or the template's text cut to 255 bytes.
                        char buffer[digits_size];
                        const char *source;
                        size_t length;
                        if (text[column]) {
                            source = digits(seq / 2, buffer + digits_size);
                            length = (size_t)(buffer + digits_size - source);
                        } else {
                            source = (const char *)sqlite3_value_text(template[column]);
                            length = (size_t)sqlite3_value_bytes(template[column]);
                            if (length > 255) length = 255;
                        }
                        int t = column - OJ_STAGED_INTEGERS;
                        memcpy(texts + used, source, length);
                        out->text_offsets[t] = (unsigned)used;
                        out->text_lengths[t] = (unsigned)length;
                        used += length;
                    }
                }
            }
            batch->count = rows_per_statement;
            batch->texts_used = used;
            rc = sqlite3_step(insert);
            sqlite3_reset(insert);
            batch->count = 0;
            batch->texts_used = 0;
            if (rc != SQLITE_DONE) break;
            rc = SQLITE_OK;
        }
        if (rc == SQLITE_OK) {
            rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
        } else {
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        }
    }
    sqlite3_finalize(insert);
done:
    free_sample(&s);
    return rc;
}
