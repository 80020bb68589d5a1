#include "CRawCeiling.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { max_columns = 64, max_rows_per_statement = 64, digits_size = 24 };

/// Writes the decimal digits of `value` (not negative) ending at `end`; returns the first.
static char *digits(sqlite3_int64 value, char *end) {
    do {
        *--end = (char)('0' + value % 10);
        value /= 10;
    } while (value > 0);
    return end;
}

int raw_ceiling_insert(sqlite3 *db, sqlite3_int64 session, sqlite3_int64 first_seq, long rows, int rows_per_statement) {
    if (rows_per_statement < 1 || rows_per_statement > max_rows_per_statement || rows % rows_per_statement != 0) {
        return SQLITE_MISUSE;
    }
    int rc;
    // The table's stored columns, in table order.
    char names[4096] = "";
    int columns = 0, seq_column = -1, time_column = -1, value_columns[2] = {-1, -1};
    sqlite3_stmt *info;
    if ((rc = sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info('events') ORDER BY cid", -1, &info, NULL))) {
        return rc;
    }
    while (sqlite3_step(info) == SQLITE_ROW && columns < max_columns) {
        const char *name = (const char *)sqlite3_column_text(info, 0);
        if (strlen(names) + strlen(name) + 3 > sizeof names) break;
        if (columns > 0) strcat(names, ", ");
        strcat(names, name);
        if (strcmp(name, "seq") == 0) seq_column = columns;
        if (strcmp(name, "time_ns") == 0) time_column = columns;
        if (strcmp(name, "old_value") == 0) value_columns[0] = columns;
        if (strcmp(name, "new_value") == 0) value_columns[1] = columns;
        columns += 1;
    }
    sqlite3_finalize(info);
    if (columns == 0 || seq_column < 0 || time_column < 0) return SQLITE_ERROR;

    // The two template rows, copied out of SQLite.
    sqlite3_value *templates[2][max_columns] = {{0}};
    size_t select_size = strlen(names) + 128;
    char *select_sql = malloc(select_size);
    snprintf(select_sql, select_size, "SELECT %s FROM events WHERE session_id = ?1 AND seq = ?2", names);
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
        for (int column = 0; column < columns; column++) {
            templates[row][column] = sqlite3_value_dup(sqlite3_column_value(select, column));
        }
        sqlite3_reset(select);
    }
    sqlite3_finalize(select);
    int is_text[2][max_columns] = {{0}};
    for (int row = 0; row < 2; row++) {
        for (int value = 0; value < 2; value++) {
            int column = value_columns[value];
            if (column >= 0) is_text[row][column] = sqlite3_value_type(templates[row][column]) == SQLITE_TEXT;
        }
    }

    // INSERT INTO events (…) VALUES (?, …), … with rows_per_statement rows.
    size_t row_size = (size_t)columns * 3 + 4;
    size_t insert_size = strlen(names) + 64 + row_size * (size_t)rows_per_statement;
    char *insert_sql = malloc(insert_size);
    char *end = insert_sql + sprintf(insert_sql, "INSERT INTO events (%s) VALUES ", names);
    for (int row = 0; row < rows_per_statement; row++) {
        if (row > 0) *end++ = ',';
        *end++ = '(';
        for (int column = 0; column < columns; column++) {
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
                sqlite3_value **template = templates[seq % 2];
                const int *text = is_text[seq % 2];
                int base = row * columns;
                for (int column = 0; column < columns; column++) {
                    int parameter = base + column + 1;
                    if (column == seq_column) {
                        sqlite3_bind_int64(insert, parameter, seq);
                    } else if (column == time_column) {
                        sqlite3_bind_int64(insert, parameter, seq * 300);
                    } else if (text[column]) {
                        char *buffer = texts[row][column == value_columns[1]];
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
    for (int row = 0; row < 2; row++) {
        for (int column = 0; column < columns; column++) sqlite3_value_free(templates[row][column]);
    }
    return rc;
}
