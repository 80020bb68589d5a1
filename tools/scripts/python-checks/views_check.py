"""README section 5, run: every documented SQL view of a journal the recorder wrote gives
the same rows in the sqlite3 shell and in Datasette, and they agree with obsreplay.

From schema 5 on the recorder packs events into `event_blocks` (JSON text) and `events` is a
view unpacking them, so this is where a view that only works on one SQLite build, or not
with Datasette's connection settings, would show up.

Usage: views_check.py OBSREPLAY WORKDIR REPO_ROOT
"""
import asyncio
import json
import os
import subprocess
import sys

from datasette.app import Datasette

obsreplay, work = sys.argv[1:3]
journal = os.path.join(work, "demo.sqlite")
subprocess.run([obsreplay, "demo", "--journal", journal], check=True, stdout=subprocess.DEVNULL)


def shell(sql):
    """Rows of `sql` from the sqlite3 shell, read-only, as lists."""
    result = subprocess.run(["sqlite3", "-readonly", "-json", journal, sql], capture_output=True, text=True, check=True)
    return [list(row.values()) for row in json.loads(result.stdout)] if result.stdout.strip() else []


def require(condition, message):
    if not condition:
        sys.exit(f"views_check: {message}")


# The check is about the packed path: the recorder must have written blocks and no rows.
blocks, rows = shell("SELECT (SELECT count(*) FROM event_blocks), (SELECT count(*) FROM event_rows)")[0]
require(blocks > 0 and rows == 0, f"expected events in blocks only, found {blocks} blocks and {rows} rows")

queries = {
    "events": "SELECT * FROM events ORDER BY session_id, seq",
    "event_log": "SELECT * FROM event_log ORDER BY session_id, seq",
    "registration_log": "SELECT * FROM registration_log ORDER BY session_id, id",
    "session_summary": "SELECT * FROM session_summary ORDER BY id",
    "channel_names": "SELECT * FROM channel_names ORDER BY session_id, id",
    "object_names": "SELECT * FROM object_names ORDER BY session_id, id",
    "call_site_names": "SELECT * FROM call_site_names ORDER BY id",
}


async def datasette_rows():
    datasette = Datasette([journal], settings={"max_returned_rows": 1_000_000, "sql_time_limit_ms": 60_000})
    await datasette.invoke_startup()
    result = {}
    for name, sql in queries.items():
        response = await datasette.client.get("/demo.json", params={"sql": sql, "_shape": "arrays"})
        require(response.status_code == 200, f"Datasette answered {response.status_code} for {name}: {response.text[:300]}")
        body = response.json()
        require(not body.get("truncated"), f"Datasette truncated {name}")
        result[name] = body["rows"]
    return result


seen = asyncio.run(datasette_rows())
for name, sql in queries.items():
    expected = shell(sql)
    require(len(expected) > 0, f"{name} is empty in the sqlite3 shell")
    require(seen[name] == expected, f"{name}: Datasette's {len(seen[name])} rows differ from the sqlite3 shell's {len(expected)}")

# The views agree with obsreplay: each session's event count, every event's seq, kind and
# values (event_log's columns 0, 1, 3, 15, 16: session_id, seq, kind, old_value, new_value).
sessions = json.loads(subprocess.run([obsreplay, "sessions", journal, "--json"], capture_output=True, text=True,
                                     check=True).stdout)
summary = {row[0]: row[7] for row in seen["session_summary"]}
require(summary == {session["id"]: session["events"] for session in sessions},
        f"session_summary.events {summary} differ from obsreplay sessions")
exported = subprocess.run([obsreplay, "export", journal, "--what", "events", "--format", "jsonl"],
                          capture_output=True, text=True, check=True).stdout.splitlines()
log = [(row[0], row[1], row[3], row[15], row[16]) for row in seen["event_log"]]
require(len(exported) == len(log), f"event_log has {len(log)} rows, obsreplay exports {len(exported)} events")
for line, row in zip(exported, log):
    event = json.loads(line)
    mine = (event["session_id"], event["seq"], event["kind"], event["old_value"], event["new_value"])
    require(mine == row, f"event_log row {row} differs from obsreplay's {line[:200]}")
print(f"views_check: {len(queries)} views, {len(log)} events in {blocks} blocks: "
      "the sqlite3 shell, Datasette and obsreplay agree")
