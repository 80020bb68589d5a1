"""Exported CSV loads with numbers as numbers in pandas and DuckDB; only text that a
spreadsheet would evaluate carries a leading quote.

Usage: csv_types_check.py OBSREPLAY WORKDIR REPO_ROOT
"""
import csv
import re
import subprocess
import sys

import duckdb
import pandas

obsreplay, work = sys.argv[1:3]
subprocess.run([obsreplay, "demo"], cwd=work, check=True, stdout=subprocess.DEVNULL)
number = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")

expected = {
    "events": {"session_id": "BIGINT", "seq": "BIGINT", "time_ns": "BIGINT", "thread": "BIGINT", "is_main": "BOOLEAN",
               "depth": "BIGINT"},
    "registrations": {"session_id": "BIGINT", "id": "BIGINT", "owner_id": "BIGINT", "expects_main": "BOOLEAN",
                      "registered_seq": "BIGINT"},
    "deliveries": {"session_id": "BIGINT", "seq": "BIGINT", "duration_ns": "BIGINT", "is_main": "BOOLEAN"},
    "findings": {"session_id": "BIGINT", "count": "BIGINT"},
}
for what, columns in expected.items():
    path = f"{work}/{what}.csv"
    subprocess.run([obsreplay, "export", "obsreplay-demo.sqlite", "--what", what, "--format", "csv", "-o", path],
                   cwd=work, check=True)
    # Nullable types: a column with empty cells (skipped deliveries have no duration) is
    # still integers.
    frame = pandas.read_csv(path, dtype_backend="numpy_nullable")
    for column, kind in columns.items():
        dtype = str(frame[column].dtype)
        wanted = "boolean" if kind == "BOOLEAN" else "Int64"
        assert dtype == wanted, f"{what}.{column}: pandas {dtype}, expected {wanted}"
    types = dict((row[0], row[1]) for row in duckdb.sql(f"DESCRIBE SELECT * FROM read_csv_auto('{path}')").fetchall())
    for column, kind in columns.items():
        assert types[column] == kind, f"{what}.{column}: DuckDB {types[column]}, expected {kind}"
    with open(path, newline="", encoding="utf-8") as handle:
        for row in csv.reader(handle):
            for cell in row:
                if cell.startswith("'"):
                    assert not number.match(cell[1:]), f"{what}: a number was neutralised: {cell!r}"
                    assert cell[1:2] in ("=", "+", "-", "@", "\t", "\r"), f"{what}: stray quote: {cell!r}"
    print(f"csv: {what}: {len(frame)} rows, column types as expected in pandas and DuckDB")
