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

# The command plugin.
"$bin/obsreplay" demo --journal "$work/demo.sqlite" >/dev/null
expected="$("$bin/obsreplay" --version)"
got="$(swift package obsreplay --version 2>/dev/null | grep '^obsreplay ' || true)"
[ "$got" = "$expected" ] || fail "swift package obsreplay --version printed '$got', not '$expected'"
swift package obsreplay diagnose "$work/demo.sqlite" --session 7 --format short >"$work/clean.out" 2>"$work/clean.err" \
    || fail "a session without errors failed: $(cat "$work/clean.err")"
grep -q '^Sources/DemoApps/StretchyHeaderScenario.swift:94: warning: \[OJ005\] ' "$work/clean.out" \
    || fail "the plugin's output is not obsreplay's: $(cat "$work/clean.out")"
if swift package obsreplay diagnose "$work/demo.sqlite" --session 1 --format short >"$work/bug.out" 2>"$work/bug.err"; then
    fail "findings at or above --fail-on did not fail 'swift package obsreplay diagnose'"
fi
grep -q 'obsreplay exited with status 1 (findings at or above --fail-on)' "$work/bug.err" \
    || fail "the plugin did not say why it failed: $(cat "$work/bug.err")"

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
