#!/usr/bin/env bash
# Peak memory and time of the streaming readers (`diagnose`, `timeline`, `export`) on
# journals of the benchmark's mix at several sizes, against a full scan of the events table
# by the sqlite3 shell in the same run: memory must follow live state, not the number of
# events (the same peak at 1M and 4M events, within 10%).
#
#   tools/benchmarks/reader-memory-bench.sh [EVENTS ...]      (default: 1000000 4000000)
#
# Environment: BIN (directory holding obsreplay and ReportSample; default: a release
# build of this checkout), OUT (where the journals are kept; default .build/reader-bench),
# RUNS (runs per figure, median; default 1).
# Prints one Markdown table: seconds (median) and maximum RSS (MB, largest of the runs).
set -euo pipefail
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
    sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
    exit 0
fi
cd "$(dirname "$0")/../.."
if [ -z "${BIN:-}" ]; then
    swift build -c release --product obsreplay >/dev/null
    swift build -c release --product ReportSample >/dev/null
    BIN="$(swift build -c release --show-bin-path)"
fi
out="${OUT:-.build/reader-bench}"
runs="${RUNS:-1}"
mkdir -p "$out"

# Runs a command under /usr/bin/time; prints "seconds kilobytes".
measure() { /usr/bin/time -f '%e %M' "$@" 2>&1 >/dev/null | tail -1; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "| events | command | time (s) | peak memory (MB) |"
echo "|---|---|---|---|"
for n in "${@:-1000000 4000000}"; do
    for events in $n; do
        journal="$out/synthetic-$events.sqlite"
        [ -f "$journal" ] || "$BIN/ReportSample" synthetic "$journal" "$events"
        for name in scan diagnose timeline export; do
            case $name in
                scan) command=(sqlite3 -readonly "$journal" 'SELECT * FROM events') ;;
                diagnose) command=("$BIN/obsreplay" diagnose "$journal" --all --fail-on never) ;;
                timeline) command=("$BIN/obsreplay" timeline "$journal") ;;
                export) command=("$BIN/obsreplay" export "$journal" --what events --format csv) ;;
            esac
            seconds=() peak=0
            for _ in $(seq "$runs"); do
                read -r s kb < <(measure "${command[@]}")
                seconds+=("$s")
                [ "$kb" -gt "$peak" ] && peak=$kb
            done
            s=$(printf '%s\n' "${seconds[@]}" | median)
            label=$([ "$name" = scan ] && echo "sqlite3 SELECT * FROM events" || echo "$name")
            awk -v e="$events" -v c="$label" -v s="$s" -v k="$peak" \
                'BEGIN { printf "| %d | %s | %.2f | %.1f |\n", e, c, s, k / 1024 }'
        done
    done
done
