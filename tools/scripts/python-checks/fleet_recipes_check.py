"""docs/FLEET.md, run as written: its `sh` blocks with obsreplay on the PATH over 240 journals
(the per-machine block once per journal, with RUN set), its DuckDB queries in DuckDB and its
ClickHouse statements in chDB, each result checked against what obsreplay itself computes.

Usage: fleet_recipes_check.py OBSREPLAY WORKDIR REPO_ROOT
"""
import json
import os
import re
import shutil
import subprocess
import sys

if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
    print(__doc__)
    sys.exit(0)

import chdb.session
import duckdb

obsreplay, work, root = sys.argv[1:4]


def blocks(path):
    """(section heading, language, text) of every fenced block, in order."""
    section, found, current = "", [], None
    for line in open(path, encoding="utf-8").read().split("\n"):
        if current is None and line.startswith("#"):
            section = line.lstrip("#").strip()
        if line.startswith("```"):
            if current is None:
                current = (section, line[3:].strip(), [])
            else:
                found.append((current[0], current[1], "\n".join(current[2])))
                current = None
        elif current is not None:
            current[2].append(line)
    return found


recipes = blocks(os.path.join(root, "docs", "FLEET.md"))
shell = [text for _, language, text in recipes if language == "sh"]
duck = [text for section, language, text in recipes if language == "sql" and section.startswith("DuckDB")]
clickhouse = [text for section, language, text in recipes if language == "sql" and section.startswith("ClickHouse")]
assert len(shell) == 3 and len(duck) == 3 and len(clickhouse) == 1, [(s, l) for s, l, _ in recipes]
assert not [s for s, language, _ in recipes if language not in ("sh", "sql", "text")], "a block this check does not run"

# obsreplay on the PATH, as the page's commands call it.
bin_dir = os.path.join(work, "bin")
os.makedirs(bin_dir)
os.symlink(os.path.abspath(obsreplay), os.path.join(bin_dir, "obsreplay"))
env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"])

# 240 journals, as a UI-test suite would leave them: a different mix of apps in each.
sources = []
for scenario in ["music-player", "video-toolbar", "upload-progress", "stretchy-header"]:
    for variant in ("buggy", "fixed"):
        path = os.path.join(work, f"{scenario}-{variant}.sqlite")
        subprocess.run([obsreplay, "demo", "--journal", path, "--scenario", scenario, "--variant", variant],
                       check=True, stdout=subprocess.DEVNULL)
        sources.append(path)
