#!/usr/bin/env bash
# What another key for `events` would save: the rows of a journal JOURNAL copied, in key
# order, into two fresh tables by the stock sqlite3 shell, one statement each —
#   as-is   the journal's table: WITHOUT ROWID, keyed by (session_id, seq);
#   rowid   the same columns, session_id and seq packed into one rowid
#           (session_id << 32 | seq), which SQLite appends to in place;
# and prints, for each, the table's bytes of pages and of records per event (`dbstat`) and
# SQLite's instructions per row to insert it (callgrind; the same `SELECT` run alone is
# subtracted, so what is left is the insert's own work).
#
#   tools/benchmarks/layout-bench.sh JOURNAL
#
# JOURNAL: a journal the recorder wrote, e.g. `JournalStress soak --seconds 3 --threads 4
# --journal J --no-memory-check`. Needs sqlite3 and valgrind.
set -euo pipefail
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ] || [ $# -ne 1 ]; then
    sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
    [ $# -eq 1 ] && exit 0 || exit 2
fi
journal=$(realpath "$1")
for tool in sqlite3 valgrind; do
    command -v "$tool" >/dev/null || { echo "layout-bench: needs $tool" >&2; exit 2; }
done
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
events=$(sqlite3 -readonly "$journal" 'SELECT count(*) FROM events')
[ "$events" -gt 0 ] || { echo "layout-bench: $journal has no events" >&2; exit 2; }
columns="time_ns, kind, thread, flags, channel_id, registration_id, owner_id, change_back, duration_ns, cpu_ns,
    live_count, call_site_id, old_value, new_value, reason"
# The declarations of the journal's own table, less its key.
declared=$(sqlite3 -readonly "$journal" "SELECT group_concat(name || ' ' || type || CASE WHEN \"notnull\" THEN ' NOT NULL' ELSE '' END, ', ')
    FROM pragma_table_info('events') WHERE pk = 0")

# Prints callgrind's instruction total for the shell running SQL on database $1.
instructions() {
    valgrind --tool=callgrind --callgrind-out-file="$scratch/cg.out" sqlite3 "$1" "$2" 2>&1 >/dev/null \
        | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

select="SELECT session_id, seq, $columns FROM s.events ORDER BY session_id, seq"
sqlite3 "$scratch/empty.sqlite" 'PRAGMA journal_mode = wal' >/dev/null
base=$(instructions "$scratch/empty.sqlite" "ATTACH '$journal' AS s; SELECT count(*) FROM ($select)")

echo "| layout | pages, bytes per event | records, bytes per event | insert, instructions per row |"
echo "|---|---:|---:|---:|"
for layout in as-is rowid; do
    db="$scratch/$layout.sqlite"
    case $layout in
    as-is)
        table="CREATE TABLE events (session_id INTEGER NOT NULL, seq INTEGER NOT NULL, $declared,
            PRIMARY KEY (session_id, seq)) STRICT, WITHOUT ROWID"
        insert="INSERT INTO events (session_id, seq, $columns) $select";;
    rowid)
        table="CREATE TABLE events (id INTEGER PRIMARY KEY, $declared) STRICT"
        insert="INSERT INTO events (id, $columns) SELECT (session_id << 32) | seq, $columns FROM ($select)";;
    esac
    sqlite3 "$db" "PRAGMA journal_mode = wal; $table" >/dev/null
    total=$(instructions "$db" "ATTACH '$journal' AS s; $insert")
    sqlite3 "$db" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
    sqlite3 "$db" "SELECT '| $layout | ' || printf('%.1f', sum(pgsize) * 1.0 / $events) || ' | '
        || printf('%.1f', sum(payload) * 1.0 / $events) || ' | ' || (($total - $base) / $events) || ' |'
        FROM dbstat WHERE name = 'events'"
done
echo
echo "$events events of $journal"
