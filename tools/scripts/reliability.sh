#!/usr/bin/env bash
# The reliability harnesses of RELIABILITY.md.
#
#   tools/scripts/reliability.sh ci      what CI runs after `swift test` (which already runs the short
#                                form of every harness): a 5-second soak, the field corpus under
#                                CPU load (tools/scripts/field-corpus-load.sh, 1 to 3 minutes), then the
#                                concurrency tests and a soak under ThreadSanitizer
#   tools/scripts/reliability.sh long    the long forms, printing the figures RELIABILITY.md records
#                                (about 45 minutes on the 2-core machine)
#   tools/scripts/reliability.sh reads   only the readers' harness: schema-1 upgrades (sparse,
#                                interrupted by each signal, damaged, oversized values), the app's
#                                own database at a non-UTF-8 path, non-UTF-8 journal names
#
# Long-form sizes can be changed: CRASH_TRIALS, FULL_DISK_TRIALS, MUTATION_CASES,
# MUTATION_SEED, SOAK_SECONDS.
set -euo pipefail
cd "$(dirname "$0")/../.."

mode="${1:-}"
# The tests that run threads (and processes) against one registry and one journal, and
# those that race producers, the writer, flush and close on the journal's lock-free ring.
tsan_filter='ConcurrencyStressTests|RegistryRaceStressTests|ConcurrencyTests|TwoProcessTests|JournalReplacedTests|RingInterleavingTests|RingStorageTests|BufferTests'

step() { printf '\n== %s\n' "$*"; }

# Runs the swift test FILTER at a size set by the VARIABLE=VALUE arguments; on failure shows
# the failed expectations and stops, naming WHAT failed.
#   harness WHAT FILTER VARIABLE=VALUE...
harness() {
    local what="$1" filter="$2" log
    shift 2
    log="$(mktemp)"
    if ! env "$@" swift test --skip-build --filter "$filter" >"$log" 2>&1; then
        grep -E '^✘|↳' "$log" | head -n 60
        rm -f "$log"
        echo "reliability: the $what failed" >&2
        exit 1
    fi
    grep -E '^(✔|✘) Test run' "$log"
    rm -f "$log"
}

# Runs a command under ThreadSanitizer and fails on any report, even one that did not
# change the exit status.
tsan() {
    local log
    log="$(mktemp)"
    if ! TSAN_OPTIONS="halt_on_error=0 exitcode=66 ${TSAN_OPTIONS:-}" "$@" >"$log" 2>&1; then
        # The failed expectations first: a long run's tail alone may not reach them.
        grep -E '^✘|↳' "$log" | head -n 40 || true
        tail -n 60 "$log"
        echo "reliability: failed under ThreadSanitizer: $*" >&2
        rm -f "$log"
        return 1
    fi
    if grep -q 'WARNING: ThreadSanitizer' "$log"; then
        grep -A 30 'WARNING: ThreadSanitizer' "$log" | head -n 80
        echo "reliability: ThreadSanitizer reported: $*" >&2
        rm -f "$log"
        return 1
    fi
    grep -E '^(✔|✘) Test run|^soak' "$log" || true
    rm -f "$log"
}

# The readers' harness (RELIABILITY.md section 6c): old journals upgraded for reading
# (sparse, interrupted by each signal, damaged, oversized values), the app's own database
# at a non-UTF-8 path beside a recording, journals whose names are not UTF-8.
reads() {
    harness "readers' harness" 'theAppsOwn|pathsSQLite|journalsWhoseNames|anInterruptedRead|copiesLeft|theUpgraded|theUpgradeHas|checkOfAnOld|aVocabulary|checkFindsLong|readingAJournalLeaves|aReadBeside'
    read_beside_recording "${READ_RACE_ROUNDS:-12}"
}

# Issue 34 §1 across processes: an app process starts recording into a finished journal
# while `obsreplay export` reads its first session; every export must equal the one made
# before any recording, and once the last recording has closed on its own, a read leaves
# no side file.
#   read_beside_recording ROUNDS
read_beside_recording() {
    local rounds="$1" bin dir journal before after recorder round mismatches=0
    swift build --product JournalStress >/dev/null
    swift build --product obsreplay >/dev/null
    bin="$(swift build --show-bin-path)"
    dir="$(mktemp -d)"
    journal="$dir/app.sqlite"
    "$bin/JournalStress" record "$journal" finished 50000 >/dev/null
    before="$("$bin/obsreplay" export "$journal" --what events --format csv --session 1 | cksum)"
    for ((round = 1; round <= rounds; round++)); do
        "$bin/JournalStress" record "$journal" "new $round" 30000 >/dev/null &
        recorder=$!
        sleep "0.0$((round % 10))"
        after="$("$bin/obsreplay" export "$journal" --what events --format csv --session 1 | cksum)"
        wait "$recorder"
        [[ "$after" == "$before" ]] || mismatches=$((mismatches + 1))
    done
    "$bin/JournalStress" record "$journal" last 100 >/dev/null
    "$bin/obsreplay" diagnose "$journal" --all >/dev/null || true
    local left
    left="$(cd "$dir" && ls)"
    rm -rf "$dir"
    echo "reader beside a recording process: $rounds rounds, $mismatches exports differed, files left: $(echo $left)"
    if ((mismatches > 0)) || [[ "$left" != "app.sqlite" ]]; then
        echo "reliability: a read beside a recording process lost rows or left side files" >&2
        exit 1
    fi
}

