#!/usr/bin/env bash
# Writes docs/RULES.md from the rule catalog: each rule's `obsreplay diagnose --explain`
# text under an anchor of its own (`#oj001`), the page SARIF results link to (helpUri).
# Run it after changing a rule's text; Tests/ObsReplayCLITests/RulesDocumentTests.swift fails
# while the page and the catalog differ.
# Usage: tools/scripts/rules-doc.sh [--help]
set -euo pipefail
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
    sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi
cd "$(dirname "$0")/../.."
swift build --product obsreplay 2>&1 | tail -1
bin="$(swift build --show-bin-path)/obsreplay"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
{
    echo "# The rule catalog"
    echo
    echo "Every rule of \`obsreplay diagnose\`, as \`obsreplay diagnose --explain CODE\` prints it. SARIF"
    echo "results link here (each rule's \`helpUri\`). Written by \`tools/scripts/rules-doc.sh\` from"
    echo "the rules themselves; a test fails while this page and the catalog differ."
    for code in $("$bin" diagnose --help | grep -o 'OJ[0-9][0-9][0-9]' | sort -u); do
        name="$("$bin" diagnose --explain "$code" | head -1 | cut -d' ' -f2)"
        echo
        echo "<a id=\"$(echo "$code" | tr 'A-Z' 'a-z')\"></a>"
        echo
        echo "## $code $name"
        echo
        echo '```text'
        "$bin" diagnose --explain "$code"
        echo '```'
    done
} >"$out"
chmod 644 "$out"
mv "$out" docs/RULES.md
trap - EXIT
echo "docs/RULES.md: $(grep -c '^## OJ' docs/RULES.md) rules"
