"""docs/FLEET.md, run: hundreds of JSONL findings exports aggregated in DuckDB give the same
per-fingerprint counts as `obsreplay diagnose DIR --group-by fingerprint`.

Usage: fleet_duckdb_check.py OBSREPLAY WORKDIR REPO_ROOT
"""
import json
import os
import shutil
import subprocess
import sys

import duckdb

obsreplay, work = sys.argv[1:3]
scenarios = ["music-player", "video-toolbar", "upload-progress", "stretchy-header"]
sources = []
for scenario in scenarios:
    for variant in ("buggy", "fixed"):
        path = os.path.join(work, f"{scenario}-{variant}.sqlite")
        subprocess.run([obsreplay, "demo", "--journal", path, "--scenario", scenario, "--variant", variant],
                       check=True, stdout=subprocess.DEVNULL)
        sources.append(path)
# 240 journals, as a UI-test suite would leave them: a different mix of apps in each.
fleet = os.path.join(work, "journals")
exports = os.path.join(work, "exports")
os.makedirs(fleet)
os.makedirs(exports)
for index in range(240):
    source = sources[(index * 7 + index // 8) % len(sources)]
    shutil.copyfile(source, os.path.join(fleet, f"run-{index:03}.sqlite"))
    subprocess.run([obsreplay, "export", os.path.join(fleet, f"run-{index:03}.sqlite"), "--what", "findings",
                    "--format", "jsonl", "-o", os.path.join(exports, f"run-{index:03}.jsonl")], check=True)

grouped = subprocess.run([obsreplay, "diagnose", fleet, "--group-by", "fingerprint", "--json", "--fail-on", "never"],
                         cwd=work, capture_output=True, text=True, check=True)
tool = {group["fingerprint"]: (group["occurrences"], group["sessions"], group["journals"])
        for group in json.loads(grouped.stdout)}

rows = duckdb.sql(f"""
    SELECT fingerprint, count(*) AS occurrences,
           count(DISTINCT filename || '#' || session_id) AS sessions,
           count(DISTINCT filename) AS journals
    FROM read_json_auto('{exports}/*.jsonl', filename = true)
    GROUP BY fingerprint
""").fetchall()
engine = {fingerprint: (occurrences, sessions, journals) for fingerprint, occurrences, sessions, journals in rows}
assert engine == tool, f"DuckDB {engine}\nobsreplay {tool}"
print(f"fleet: {len(os.listdir(exports))} exports, {len(engine)} fingerprints, DuckDB == --group-by fingerprint")
