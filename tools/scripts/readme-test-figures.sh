#!/usr/bin/env bash
# Checks the README's "Running the tests" figures against a real `swift test` run: the
# number of tests must be the run's. The run's time is only compared, never enforced (a
# shared CI machine's load decides it): outside half to twice the README's "about M
# minutes S seconds" it prints a note to measure again on a quiet machine. `.ci/run`
# calls it on its `swift test`.
# Usage: tools/scripts/readme-test-figures.sh SWIFT_TEST_LOG
set -euo pipefail
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ] || [ $# -ne 1 ]; then
    sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
    [ $# -eq 1 ] && exit 0 || exit 64
fi
cd "$(dirname "$0")/../.."
log="$1"
summary="$(grep -E 'Test run with [0-9]+ tests? .* passed after [0-9.]+ seconds' "$log" | tail -1 || true)"
[ -n "$summary" ] || { echo "readme-test-figures: no passing Swift Testing summary in $log" >&2; exit 1; }
tests="$(echo "$summary" | sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/')"
seconds="$(echo "$summary" | sed -E 's/.*passed after ([0-9.]+) seconds.*/\1/')"
sentence="$(tr '\n' ' ' <README.md | grep -oE 'runs its [0-9,]+ tests in about [0-9]+ minutes?( [0-9]+ seconds)?' || true)"
[ -n "$sentence" ] || { echo "readme-test-figures: README.md has no 'runs its N tests in about M minutes S seconds'" >&2; exit 1; }
stated_tests="$(echo "$sentence" | sed -E 's/runs its ([0-9,]+) tests.*/\1/' | tr -d ,)"
minutes="$(echo "$sentence" | sed -E 's/.*about ([0-9]+) minutes?.*/\1/')"
extra="$(echo "$sentence" | sed -nE 's/.* ([0-9]+) seconds$/\1/p')"
stated_seconds=$((minutes * 60 + ${extra:-0}))
status=0
if [ "$tests" != "$stated_tests" ]; then
    echo "readme-test-figures: README.md says $stated_tests tests; the run had $tests (write $tests)" >&2
    status=1
fi
if ! awk -v s="$seconds" -v r="$stated_seconds" 'BEGIN { exit !(s >= r / 2 && s <= r * 2) }'; then
    echo "readme-test-figures: note: README.md says about ${stated_seconds} s of tests; this run took ${seconds} s (if this machine was quiet, measure again and write it)" >&2
fi
[ "$status" -eq 0 ] && echo "readme-test-figures: $tests tests, as README.md says (this run ${seconds} s; README about ${stated_seconds} s)"
exit "$status"
