#!/usr/bin/env bash
# Renders obsreplay's HTML report in a real browser (headless Chromium driven by Playwright
# for Python) and checks it as a person would use it: the demo's music-player bug visible
# without zooming, findings that zoom to what they cite, missed marks, keyboard, no
# JavaScript errors (tools/scripts/report-browser-check.py says what is checked).
#
#   tools/scripts/report-browser-check.sh [OUT_DIR]     (default .build/report-check)
#
# Installs what is missing: Debian's `chromium` package (as root, like CI) and PyPI's
# `playwright` (pip; `playwright install` is never run: it drives Debian's Chromium).
# Checks the JavaScript's syntax with `node --check` when Node is available.
# Writes the journals and reports into OUT_DIR, the screenshots of each state into
# .build/report-screenshots/ (CI artifacts).
set -euo pipefail
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
    sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
    exit 0
fi
cd "$(dirname "$0")/../.."
out="${1:-.build/report-check}"
shots=.build/report-screenshots
mkdir -p "$out" "$shots"

if command -v node >/dev/null 2>&1; then
    node --check Sources/JournalReport/Resources/report.js
    echo "report-browser-check: report.js passes node --check"
fi

chromium="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$chromium" ]; then
    echo "report-browser-check: installing Debian's chromium package"
    started=$SECONDS
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >"$out/apt.log" 2>&1; }; then
        echo "report-browser-check: FAILED: could not install chromium from Debian's packages (see $out/apt.log)" >&2
        tail -5 "$out/apt.log" >&2 || true
        exit 1
    fi
    chromium="$(command -v chromium || true)"
    if [ -z "$chromium" ]; then
        echo "report-browser-check: FAILED: the chromium package installed no chromium command" >&2
        exit 1
    fi
    echo "report-browser-check: chromium installed in $((SECONDS - started)) s"
fi
echo "report-browser-check: $("$chromium" --version 2>/dev/null || echo "$chromium")"
if ! python3 -c 'import playwright' 2>/dev/null; then
    echo "report-browser-check: installing playwright from PyPI"
    if ! python3 -m pip install --quiet playwright >"$out/pip.log" 2>&1; then
        echo "report-browser-check: FAILED: could not install playwright (see $out/pip.log)" >&2
        tail -5 "$out/pip.log" >&2 || true
        exit 1
    fi
fi

swift build --product obsreplay >/dev/null
swift build --product ReportSample >/dev/null
bin="$(swift build --show-bin-path)"

"$bin/ReportSample" showcase "$out/showcase.sqlite"
"$bin/ReportSample" synthetic "$out/large.sqlite" 100000
"$bin/obsreplay" report "$out/showcase.sqlite" -o "$out/showcase.html" >/dev/null
"$bin/obsreplay" report "$out/large.sqlite" -o "$out/large.html" >/dev/null
# The demo as a new user runs it: real timings, events clustered after the setup.
rm -f "$out"/demo.sqlite* "$out/demo.html"
"$bin/obsreplay" demo --journal "$out/demo.sqlite" >/dev/null || true
"$bin/obsreplay" report "$out/demo.sqlite" --all -o "$out/demo.html" >/dev/null

python3 tools/scripts/report-browser-check.py --chromium "$chromium" --shots "$shots" \
    --demo "$out/demo.html" --showcase "$out/showcase.html" --large "$out/large.html"
