#!/bin/sh
# Instructions per unit of one RegistryBenchmark loop, counted by callgrind (exact and
# repeatable on a loaded machine, unlike time). Runs `RegistryBenchmark --profile WHAT`
# twice, with COUNT and 2 x COUNT units, and divides the difference by COUNT, so setup and
# teardown cancel out. Counts the main (calling) thread only: for `recording` the journal's
# writer thread is left out. Units: closure calls per post for `closures` (x fan-out),
# posts for post/recording/counting/sink (a fan-out-1 post is two events), events for
# ring/fputs.
#
#   swift build -c release --product RegistryBenchmark
#   tools/callgrind-per-event.sh WHAT [COUNT] [FAN_OUT]
set -eu
what=${1:?usage: callgrind-per-event.sh closures|post|recording|ring|fputs|counting|sink [COUNT] [FAN_OUT]}
count=${2:-20000}
fanout=${3:-1}
binary=$(swift build -c release --show-bin-path)/RegistryBenchmark
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
instructions() {
    valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$scratch/out.%p" \
        "$binary" --profile "$what" --count "$1" --fan-out "$fanout" > /dev/null 2>&1
    # Thread 1 is the calling thread; its file ends in -01.
    total=$(grep -h '^summary:' "$scratch"/out.*-01 | awk '{ print $2 }')
    rm -f "$scratch"/out.*
    echo "$total"
}
one=$(instructions "$count")
two=$(instructions $((count * 2)))
awk -v a="$one" -v b="$two" -v n="$count" -v w="$what" -v f="$fanout" \
    'BEGIN { printf "%s (fan-out %d): %.0f instructions per unit (%d and %d units: %d, %d)\n", w, f, (b - a) / n, n, 2 * n, a, b }'
