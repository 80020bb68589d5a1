#!/usr/bin/env bash
# Benchmark of `obsreplay report`: file size, and generation time against `obsreplay
# diagnose` on the same journal in the same run (the report runs the diagnosis and one
# more pass over the events); then the time headless Chromium takes to load and draw it.
#
#   tools/benchmarks/report-bench.sh [EVENTS ...]      (default: 100000 1000000)
#
# Release build; journals of the benchmark's mix (SyntheticWorkload, fixed seed) in
# .build/report-bench/; times are medians of 3 runs from /usr/bin/time.
set -euo pipefail
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
    sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
    exit 0
fi
cd "$(dirname "$0")/../.."
out=.build/report-bench
mkdir -p "$out"
swift build -c release --product obsreplay >/dev/null
swift build -c release --product ReportSample >/dev/null
bin="$(swift build -c release --show-bin-path)"

median() { sort -n | sed -n 2p; }
timed() { /usr/bin/time -f %e "$@" 2>&1 >/dev/null | tail -1; }

echo "| events | report (s) | diagnose (s) | ratio | report size (MB) | report peak memory (MB) | diagnose peak memory (MB) |"
echo "|---|---|---|---|---|---|---|"
reports=()
for events in "${@:-100000 1000000}"; do
    for n in $events; do
        journal="$out/synthetic-$n.sqlite"
        [ -f "$journal" ] || "$bin/ReportSample" synthetic "$journal" "$n"
        report=() diagnose=()
        for _ in 1 2 3; do
            diagnose+=("$(timed "$bin/obsreplay" diagnose "$journal" --fail-on never)")
            report+=("$(timed "$bin/obsreplay" report "$journal" -o "$out/synthetic-$n.html")")
        done
        memory=$(/usr/bin/time -f %M "$bin/obsreplay" report "$journal" -o "$out/synthetic-$n.html" 2>&1 >/dev/null | tail -1)
        dmemory=$(/usr/bin/time -f %M "$bin/obsreplay" diagnose "$journal" --fail-on never 2>&1 >/dev/null | tail -1)
        r=$(printf '%s\n' "${report[@]}" | median)
        d=$(printf '%s\n' "${diagnose[@]}" | median)
        size=$(stat -c %s "$out/synthetic-$n.html")
        awk -v n="$n" -v r="$r" -v d="$d" -v s="$size" -v m="$memory" -v dm="$dmemory" \
            'BEGIN { printf "| %d | %.2f | %.2f | %.2fx | %.1f | %.0f | %.0f |\n", n, r, d, r / (d > 0 ? d : 0.01), s / 1e6, m / 1024, dm / 1024 }'
        reports+=("$out/synthetic-$n.html")
    done
done
chromium="$(command -v chromium || true)"
if [ -n "$chromium" ]; then
    echo
    python3 tools/scripts/report-browser-check.py --measure --chromium "$chromium" --shots "$out" "${reports[@]:0:2}"
fi
