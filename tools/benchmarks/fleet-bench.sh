#!/usr/bin/env bash
# Benchmark of `obsreplay diagnose` over a fleet of journals (BENCHMARKS.md, "Many journals"):
# N journals of E events each (SyntheticWorkload's mix, fixed seed; one generated, the rest
# copies, so every journal costs the same), then
#   (a) obsreplay diagnose DIR --group-by fingerprint   (one process, journals in parallel)
#   (b) obsreplay diagnose JOURNAL, N times one after another
#   (c) the sqlite3 shell's full scan of every journal (SELECT of every event_log row)
# wall time and peak resident memory from /usr/bin/time.
#
#   tools/benchmarks/fleet-bench.sh [JOURNALS] [EVENTS]     (default: 200 10000)
#
# Release build; journals in .build/fleet-bench/.
set -euo pipefail
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
    sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
    exit 0
fi
cd "$(dirname "$0")/../.."
journals="${1:-200}"
events="${2:-10000}"
out=.build/fleet-bench
fleet="$out/journals-$journals-$events"
swift build -c release --product obsreplay >/dev/null
swift build -c release --product ReportSample >/dev/null
bin="$(swift build -c release --show-bin-path)"
if [ ! -d "$fleet" ]; then
    mkdir -p "$fleet.tmp"
    "$bin/ReportSample" synthetic "$fleet.tmp/run-0000.sqlite" "$events"
    for i in $(seq 1 $((journals - 1))); do cp "$fleet.tmp/run-0000.sqlite" "$fleet.tmp/run-$(printf %04d "$i").sqlite"; done
    mv "$fleet.tmp" "$fleet"
fi
measure() { /usr/bin/time -f "%e %M %U %S" "$@" 2>&1 >/dev/null | tail -1; }

read -r grouped_s grouped_kb grouped_u grouped_y < <(measure "$bin/obsreplay" diagnose "$fleet" --group-by fingerprint --fail-on never)
read -r sequential_s sequential_kb sequential_u sequential_y < <(measure sh -c "for j in '$fleet'/*.sqlite; do '$bin/obsreplay' diagnose \"\$j\" --fail-on never >/dev/null; done")
one_kb=$(measure "$bin/obsreplay" diagnose "$fleet/run-0000.sqlite" --fail-on never | cut -d' ' -f2)
read -r scan_s scan_kb scan_u scan_y < <(measure sh -c "for j in '$fleet'/*.sqlite; do sqlite3 \"\$j\" 'SELECT * FROM event_log' >/dev/null; done")

echo "$journals journals x $events events, $(nproc) cores"
echo "| run | wall (s) | CPU (s) | peak memory (MB) | wall / grouped | CPU / grouped |"
echo "|---|---:|---:|---:|---:|---:|"
journals="$journals" awk -v g="$grouped_s" -v gk="$grouped_kb" -v gu="$grouped_u" -v gy="$grouped_y" \
    -v s="$sequential_s" -v sk="$sequential_kb" -v su="$sequential_u" -v sy="$sequential_y" \
    -v c="$scan_s" -v ck="$scan_kb" -v cu="$scan_u" -v cy="$scan_y" 'BEGIN {
    gc = gu + gy; sc = su + sy; cc = cu + cy
    printf "| diagnose DIR --group-by fingerprint | %.2f | %.2f | %.1f | 1.00 | 1.00 |\n", g, gc, gk / 1024
    printf "| diagnose, %s times sequentially | %.2f | %.2f | %.1f (largest process) | %.2f | %.2f |\n", ENVIRON["journals"], s, sc, sk / 1024, s / g, sc / gc
    printf "| sqlite3 full scan of every journal | %.2f | %.2f | %.1f (largest process) | %.2f | %.2f |\n", c, cc, ck / 1024, c / g, cc / gc
}'