fleet = os.path.join(work, "ui-test-journals")
os.makedirs(fleet)
for index in range(240):
    shutil.copyfile(sources[(index * 7 + index // 8) % len(sources)], os.path.join(fleet, f"run-{index:03}.sqlite"))


def run_block(text, **extra):
    """Runs each command line of a block with bash in WORKDIR; every one must exit 0."""
    outputs = []
    for line in text.split("\n"):
        if not line.strip() or line.startswith("#"):
            continue
        result = subprocess.run(["bash", "-c", line], cwd=work, env=dict(env, **extra), capture_output=True, text=True)
        assert result.returncode == 0, f"{line}\nexit {result.returncode}\n{result.stdout}\n{result.stderr}"
        outputs.append(result.stdout)
    return outputs


# Block 1: one machine reads them all; a baseline written from the fleet leaves nothing new.
grouped_text, _, github = run_block(shell[0])
assert "distinct findings" in grouped_text.splitlines()[-1], grouped_text
assert github.splitlines() == [line for line in github.splitlines() if line.startswith("::notice ")], github
assert "0 findings" in github and "baselined, 0 new" in github, github
grouped = subprocess.run([obsreplay, "diagnose", fleet, "--group-by", "fingerprint", "--json", "--fail-on", "never"],
                         cwd=work, capture_output=True, text=True, check=True)
tool = {g["fingerprint"]: (g["code"], g["occurrences"], g["sessions"], g["journals"]) for g in json.loads(grouped.stdout)}

# Block 2, on each machine: here once per journal, run.sqlite being that journal.
for index in range(240):
    shutil.copyfile(os.path.join(fleet, f"run-{index:03}.sqlite"), os.path.join(work, "run.sqlite"))
    run_block(shell[1], RUN=f"{index:03}")
for folder in ("findings", "events", "deliveries"):
    assert len(os.listdir(os.path.join(work, folder))) == 240, folder

# Block 3: one export of them all, a journal column first.
run_block(shell[2])
rows = [json.loads(line) for line in open(os.path.join(work, "findings.jsonl"), encoding="utf-8")]
assert rows and list(rows[0])[0] == "journal", rows[:1]
assert len(rows) == sum(occurrences for _, occurrences, _, _ in tool.values()), len(rows)

# What the exports hold, read in plain Python: the reference for the engines.
exported = []
for name in sorted(os.listdir(os.path.join(work, "findings"))):
    for line in open(os.path.join(work, "findings", name), encoding="utf-8"):
        exported.append(json.loads(line))
for finding in exported:
    for key in ("owners", "call_sites", "seqs", "evidence"):
        assert isinstance(finding[key], list), (key, finding)
call_sites = {}
for finding in exported:
    for site in finding["call_sites"]:
        call_sites[site] = call_sites.get(site, 0) + 1
deliveries = {}
for name in sorted(os.listdir(os.path.join(work, "deliveries"))):
    for line in open(os.path.join(work, "deliveries", name), encoding="utf-8"):
        row = json.loads(line)
        if row["kind"] == "delivered" and row["duration_ns"] is not None:
            assert row["call_site"], row  # every delivery names where its callback was registered
            deliveries.setdefault(row["call_site"], []).append(row["duration_ns"])


def p99(values):
    """quantile_cont: linear interpolation between the closest ranks."""
    values = sorted(values)
    position = (len(values) - 1) * 0.99
    low = int(position)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (position - low)


# DuckDB, the page's queries verbatim, in WORKDIR (the queries name files relative to it).
os.chdir(work)
per_fingerprint = duckdb.sql(duck[0]).fetchall()
engine = {row[0]: (row[1], row[4], row[5], row[6]) for row in per_fingerprint}
assert engine == tool, f"DuckDB {engine}\nobsreplay {tool}"
assert [row[5] for row in per_fingerprint] == sorted((row[5] for row in per_fingerprint), reverse=True)
by_site = duckdb.sql(duck[1]).fetchall()
expected_sites = sorted(call_sites.items(), key=lambda item: (-item[1], item[0]))[:20]
assert by_site == expected_sites, f"DuckDB {by_site}\nPython {expected_sites}"
slowest = duckdb.sql(duck[2]).fetchall()
assert slowest and all(site is not None for site, _, _ in slowest), slowest
expected_slowest = sorted(((site, len(d), p99(d) / 1e6) for site, d in deliveries.items()), key=lambda row: (-row[2], row[0]))[:20]
assert [(site, count) for site, count, _ in slowest] == [(site, count) for site, count, _ in expected_slowest], \
    f"DuckDB {slowest}\nPython {expected_slowest}"
assert all(abs(a[2] - b[2]) <= 1e-9 * max(1.0, abs(b[2])) for a, b in zip(slowest, expected_slowest)), (slowest, expected_slowest)

# ClickHouse (chDB), the statements verbatim, one at a time, in one session.
session = chdb.session.Session(os.path.join(work, "chdb"))
statements = [statement.strip() for statement in clickhouse[0].split(";") if statement.strip()]
assert len(statements) == 3, statements
for statement in statements[:2]:
    session.query(statement)
result = session.query(statements[2], "JSONCompact")
table = json.loads(str(result))["data"]
clickhouse_groups = {row[0]: (row[1], int(row[3]), int(row[4]), int(row[5])) for row in table}
assert clickhouse_groups == tool, f"ClickHouse {clickhouse_groups}\nobsreplay {tool}"
hosts = session.query("SELECT DISTINCT host FROM findings", "JSONCompact")
host = subprocess.run(["hostname"], capture_output=True, text=True, check=True).stdout.strip().split("-")[0]
assert json.loads(str(hosts))["data"] == [[host]], str(hosts)
session.cleanup()

print(f"fleet recipes: {len(shell)} sh blocks, {len(duck)} DuckDB queries, {len(statements)} ClickHouse statements "
      f"over 240 journals; {len(tool)} fingerprints agree with --group-by fingerprint")
