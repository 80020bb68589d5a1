#!/usr/bin/env bash
# Checks that need Python packages from PyPI (jsonschema, pandas, duckdb, chdb, pyspark (with
# Java 17 or later), datasette, junitparser), kept out of `swift test` so it never needs the network. Creates a virtual environment under
# .build/python-checks-venv, installs the packages with pip, builds obsreplay and runs:
#   sarif_check.py        diagnose --format sarif validated against the official SARIF 2.1.0 schema
#   csv_types_check.py    exported CSV loaded by pandas and DuckDB with numeric/boolean column types
#   fleet_recipes_check.py every block of docs/FLEET.md run as written over 240 journals: the
#                         shell commands, the DuckDB queries in DuckDB, the ClickHouse ones in
#                         chDB, the Spark one in pyspark, their rows equal to what obsreplay computes
#   junit_check.py        diagnose --format junit read by junitparser, failures as --fail-on says
#   datasette_settings_check.py  README's Datasette command: every table and view page answers
#   views_check.py        every documented table and view gives the same rows in the sqlite3 shell
#                         and Datasette and agrees with obsreplay; pandas and DuckDB read typed
#                         columns; Datasette's default limits browse a 300,000-event journal
# Usage: tools/scripts/python-checks.sh [--help]
set -euo pipefail
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi
cd "$(dirname "$0")/../.."
venv=.build/python-checks-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check jsonschema pandas duckdb chdb pyspark datasette junitparser
swift build --product obsreplay 2>&1 | tail -1
swift build --product ReportSample 2>&1 | tail -1
bin="$(swift build --show-bin-path)/obsreplay"
sample="$(swift build --show-bin-path)/ReportSample"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for check in sarif_check csv_types_check fleet_recipes_check junit_check datasette_settings_check views_check; do
    mkdir -p "$work/$check"
    extra=()
    [ "$check" = views_check ] && extra=("$sample" 300000)
    "$venv/bin/python" "tools/scripts/python-checks/$check.py" "$bin" "$work/$check" "$PWD" "${extra[@]}"
done
echo "python checks: all passed"
