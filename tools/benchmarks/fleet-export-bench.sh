#!/usr/bin/env bash
# Benchmark of reading and exporting a fleet of journals (BENCHMARKS.md, "A fleet of a
# thousand journals"): N journals of E events each (SyntheticWorkload's mix, fixed seed; one
# generated, the rest copies given ids of their own, so every journal costs the same), then,
# in one run so the ratios share the machine's load:
#   (a) obsreplay diagnose DIR --group-by fingerprint       (the reference for time)
#   (b) obsreplay export DIR --fleet OUT                      (the fleet export; bytes vs journals)
#   (c) obsreplay export DIR --what findings --format jsonl   (one table of every journal)
#   (d) (b) and (c) again over the first SMALL journals       (memory, SMALL vs N)
#   (e) (c) and (b) over N + N/10 journals under `ulimit -n 256` (must succeed)
# wall time, CPU time and peak resident memory from /usr/bin/time.
#
#   tools/benchmarks/fleet-export-bench.sh [JOURNALS] [EVENTS] [SMALL]   (default: 1000 22500 100)
#
# Release build; journals in .build/fleet-export-bench/ (kept for the next run).
set -euo pipefail
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
    sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
    exit 0
fi
cd "$(dirname "$0")/../.."
journals="${1:-1000}"
events="${2:-22500}"
small="${3:-100}"
total=$((journals + journals / 10))
out=.build/fleet-export-bench
fleet="$out/journals-$total-$events"
swift build -c release --product obsreplay >/dev/null
swift build -c release --product ReportSample >/dev/null
bin="$(swift build -c release --show-bin-path)"
if [ ! -d "$fleet" ]; then
    rm -rf "$fleet.tmp"
    mkdir -p "$fleet.tmp"
    "$bin/ReportSample" synthetic "$fleet.tmp/run-0000.sqlite" "$events"
    for i in $(seq 1 $((total - 1))); do
        copy="$fleet.tmp/run-$(printf %04d "$i").sqlite"
        cp "$fleet.tmp/run-0000.sqlite" "$copy"
        sqlite3 "$copy" "UPDATE journal SET id = lower(hex(randomblob(16))); UPDATE sessions SET host = 'ci-runner-$((i % 8))', run = '$((i / 2))';"
    done
    mv "$fleet.tmp" "$fleet"
fi
# Views of the fleet by hard link (a directory search skips symlinked files): the first SMALL, the first N, all N + N/10.
views="$out/views"
rm -rf "$views" "$out/export"
mkdir -p "$views/small" "$views/n" "$views/all" "$out/export"
for path in "$fleet"/*.sqlite; do
    name=$(basename "$path")
    index=$((10#${name//[!0-9]/}))
    ln "$path" "$views/all/$name"
    [ "$index" -lt "$journals" ] && ln "$path" "$views/n/$name"
    [ "$index" -lt "$small" ] && ln "$path" "$views/small/$name"
done
measure() { /usr/bin/time -f "%e %M %U %S" "$@" 2>&1 >/dev/null | tail -1; }
row() { # label, "wall kb user sys", reference wall
    read -r s kb u y <<<"$2"
    awk -v l="$1" -v s="$s" -v kb="$kb" -v u="$u" -v y="$y" -v r="$3" \
        'BEGIN { printf "| %s | %.2f | %.2f | %.1f | %.2f |\n", l, s, u + y, kb / 1024, s / r }'
}

diagnose=$(measure "$bin/obsreplay" diagnose "$views/n" --group-by fingerprint --fail-on never)
fleet_n=$(measure "$bin/obsreplay" export "$views/n" --fleet "$out/export/n")
table_n=$(measure "$bin/obsreplay" export "$views/n" --what findings --format jsonl -o "$out/export/n.jsonl")
fleet_small=$(measure "$bin/obsreplay" export "$views/small" --fleet "$out/export/small")
table_small=$(measure "$bin/obsreplay" export "$views/small" --what findings --format jsonl -o "$out/export/small.jsonl")
limited_table=$(sh -c "ulimit -n 256 && exec '$bin/obsreplay' export '$views/all' --what findings --format jsonl -o '$out/export/all.jsonl'" >/dev/null 2>&1 && echo ok || echo "FAILED ($?)")
limited_fleet=$(sh -c "ulimit -n 256 && exec '$bin/obsreplay' export '$views/all' --fleet '$out/export/all'" >/dev/null 2>&1 && echo ok || echo "FAILED ($?)")
journal_bytes=$(( $(stat -c %s "$fleet/run-0000.sqlite") * journals ))
fleet_bytes=$(du -sb --apparent-size "$out/export/n" | cut -f1)
read -r reference _ <<<"$diagnose"

echo "$journals journals x $events events ($((journal_bytes / 1000000)) MB of journals), $(nproc) cores"
echo "| run | wall (s) | CPU (s) | peak memory (MB) | wall / diagnose |"
echo "|---|---:|---:|---:|---:|"
row "diagnose DIR --group-by fingerprint ($journals)" "$diagnose" "$reference"
row "export DIR --fleet OUT ($journals)" "$fleet_n" "$reference"
row "export DIR --what findings ($journals)" "$table_n" "$reference"
row "export DIR --fleet OUT ($small)" "$fleet_small" "$reference"
row "export DIR --what findings ($small)" "$table_small" "$reference"
awk -v f="$fleet_bytes" -v j="$journal_bytes" 'BEGIN { printf "fleet export: %d bytes for %d bytes of journals (%.4fx)\n", f, j, f / j }'
read -r _ fleet_n_kb _ <<<"$fleet_n"; read -r _ fleet_small_kb _ <<<"$fleet_small"
read -r _ table_n_kb _ <<<"$table_n"; read -r _ table_small_kb _ <<<"$table_small"
awk -v a="$fleet_n_kb" -v b="$fleet_small_kb" -v c="$table_n_kb" -v d="$table_small_kb" -v n="$journals" -v s="$small" \
    'BEGIN { printf "peak memory %d vs %d journals: fleet export %.2fx, findings table %.2fx\n", n, s, a / b, c / d }'
echo "under ulimit -n 256, $total journals: export --what findings $limited_table, export --fleet $limited_fleet"
