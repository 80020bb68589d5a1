"""README section 5 and docs/SQL.md, run with the user's tools: every documented table and
view of a journal the recorder wrote gives the same rows in the sqlite3 shell and in
Datasette, and they agree with obsreplay; on a large journal, Datasette's default limits
(1 s per query, 1,000 rows) browse `events` and `event_log`; pandas reads a session with
typed columns, and DuckDB queries that frame with the same types.

Usage: views_check.py OBSREPLAY WORKDIR REPO_ROOT [REPORT_SAMPLE EVENTS]
"""
import asyncio
import json
import os
import subprocess
import sys

import duckdb
import pandas
import sqlite3
from datasette.app import Datasette

obsreplay, work = sys.argv[1:3]
report_sample = sys.argv[4] if len(sys.argv) > 4 else None
large_events = int(sys.argv[5]) if len(sys.argv) > 5 else 0
journal = os.path.join(work, "demo.sqlite")
subprocess.run([obsreplay, "demo", "--journal", journal], check=True, stdout=subprocess.DEVNULL)


def shell(sql, journal=journal):
    """Rows of `sql` from the sqlite3 shell, read-only, as lists."""
    result = subprocess.run(["sqlite3", "-readonly", "-json", journal, sql], capture_output=True, text=True, check=True)
    return [list(row.values()) for row in json.loads(result.stdout)] if result.stdout.strip() else []


def require(condition, message):
    if not condition:
        sys.exit(f"views_check: {message}")


queries = {
    "events": "SELECT * FROM events ORDER BY session_id, seq",
    "event_details": "SELECT * FROM event_details ORDER BY session_id, seq",
    "event_log": "SELECT * FROM event_log ORDER BY session_id, seq",
    "registration_log": "SELECT * FROM registration_log ORDER BY session_id, id",
    "session_summary": "SELECT * FROM session_summary ORDER BY id",
    "channel_names": "SELECT * FROM channel_names ORDER BY session_id, id",
    "object_names": "SELECT * FROM object_names ORDER BY session_id, id",
    "call_site_names": "SELECT * FROM call_site_names ORDER BY id",
}


def database_name(path):
    return os.path.splitext(os.path.basename(path))[0]


async def datasette_rows(journal):
    datasette = Datasette([journal], settings={"max_returned_rows": 1_000_000, "sql_time_limit_ms": 60_000})
    await datasette.invoke_startup()
    result = {}
    for name, sql in queries.items():
        response = await datasette.client.get(f"/{database_name(journal)}.json", params={"sql": sql, "_shape": "arrays"})
        require(response.status_code == 200, f"Datasette answered {response.status_code} for {name}: {response.text[:300]}")
        body = response.json()
        require(not body.get("truncated"), f"Datasette truncated {name}")
        result[name] = body["rows"]
    return result


def check(journal):
    """The tables and views of `journal` in the sqlite3 shell, in Datasette and by obsreplay agree."""
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
    print(f"views_check: {len(queries)} tables and views, {len(log)} events: "
          "the sqlite3 shell, Datasette and obsreplay agree")


def typed_columns(journal):
    """pandas reads one session of `events` with typed columns; DuckDB over that frame too."""
    with sqlite3.connect(f"file:{journal}?mode=ro", uri=True) as connection:
        # The session with the most events: the one a person would look at.
        session = connection.execute(
            "SELECT session_id FROM events GROUP BY session_id ORDER BY count(*) DESC, session_id LIMIT 1").fetchone()[0]
        frame = pandas.read_sql("SELECT * FROM events WHERE session_id = ?", connection, params=(session,),
                                dtype_backend="numpy_nullable")
    integers = ["session_id", "seq", "time_ns", "kind", "thread", "flags", "channel_id", "registration_id",
                "owner_id", "change_back", "duration_ns", "cpu_ns", "live_count", "call_site_id"]
    texts = ["old_value", "new_value", "reason"]
    require(list(frame.columns) == integers[:10] + ["duration_ns", "cpu_ns", "live_count", "call_site_id"] + texts,
            f"events' columns in pandas: {list(frame.columns)}")
    # A column NULL in every row of the session has no type to infer (pandas gives it none).
    present = [column for column in integers + texts if frame[column].notna().any()]
    require(len(present) >= 10, f"too few columns with values in session {session}: {present}")
    for column in integers:
        if column in present:
            require(str(frame[column].dtype) == "Int64", f"pandas reads events.{column} as {frame[column].dtype}")
    for column in texts:
        if column in present:
            require(str(frame[column].dtype) == "string", f"pandas reads events.{column} as {frame[column].dtype}")
    # DuckDB finds `frame` among this function's variables (not from inside a comprehension).
    described = duckdb.sql("DESCRIBE SELECT * FROM frame").fetchall()
    types = {row[0]: row[1] for row in described}
    for column in integers:
        if column in present:
            require(types[column] == "BIGINT", f"DuckDB reads events.{column} as {types[column]}")
    by_kind = duckdb.sql("SELECT kind, count(*) AS n FROM frame GROUP BY kind ORDER BY kind").fetchall()
    expected = shell(f"SELECT kind, count(*) FROM events WHERE session_id = {session} GROUP BY kind ORDER BY kind", journal)
    require([list(row) for row in by_kind] == expected, f"DuckDB's count by kind {by_kind} differs from SQLite's {expected}")
    print(f"views_check: pandas and DuckDB read session {session} ({len(frame)} events) with typed columns")


async def browse_with_defaults(journal):
    """Datasette's default settings (1 s per query) browse the big tables' pages.

    The limit is wall-clock time, and CI shares its two cores with the build: a page whose
    queries were interrupted is asked for again, up to three times in all. A query that
    scans what it should not takes seconds on every try; a busy moment passes."""
    datasette = Datasette([journal])
    await datasette.invoke_startup()
    name = database_name(journal)
    retried = []
    for path in [f"/{name}/events", f"/{name}/events.json", f"/{name}/event_log", f"/{name}/event_log.json",
                 f"/{name}/event_details"]:
        for attempt in range(3):
            response = await datasette.client.get(path)
            require(response.status_code == 200, f"Datasette answered {response.status_code} for {path}: {response.text[:300]}")
            if "SQL Interrupted" not in response.text:
                break
            retried.append(path)
        require("SQL Interrupted" not in response.text, f"{path}: a query ran past Datasette's time limit three times")
    note = f" (asked again after an interrupted query: {', '.join(retried)})" if retried else ""
    print(f"views_check: Datasette's default limits browse events, event_log and event_details of {journal}{note}")


check(journal)
typed_columns(journal)
if report_sample and large_events:
    large = os.path.join(work, "large.sqlite")
    subprocess.run([report_sample, "synthetic", large, str(large_events)], check=True, stdout=subprocess.DEVNULL)
    typed_columns(large)
    asyncio.run(browse_with_defaults(large))
