#!/usr/bin/env bash
# Renders obsreplay's HTML report in a real browser (headless Chromium) and checks it:
# drawn as the data says, not blank, hover/zoom/highlight work, no JavaScript errors.
#
#   tools/report-browser-check.sh [OUT_DIR]     (default .build/report-check)
#
# Installs Debian's `chromium` package when no Chromium is on PATH (as root, like CI).
# Writes into OUT_DIR: the journals, the reports, report-showcase.png,
# report-showcase-finding.png, report-large.png and chromium.log.
set -euo pipefail
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
    sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
    exit 0
fi
cd "$(dirname "$0")/.."
out="${1:-.build/report-check}"
mkdir -p "$out"

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

swift build --product obsreplay >/dev/null
swift build --product report-sample >/dev/null
bin="$(swift build --show-bin-path)"

"$bin/report-sample" showcase "$out/showcase.sqlite"
"$bin/report-sample" synthetic "$out/large.sqlite" 100000
"$bin/obsreplay" report "$out/showcase.sqlite" -o "$out/showcase.html" >/dev/null
"$bin/obsreplay" report "$out/large.sqlite" -o "$out/large.html" >/dev/null

python3 tools/report-browser-check.py --chromium "$chromium" --out "$out" "$out/showcase.html" "$out/large.html"
