#ifndef OBSERVATIONJOURNAL_CSQLITE_SHIM_H
#define OBSERVATIONJOURNAL_CSQLITE_SHIM_H
#include <sqlite3.h>

/// `sqlite3_db_config` for the options that take an int and report the new setting:
/// Swift cannot call C variadic functions. Returns the setting now in force, or -1 if
/// SQLite refused the option.
static inline int ojSetDatabaseFlag(sqlite3 *db, int option, int value) {
    int now = -1;
    if (sqlite3_db_config(db, option, value, &now) != SQLITE_OK) return -1;
    return now;
}
#endif
