"""docs/FLEET.md, run as written: its `sh` blocks with obsreplay on the PATH over 240 journals
from four hosts (the per-machine block once per journal), its DuckDB queries in DuckDB, its
ClickHouse statements in chDB and its Spark block in pyspark, each result checked against
what obsreplay itself computes (`diagnose --group-by fingerprint --json`, `export --what
deliveries`).

The 240 journals are copies of eight demo journals, each then made a journal of its own as
a fleet's would be: a new id, one of four hosts (`ci-runner-1` to `ci-runner-4`: names with
dashes) and a CI run shared by two journals (two journals of one run must not collide).

Usage: fleet_recipes_check.py OBSREPLAY WORKDIR REPO_ROOT
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import uuid

if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
    print(__doc__)
    sys.exit(0)

import chdb.session
import duckdb

obsreplay, work, root = sys.argv[1:4]
JOURNALS = 240
CUMULATIVE = [1, 3, 6, 10, 15, 21, 28, 36]


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
spark_blocks = [text for section, language, text in recipes if language == "python" and section.startswith("Spark")]
assert len(shell) == 3 and len(duck) == 3 and len(clickhouse) == 1 and len(spark_blocks) == 1, \
    [(s, l) for s, l, _ in recipes]
assert not [s for s, language, _ in recipes if language not in ("sh", "sql", "text", "python")], "a block this check does not run"

# obsreplay on the PATH, as the page's commands call it.
bin_dir = os.path.join(work, "bin")
os.makedirs(bin_dir)
os.symlink(os.path.abspath(obsreplay), os.path.join(bin_dir, "obsreplay"))
env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"])

sources = []
for scenario in ["music-player", "video-toolbar", "upload-progress", "stretchy-header"]:
    for variant in ("buggy", "fixed"):
        path = os.path.join(work, f"{scenario}-{variant}.sqlite")
        subprocess.run([obsreplay, "demo", "--journal", path, "--scenario", scenario, "--variant", variant],
                       check=True, stdout=subprocess.DEVNULL)
        sources.append(path)
fleet_dir = os.path.join(work, "ui-test-journals")
os.makedirs(fleet_dir)
for index in range(JOURNALS):
    path = os.path.join(fleet_dir, f"run-{index:03}.sqlite")
    # Source k of 8 for k + 1 journals in every 36: each fingerprint in a different number
    # of sessions, so the order by severity, then sessions, is tested.
    shutil.copyfile(sources[next(k for k, top in enumerate(CUMULATIVE) if index % 36 < top)], path)
    host = f"ci-runner-{index % 4 + 1}"
    with sqlite3.connect(path) as db:
        db.execute("UPDATE journal SET id = ?", (uuid.uuid4().hex,))
        db.execute("UPDATE sessions SET host = ?, run = ?", (host, str(5000 + index // 2)))
    db.close()


def run_line(line, cwd, **extra):
    return subprocess.run(["bash", "-c", line], cwd=cwd, env=dict(env, **extra), capture_output=True, text=True)


def run_block(text, cwd=work, **extra):
    """Runs each command line of a block with bash in `cwd`; every one must exit 0 and draw no
    progress line (standard error is not a terminal)."""
    outputs = []
    for line in text.split("\n"):
        if not line.strip() or line.startswith("#"):
            continue
        result = run_line(line, cwd, **extra)
        assert result.returncode == 0, f"{line}\nexit {result.returncode}\n{result.stdout}\n{result.stderr}"
        assert "\r" not in result.stderr, result.stderr
        outputs.append(result.stdout)
    return outputs


# Block 1: one machine reads them all; a baseline written quietly, then nothing new.
grouped_text, baseline_output, github = run_block(shell[0])
assert "distinct findings" in grouped_text.splitlines()[-1], grouped_text
assert baseline_output == "", baseline_output
assert github.splitlines() == [line for line in github.splitlines() if line.startswith("::notice ")], github
assert "0 findings" in github and "baselined, 0 new" in github, github
grouped = subprocess.run([obsreplay, "diagnose", fleet_dir, "--group-by", "fingerprint", "--json", "--fail-on", "never"],
                         cwd=work, capture_output=True, text=True, check=True)
groups = json.loads(grouped.stdout)
tool = [(g["fingerprint"], g["code"], g["name"], g["severity"], g["occurrences"], g["sessions"], g["journals"])
        for g in groups]
assert groups[0]["total_journals"] == JOURNALS, groups[0]

# Block 2, on each machine: here once per journal, run.sqlite being that journal.
for index in range(JOURNALS):
    shutil.copyfile(os.path.join(fleet_dir, f"run-{index:03}.sqlite"), os.path.join(work, "run.sqlite"))
    run_block(shell[1])
tree = {}
for table in ("sessions", "findings", "call_sites"):
    files = sorted(os.path.relpath(os.path.join(d, f), work) for d, _, fs in os.walk(os.path.join(work, "fleet", table))
                   for f in fs)
    assert len(files) == JOURNALS, (table, len(files))
    assert {path.split("/")[2] for path in files} == {f"ci-runner-{n}" for n in range(1, 5)}, files[:4]
    for path in files:
        tree[path] = open(os.path.join(work, path), "rb").read()
assert not os.path.exists(os.path.join(work, "fleet", "events")), "events only on request"

# The same journal again: refused, the file there unchanged.
shutil.copyfile(os.path.join(fleet_dir, "run-000.sqlite"), os.path.join(work, "run.sqlite"))
again = run_line(shell[1].strip(), work)
assert again.returncode == 2 and "there already" in again.stderr, (again.returncode, again.stderr)
assert all(open(os.path.join(work, path), "rb").read() == data for path, data in tree.items())

# Block 3: one export of them all, in another folder: the same files, byte for byte.
all_dir = os.path.join(work, "all")
os.makedirs(all_dir)
os.symlink(fleet_dir, os.path.join(all_dir, "ui-test-journals"))
run_block(shell[2], cwd=all_dir)
for path, data in tree.items():
    assert open(os.path.join(all_dir, path), "rb").read() == data, path

# What the exports hold, read in plain Python: the reference for examples and call sites.
exported = []
for path in sorted(tree):
    if path.startswith("fleet/findings/"):
        rows = [json.loads(line) for line in tree[path].decode().splitlines()]
        assert all(row["host"] == path.split("/")[2] and path.endswith(row["journal_id"] + ".jsonl") for row in rows), path
        exported += rows
assert len(exported) == sum(row[4] for row in tool), len(exported)
examples = {}
for finding in exported:
    for key in ("owners", "call_sites", "seqs"):
        assert isinstance(finding[key], list), (key, finding)
    assert "evidence" not in finding and "fix" not in finding, finding
    best = examples.get(finding["fingerprint"])
    if best is None or finding["finding_id"] < best[0]:
        examples[finding["fingerprint"]] = (finding["finding_id"], finding["message"])
examples = {key: message for key, (_, message) in examples.items()}
call_sites = {}
for finding in exported:
    for site in finding["call_sites"]:
        call_sites[site] = call_sites.get(site, 0) + 1

# Deliveries per call site from the full deliveries export: the reference for call_sites.
subprocess.run([obsreplay, "export", fleet_dir, "--what", "deliveries", "--format", "jsonl", "-o",
                os.path.join(work, "deliveries.jsonl")], check=True)
sums = {}
for line in open(os.path.join(work, "deliveries.jsonl"), encoding="utf-8"):
    row = json.loads(line)
    if row["kind"] != "delivered" or row["call_site"] is None:
        continue
    entry = sums.setdefault(row["call_site"], {"deliveries": 0, "over": 0, "max": 0, "total": 0, "timed": 0})
    entry["deliveries"] += 1
    if row["duration_ns"] is not None:
        entry["timed"] += 1
        entry["total"] += row["duration_ns"]
        entry["max"] = max(entry["max"], row["duration_ns"])
        entry["over"] += row["duration_ns"] > 16_000_000
expected_slowest = sorted(
    ((site, e["deliveries"], e["over"], e["max"] / 1e6, e["total"] / e["timed"] / 1e6 if e["timed"] else None)
     for site, e in sums.items()),
    key=lambda row: (-row[3], row[0]))[:20]


def close(a, b):
    return (a is None and b is None) or abs(a - b) <= 1e-9 * max(1.0, abs(b))


def check_groups(engine, rows):
    """rows: (fingerprint, code, name, severity, occurrences, sessions, journals, example), in the engine's order."""
    got = [tuple(row[:4]) + tuple(int(value) for value in row[4:7]) for row in rows]
    assert got == tool, f"{engine} {got[:5]}\nobsreplay {tool[:5]}"
    got_examples = {row[0]: row[7] for row in rows}
    assert got_examples == examples, f"{engine}: examples differ"


