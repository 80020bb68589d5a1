#!/usr/bin/env bash
# Queries a person runs on a journal with the stock sqlite3 shell, timed on a journal of
# EVENTS events (the obsreplay benchmark's mix, `ReportSample synthetic`) and on a plain
# indexed table of the same events in a copy of it (every column stored, generated ones
# and event_details' included, keyed by (session_id, seq)): the journal's table must answer
# each within 2x of the plain table, and none over 1 s. (The plain table stores every
# column decoded, one row per event; the journal's stores flags and change_back.)
#
#   tools/benchmarks/sql-bench.sh [EVENTS]      (default 1000000)
#
# Environment: BIN (directory holding ReportSample; default: a release build of this
# checkout), OUT (where the journals are kept; default .build/sql-bench), RUNS (runs of each
# query, median; default 5). Prints one Markdown table of milliseconds of CPU (the shell's
# `.timer` user + sys time, which it gives to the microsecond; median of the runs) and the
# journal's bytes per event.
set -euo pipefail
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
    sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
    exit 0
fi
cd "$(dirname "$0")/../.."
command -v sqlite3 >/dev/null || { echo "sql-bench: needs the sqlite3 shell (apt-get install sqlite3)" >&2; exit 2; }
if [ -z "${BIN:-}" ]; then
    swift build -c release --product ReportSample >/dev/null
    BIN="$(swift build -c release --show-bin-path)"
fi
events="${1:-1000000}"
out="${OUT:-.build/sql-bench}"
runs="${RUNS:-5}"
mkdir -p "$out"
journal="$out/synthetic-$events.sqlite"
plain="$out/plain-$events.sqlite"
[ -f "$journal" ] || "$BIN/ReportSample" synthetic "$journal" "$events"
if [ ! -f "$plain" ]; then
    sqlite3 "$journal" "VACUUM INTO '$plain'"
    sqlite3 "$plain" <<'SQL'
CREATE TABLE plain_events (
    session_id INTEGER NOT NULL, seq INTEGER NOT NULL, time_ns INTEGER NOT NULL, kind INTEGER NOT NULL,
    thread INTEGER NOT NULL, is_main INTEGER NOT NULL, is_prior INTEGER NOT NULL, main_queue INTEGER,
    depth INTEGER NOT NULL, channel_id INTEGER, registration_id INTEGER, owner_id INTEGER,
    other_registration_id INTEGER, call_site_id INTEGER, scope_id INTEGER, live_count INTEGER,
    duration_ns INTEGER, cpu_ns INTEGER, waits INTEGER, change_seq INTEGER, old_value TEXT,
    new_value TEXT, reason TEXT, detail TEXT,
    PRIMARY KEY (session_id, seq)
) STRICT, WITHOUT ROWID;
INSERT INTO plain_events
SELECT e.session_id, e.seq, e.time_ns, e.kind, e.thread, e.flags & 1, (e.flags >> 1) & 1,
       CASE WHEN e.flags & 4 THEN (e.flags >> 3) & 1 END, e.flags >> 4,
       e.channel_id, e.registration_id, e.owner_id, d.other_registration_id, e.call_site_id, d.scope_id,
       e.live_count, e.duration_ns, e.cpu_ns, d.waits, e.seq - e.change_back, e.old_value, e.new_value, e.reason, d.detail
FROM events e LEFT JOIN event_details d ON d.session_id = e.session_id AND d.seq = e.seq;
SQL
fi
session=$(sqlite3 -readonly "$journal" 'SELECT max(session_id) FROM events')
last=$(sqlite3 -readonly "$journal" "SELECT max(seq) FROM events WHERE session_id = $session")
middle=$((last / 2))

# The median `.timer` CPU time (user + sys) of RUNS runs of $2 on file $1, in milliseconds.
timed() {
    local script
    script=$(printf '.output /dev/null\n.timer on\n'; for _ in $(seq "$runs"); do printf '%s;\n' "$2"; done)
    printf '%s\n' "$script" | sqlite3 -readonly "$1" 2>&1 | grep '^Run Time' | awk '{ print ($6 + $8) * 1000 }' \
        | sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] }'
}

names=("count by kind" "last 100 events of a session" "one event by (session, seq)" "a 1,000-event window"
       "deliveries per channel, with names" "last 100 events of a session, event_log")
queries=(
    "SELECT kind, count(*) FROM TABLE GROUP BY kind"
    "SELECT * FROM TABLE WHERE session_id = $session ORDER BY seq DESC LIMIT 100"
    "SELECT * FROM TABLE WHERE session_id = $session AND seq = $middle"
    "SELECT * FROM TABLE WHERE session_id = $session AND seq BETWEEN $middle AND $((middle + 999))"
    "SELECT c.name, d.n, d.mean FROM (SELECT session_id, channel_id, count(*) AS n, avg(duration_ns) AS mean FROM TABLE WHERE kind = 5 GROUP BY session_id, channel_id) d JOIN channel_names c ON c.session_id = d.session_id AND c.id = d.channel_id ORDER BY d.n DESC LIMIT 10"
    "SELECT * FROM event_log WHERE session_id = $session ORDER BY seq DESC LIMIT 100"
)
bytes=$(stat -c %s "$journal")
echo "$events events in $journal ($(awk -v b="$bytes" -v n="$events" 'BEGIN { printf "%.1f", b / n }') bytes per event); median of $runs runs, ms"
echo ""
echo "| query | journal (events) | plain table | journal / plain |"
echo "|---|---:|---:|---:|"
for i in "${!names[@]}"; do
    q="${queries[$i]}"
    j=$(timed "$journal" "${q//TABLE/events}")
    if [[ "$q" == *TABLE* ]]; then
        p=$(timed "$plain" "${q//TABLE/plain_events}")
        ratio=$(awk -v a="$j" -v b="$p" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
    else
        p="-"; ratio="-"
    fi
    echo "| ${names[$i]} | $j | $p | $ratio |"
done
