#!/usr/bin/env bash
# Packaging checks that need SwiftPM or the toolchain's docc, kept out of `swift test`:
#   the command plugin  `swift package obsreplay ...` runs this package's obsreplay: the same
#                       version, its output, and a non-zero exit when obsreplay's is non-zero
#   the DocC catalogs   Sources/*/Documentation.docc built by the toolchain's `docc` from the
#                       modules' symbol graphs, warnings as errors (an unresolved symbol or
#                       article link fails); archives in .build/docs/. (`swift package
#                       generate-documentation` needs the swift-docc-plugin package, which
#                       this package does not depend on.)
# Usage: tools/scripts/packaging-check.sh [--help]
set -euo pipefail
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
    sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi
cd "$(dirname "$0")/../.."
modules=(ObserverCore ObservationJournal ObservationJournalTesting)
swift build --product obsreplay 2>&1 | tail -1
for module in "${modules[@]}"; do swift build --target "$module" 2>&1 | tail -1; done
bin="$(swift build --show-bin-path)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "packaging check failed: $*" >&2; exit 1; }

# The command plugin. SwiftPM may start the tool with standard input closed (it keeps its
# own for the plugin's messages) and hands what obsreplay writes to either stream to its own
# standard output.
# `swift package obsreplay ARGS` with its output in $work/NAME.out and .err, run again if
# swift-package itself crashed (killed by a signal: status 128 and up; obsreplay's own
# failures make it exit 1), which says nothing of the plugin or obsreplay.
plugin() {
    local name="$1" status attempt
    shift
    for attempt in 1 2 3; do
        status=0
        swift package obsreplay "$@" >"$work/$name.out" 2>"$work/$name.err" || status=$?
        [ "$status" -lt 128 ] && return "$status"
        echo "note: swift-package crashed (status $status) on attempt $attempt: $(grep -m1 'crashed' "$work/$name.err")" >&2
    done
    return "$status"
}
"$bin/obsreplay" demo --journal "$work/demo.sqlite" >/dev/null
expected="$("$bin/obsreplay" --version)"
plugin version --version || true
got="$(grep '^obsreplay ' "$work/version.out" || true)"
[ "$got" = "$expected" ] || fail "swift package obsreplay --version printed '$got', not '$expected'"
plugin clean diagnose "$work/demo.sqlite" --session 7 --format short \
    || fail "a session without errors failed: $(cat "$work/clean.err"); obsreplay printed: $(cat "$work/clean.out")"
grep -q '^Sources/DemoApps/StretchyHeaderScenario.swift:94: warning: \[OJ005\] ' "$work/clean.out" \
    || fail "the plugin's output is not obsreplay's: $(cat "$work/clean.out")"
if plugin bug diagnose "$work/demo.sqlite" --session 1 --format short; then
    fail "findings at or above --fail-on did not fail 'swift package obsreplay diagnose'"
fi
grep -q 'obsreplay exited with status 1 (findings at or above --fail-on)' "$work/bug.err" \
    || fail "the plugin did not say why it failed: $(cat "$work/bug.err"); obsreplay printed: $(cat "$work/bug.out")"

# The DocC catalogs, from the symbol graphs of the built modules.
triple="$(uname -m)-unknown-linux-gnu"
rm -rf .build/docs
mkdir -p .build/docs
for module in "${modules[@]}"; do
    graphs="$work/symbol-graphs/$module"
    mkdir -p "$graphs"
    swift symbolgraph-extract -module-name "$module" -target "$triple" -minimum-access-level public \
        -I "$bin/Modules" -I Sources/CThreadContext/include -I Sources/CEventBatch/include \
        -Xcc "-fmodule-map-file=$bin/CThreadContext.build/module.modulemap" \
        -Xcc "-fmodule-map-file=$bin/CEventBatch.build/module.modulemap" \
        -Xcc "-fmodule-map-file=Sources/CSQLite/module.modulemap" -output-dir "$graphs"
    docc convert "Sources/$module/Documentation.docc" --additional-symbol-graph-dir "$graphs" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.observationjournal.$module" \
        --output-path ".build/docs/$module.doccarchive" --warnings-as-errors >"$work/docc.log" 2>&1 \
        || { cat "$work/docc.log" >&2; fail "docc could not build $module's catalog"; }
    [ -d ".build/docs/$module.doccarchive/data/documentation" ] || fail "no documentation pages for $module"
done
echo "packaging checks: the command plugin runs obsreplay; ${#modules[@]} DocC catalogs built with warnings as errors"