case "$mode" in
ci)
    # swift test runs 200 mutation cases so it stays a developer's every-change command;
    # CI runs the 1,000-case form here.
    step "mutation harness, 1,000 cases"
    swift build --build-tests
    harness "mutation harness" MutationTests OBSREPLAY_MUTATION_CASES=1000

    step "integer extremes: every integer column at Int64's edges through every command"
    harness "integer-extremes harness" IntegerExtremeTests OBSREPLAY_INTEGER_EXTREMES=all

    step "200,000 empty sessions through every whole-journal command"
    harness "many-sessions test" everyWholeJournalCommandIsBoundedOnManyEmptySessions OBSREPLAY_MANY_SESSIONS=200000

    step "readers' harness: schema-1 upgrades, the app's own database, non-UTF-8 names"
    reads

    step "soak, 5 seconds"
    swift build --product JournalStress
    "$(swift build --show-bin-path)/JournalStress" soak --seconds 5 --threads 8

    step "field corpus under CPU load: correct twins 20 runs each, buggy apps 2 runs each"
    tools/scripts/field-corpus-load.sh

    step "ThreadSanitizer: $tsan_filter"
    start=$SECONDS
    swift build --build-tests --sanitize=thread --scratch-path .build/tsan
    tsan swift test --skip-build --sanitize=thread --scratch-path .build/tsan --filter "$tsan_filter"
    step "ThreadSanitizer: soak, 5 seconds"
    # Races only: TSan's shadow memory makes RSS say nothing about the journal's memory.
    tsan "$(swift build --sanitize=thread --scratch-path .build/tsan --show-bin-path)/JournalStress" soak --seconds 5 --threads 8 --no-memory-check
    echo "ThreadSanitizer steps: $((SECONDS - start)) s"
    ;;
long)
    export RELIABILITY_FIGURES=1
    swift build --build-tests
    figures() { grep -E '^(fault matrix|crash|full disk|mutation harness|soak)|^(✔|✘) Test run' || true; }

    step "fault matrix"
    swift test --skip-build --filter FaultMatrixTests 2>&1 | figures
    step "kill -9, ${CRASH_TRIALS:-200} trials"
    JOURNAL_CRASH_TRIALS="${CRASH_TRIALS:-200}" swift test --skip-build --filter CrashSafetyTests 2>&1 | figures
    step "full disk, ${FULL_DISK_TRIALS:-40} limits and a tmpfs"
    JOURNAL_FULL_DISK_TRIALS="${FULL_DISK_TRIALS:-40}" swift test --skip-build --filter FullDiskTests 2>&1 | figures
    step "journal removed or replaced, two processes, hostile values"
    swift test --skip-build --filter 'JournalReplacedTests|TwoProcessTests|HostileValueTests|HardeningRegressionTests' 2>&1 | figures
    step "mutation harness, ${MUTATION_CASES:-20000} cases"
    if ! OBSREPLAY_MUTATION_CASES="${MUTATION_CASES:-20000}" OBSREPLAY_MUTATION_SEED="${MUTATION_SEED:-20261129}" \
        swift test --skip-build --filter MutationTests 2>&1 | figures; then
        # A crash in process ends the run before the test can name the case.
        echo "last case started: $(cat "${TMPDIR:-/tmp}/obsreplay-mutation-current-case.txt" 2>/dev/null)"
        exit 1
    fi
    step "readers' harness: schema-1 upgrades, the app's own database, non-UTF-8 names"
    reads
    step "soak, ${SOAK_SECONDS:-60} seconds"
    "$(swift build --show-bin-path)/JournalStress" soak --seconds "${SOAK_SECONDS:-60}" --threads 8
    ;;
reads)
    swift build --build-tests
    step "readers' harness: schema-1 upgrades, the app's own database, non-UTF-8 names"
    reads
    ;;
--help|-h)
    echo "usage: tools/scripts/reliability.sh ci|long|reads   (RELIABILITY.md describes them)"
    ;;
*)
    echo "usage: tools/scripts/reliability.sh ci|long|reads" >&2
    exit 64
    ;;
esac
