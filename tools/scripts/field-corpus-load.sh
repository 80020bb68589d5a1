#!/usr/bin/env bash
# The field corpus (Sources/FieldCorpus) under CPU load from other processes: every correct
# twin RUNS times (default 20) and every buggy app BUGGY_RUNS times (default 2), each run in
# its own FieldCorpusRunner process, while one busy loop per core competes for the CPU.
# Prints the false alarms (twin runs with any finding at warning or above) and the recall
# (buggy runs diagnosed with every code their bug must get); exits 1 unless both are perfect.
# APPS=name,name runs only those apps.
set -euo pipefail
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
    echo "usage: [RUNS=20] [BUGGY_RUNS=2] [JOBS=4] [APPS=name,name] tools/scripts/field-corpus-load.sh"
    echo "The field corpus's correct twins RUNS times and buggy apps BUGGY_RUNS times under CPU load"
    echo "(only the apps named in APPS, if set);"
    echo "prints false alarms and recall, exits 1 unless both are perfect."
    exit 0
fi
cd "$(dirname "$0")/../.."

swift build --build-tests 2>&1 | grep -E 'error|warning: ' || true
burners=()
stop_burners() {
    local pid
    for pid in "${burners[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap stop_burners EXIT
for _ in $(seq "$(nproc)"); do
    yes >/dev/null &
    burners+=("$!")
done

start=$SECONDS
status=0
FIELD_CORPUS_RUNS="${RUNS:-20}" FIELD_CORPUS_BUGGY_RUNS="${BUGGY_RUNS:-2}" FIELD_CORPUS_JOBS="${JOBS:-4}" \
    FIELD_CORPUS_APPS="${APPS:-}" \
    swift test --skip-build --filter fieldCorpusUnderLoad 2>&1 | grep -E '^field-corpus|^(✔|✘) Test run' || status=1
echo "field-corpus-load: $((SECONDS - start)) s"
exit "$status"
