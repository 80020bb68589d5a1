"""README section 5, run: every documented SQL view of a journal the recorder wrote gives
the same rows in the sqlite3 shell and in Datasette, and they agree with obsreplay.

From schema 5 on the recorder packs events into blocks of JSON text (schema 6: `event_packs`,
schema 5's `event_blocks` still read) and `events` is a view unpacking them, so this is where a
view that only works on one SQLite build, or not with Datasette's connection settings, would
show up. The demo journal is checked as the recorder wrote it (packs), and again after
schema 5's blocks are added to it for a session of its own: a copy of its first session
written in the old body.

Usage: views_check.py OBSREPLAY WORKDIR REPO_ROOT
"""
import asyncio
import json
import os
import sqlite3
import subprocess
import sys

from datasette.app import Datasette

obsreplay, work = sys.argv[1:3]
journal = os.path.join(work, "demo.sqlite")
subprocess.run([obsreplay, "demo", "--journal", journal], check=True, stdout=subprocess.DEVNULL)


def shell(sql, journal=journal):
    """Rows of `sql` from the sqlite3 shell, read-only, as lists."""
    result = subprocess.run(["sqlite3", "-readonly", "-json", journal, sql], capture_output=True, text=True, check=True)
    return [list(row.values()) for row in json.loads(result.stdout)] if result.stdout.strip() else []


def require(condition, message):
    if not condition:
        sys.exit(f"views_check: {message}")


# The check is about the packed path: the recorder must have written packs and no rows.
packs, blocks, rows = shell("SELECT (SELECT count(*) FROM event_packs), (SELECT count(*) FROM event_blocks), "
                            "(SELECT count(*) FROM event_rows)")[0]
require(packs > 0 and blocks == 0 and rows == 0,
        f"expected events in packs only, found {packs} packs, {blocks} blocks and {rows} rows")

queries = {
    "events": "SELECT * FROM events ORDER BY session_id, seq",
    "event_log": "SELECT * FROM event_log ORDER BY session_id, seq",
    "registration_log": "SELECT * FROM registration_log ORDER BY session_id, id",
    "session_summary": "SELECT * FROM session_summary ORDER BY id",
    "channel_names": "SELECT * FROM channel_names ORDER BY session_id, id",
    "object_names": "SELECT * FROM object_names ORDER BY session_id, id",
    "call_site_names": "SELECT * FROM call_site_names ORDER BY id",
}


async def datasette_rows(journal):
    datasette = Datasette([journal], settings={"max_returned_rows": 1_000_000, "sql_time_limit_ms": 60_000})
    await datasette.invoke_startup()
    result = {}
    for name, sql in queries.items():
        name_in_url = os.path.splitext(os.path.basename(journal))[0]
        response = await datasette.client.get(f"/{name_in_url}.json", params={"sql": sql, "_shape": "arrays"})
        require(response.status_code == 200, f"Datasette answered {response.status_code} for {name}: {response.text[:300]}")
        body = response.json()
        require(not body.get("truncated"), f"Datasette truncated {name}")
        result[name] = body["rows"]
    return result


def check(journal, what):
    """The views of `journal` in the sqlite3 shell, in Datasette and by obsreplay agree."""
    seen = asyncio.run(datasette_rows(journal))
    for name, sql in queries.items():
        expected = shell(sql, journal)
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
    print(f"views_check: {what}: {len(queries)} views, {len(log)} events: "
          "the sqlite3 shell, Datasette and obsreplay agree")


check(journal, f"as recorded, {packs} packs")

# Schema 5's blocks next to schema 6's packs: session 1's packs rewritten as event_blocks
# rows in the old body (built by SQLite's json_array from the view), the triggers put back.
mixed = os.path.join(work, "mixed.sqlite")
with sqlite3.connect(journal) as source, sqlite3.connect(mixed) as target:
    source.backup(target)
database = sqlite3.connect(mixed)
triggers = [sql for (sql,) in database.execute("SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'event_packs'")]
database.executescript("DROP TRIGGER event_packs_no_update; DROP TRIGGER event_packs_no_delete;")
columns = ", ".join(["seq", "time_ns", "kind", "thread", "is_main", "channel_id", "registration_id", "owner_id",
                     "other_registration_id", "call_site_id", "scope_id", "depth", "live_count", "duration_ns",
                     "is_prior", "old_value", "new_value", "reason", "detail", "main_queue", "cpu_ns", "waits",
                     "change_seq"])
database.execute(f"""
    INSERT INTO event_blocks (session_id, first_seq, last_seq, event_count, body)
    SELECT p.session_id, p.first_seq, p.first_seq + p.event_count - 1, p.event_count,
           (SELECT json_group_array(json_array({columns})) FROM (
              SELECT * FROM events e WHERE e.session_id = p.session_id
              AND e.seq BETWEEN p.first_seq AND p.first_seq + p.event_count - 1 ORDER BY e.seq))
    FROM event_packs p WHERE p.session_id = 1""")
database.execute("DELETE FROM event_packs WHERE session_id = 1")
for trigger in triggers:
    database.execute(trigger)
database.commit()
database.close()
blocks, packs = shell("SELECT (SELECT count(*) FROM event_blocks), (SELECT count(*) FROM event_packs)", mixed)[0]
require(blocks > 0 and packs > 0, f"expected blocks and packs, found {blocks} blocks and {packs} packs")
check(mixed, f"{blocks} schema-5 blocks and {packs} packs")
