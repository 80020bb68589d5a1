#!/bin/sh
# Instructions per unit of one benchmark loop, counted by callgrind (exact and repeatable
# on a loaded machine, unlike time). Runs `BENCHMARK --profile WHAT` twice, with COUNT and
# 2 x COUNT units, and divides the difference by COUNT, so setup and teardown cancel out.
# Prints the calling (main) thread's figure, each other thread's, and their total.
#
# Units: RegistryBenchmark closures: posts (each calls FAN_OUT closures); post, center, recording,
# counting, sink: posts (a fan-out-1 post is two events); ring, fputs: events.
# JournalBenchmark raw, raw64, raw256, staged256, check-*: rows; writer: events through the recorder.
#
#   swift build -c release --product RegistryBenchmark --product JournalBenchmark
#   tools/benchmarks/callgrind-per-event.sh RegistryBenchmark|JournalBenchmark WHAT [COUNT] [FAN_OUT]
set -eu
usage="usage: callgrind-per-event.sh RegistryBenchmark|JournalBenchmark WHAT [COUNT] [FAN_OUT]"
case "${1:-}" in -h|--help) echo "$usage"; echo "Instructions per unit of one --profile loop, counted by callgrind at COUNT and 2 x COUNT."; exit 0;; esac
benchmark=${1:?$usage}
what=${2:?$usage}
count=${3:-20000}
fanout=${4:-}
binary=$(swift build -c release --show-bin-path)/$benchmark
[ -x "$binary" ] || { echo "not built: $binary" >&2; exit 2; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# A copy without debug information: valgrind 3.19 gives up on the DWARF 5 that clang writes
# for the C targets. The instructions counted are the same.
strip --strip-debug -o "$scratch/$benchmark" "$binary"
binary=$scratch/$benchmark
# Writes "thread instructions" lines for COUNT units into $scratch/$1.txt.
measure() {
    set -- "$1" --profile "$what" --count "$1"
    [ -n "$fanout" ] && set -- "$@" --fan-out "$fanout"
    units=$1; shift
    valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$scratch/out.$units" \
        "$binary" "$@" > /dev/null 2>&1
    for file in "$scratch"/out."$units"*; do
        thread=${file##*-}
        echo "$thread $(grep -h '^summary:' "$file" | awk '{ print $2 }')"
    done | sort > "$scratch/$units.txt"
    rm -f "$scratch"/out."$units"*
}
measure "$count"
measure $((count * 2))
join "$scratch/$count.txt" "$scratch/$((count * 2)).txt" | awk -v n="$count" -v w="$benchmark $what" '
    { per = ($3 - $2) / n; total += per
      printf "%s, thread %s%s: %.0f instructions per unit\n", w, $1 + 0, ($1 + 0 == 1 ? " (calling thread)" : ""), per }
    END { printf "%s, all threads: %.0f instructions per unit\n", w, total }'