# DuckDB, the page's queries verbatim, in WORKDIR (the queries name files relative to it).
os.chdir(work)
check_groups("DuckDB", duckdb.sql(duck[0]).fetchall())
by_site = duckdb.sql(duck[1]).fetchall()
expected_sites = sorted(call_sites.items(), key=lambda item: (-item[1], item[0]))[:20]
assert by_site == expected_sites, f"DuckDB {by_site}\nPython {expected_sites}"
slowest = duckdb.sql(duck[2]).fetchall()
assert [row[:3] for row in slowest] == [row[:3] for row in expected_slowest], f"DuckDB {slowest}\nPython {expected_slowest}"
assert all(close(a[3], b[3]) and close(a[4], b[4]) for a, b in zip(slowest, expected_slowest)), (slowest, expected_slowest)

# ClickHouse (chDB), the statements verbatim, one at a time, in one session.
session = chdb.session.Session(os.path.join(work, "chdb"))
statements = [statement.strip() for statement in clickhouse[0].split(";") if statement.strip()]
assert len(statements) == 3, statements
for statement in statements[:2]:
    session.query(statement)
check_groups("ClickHouse", json.loads(str(session.query(statements[2], "JSONCompact")))["data"])
found_hosts = json.loads(str(session.query("SELECT DISTINCT host FROM findings ORDER BY host", "JSONCompact")))["data"]
assert found_hosts == [[f"ci-runner-{n}"] for n in range(1, 5)], found_hosts
session.cleanup()

# Spark (pyspark), the block verbatim; its `groups` is the result. No progress bars in the log.
os.environ["PYSPARK_SUBMIT_ARGS"] = "--conf spark.ui.showConsoleProgress=false pyspark-shell"
namespace = {}
exec(compile(spark_blocks[0], "FLEET.md (Spark)", "exec"), namespace)
check_groups("Spark", [tuple(row) for row in namespace["groups"].collect()])
namespace["spark"].stop()

print(f"fleet recipes: {len(shell)} sh blocks, {len(duck)} DuckDB queries, {len(statements)} ClickHouse statements, "
      f"1 Spark block over {JOURNALS} journals; {len(tool)} fingerprints agree with --group-by fingerprint")
