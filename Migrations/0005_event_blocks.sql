-- ObservationJournal schema 5: events packed in blocks, read through a view named `events`.
--
-- event_blocks  the recorder's events, up to 256 consecutive events of one session per row.
--               body: a JSON array with one array per event, in seq order; an event's array
--               holds schema 4's event columns after session_id, in this order:
--                 [seq, time_ns, kind, thread, is_main, channel_id, registration_id, owner_id,
--                  other_registration_id, call_site_id, scope_id, depth, live_count,
--                  duration_ns, is_prior, old_value, new_value, reason, detail, main_queue,
--                  cpu_ns, waits, change_seq]
--               integers in decimal, text as JSON strings, null for NULL; trailing nulls may
--               be left out. first_seq and last_seq are the seqs of its first and last event,
--               event_count how many it holds.
--               Why: one SQL row per event costs SQLite about 10,000 instructions (a B-tree
--               insert and a 24-column record), which held the recorder near 0.4M events/s
--               whatever the row's shape; a block costs about a fifth of that per event.
-- event_rows    schema 4's `events` table, renamed, rows untouched: the events recorded before
--               this migration stay there (and a journal written by an older release keeps
--               them). The library writes no new rows to it.
-- events        a view: every row of event_rows and every event of every block, with schema 4's
--               columns and their types, so that each query and view written for the `events`
--               table keeps working unchanged in the sqlite3 shell, Datasette or any SQLite
--               with its JSON functions (built in since 3.38, in JSON1 before). Reading events
--               through it parses JSON: about an order of magnitude slower than reading a
--               table; obsreplay decodes blocks itself.
--
-- The views that read `events` are dropped first (a rename rewrites the views that name the
-- renamed table) and recreated last with their schema 4 text; the append-only triggers move
-- with the renamed table; event_blocks gets its own.

DROP VIEW event_log;
DROP VIEW session_summary;

ALTER TABLE events RENAME TO event_rows;

CREATE TABLE event_blocks (
    session_id  INTEGER NOT NULL REFERENCES sessions(id),
    first_seq   INTEGER NOT NULL,
    last_seq    INTEGER NOT NULL,
    event_count INTEGER NOT NULL,
    body        TEXT    NOT NULL,       -- JSON: [[seq, time_ns, kind, ...], ...]
    PRIMARY KEY (session_id, first_seq)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER event_blocks_no_update BEFORE UPDATE ON event_blocks
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER event_blocks_no_delete BEFORE DELETE ON event_blocks
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;

-- Every event as a row of schema 4's `events` table.
CREATE VIEW events AS
SELECT session_id, seq, time_ns, kind, thread, is_main, channel_id, registration_id, owner_id,
       other_registration_id, call_site_id, scope_id, depth, live_count, duration_ns, is_prior,
       old_value, new_value, reason, detail, main_queue, cpu_ns, waits, change_seq
FROM event_rows
UNION ALL
SELECT b.session_id,
       json_extract(j.value, '$[0]') AS seq,
       json_extract(j.value, '$[1]') AS time_ns,
       json_extract(j.value, '$[2]') AS kind,
       json_extract(j.value, '$[3]') AS thread,
       json_extract(j.value, '$[4]') AS is_main,
       json_extract(j.value, '$[5]') AS channel_id,
       json_extract(j.value, '$[6]') AS registration_id,
       json_extract(j.value, '$[7]') AS owner_id,
       json_extract(j.value, '$[8]') AS other_registration_id,
       json_extract(j.value, '$[9]') AS call_site_id,
       json_extract(j.value, '$[10]') AS scope_id,
       json_extract(j.value, '$[11]') AS depth,
       json_extract(j.value, '$[12]') AS live_count,
       json_extract(j.value, '$[13]') AS duration_ns,
       json_extract(j.value, '$[14]') AS is_prior,
       json_extract(j.value, '$[15]') AS old_value,
       json_extract(j.value, '$[16]') AS new_value,
       json_extract(j.value, '$[17]') AS reason,
       json_extract(j.value, '$[18]') AS detail,
       json_extract(j.value, '$[19]') AS main_queue,
       json_extract(j.value, '$[20]') AS cpu_ns,
       json_extract(j.value, '$[21]') AS waits,
       json_extract(j.value, '$[22]') AS change_seq
FROM event_blocks b, json_each(b.body) j;

-- Every event, readable: schema 4's view, unchanged.
CREATE VIEW event_log AS
SELECT e.session_id, e.seq, e.time_ns, k.name AS kind, e.thread, e.is_main,
       ch.name AS channel, e.registration_id, ow.name AS owner, e.other_registration_id,
       cs.site AS call_site, e.depth, e.live_count, e.duration_ns, e.is_prior,
       e.old_value, e.new_value, e.reason, e.detail, e.main_queue, e.cpu_ns, e.waits
FROM events e
LEFT JOIN event_kinds k ON k.code = e.kind
LEFT JOIN channel_names ch ON ch.session_id = e.session_id AND ch.id = e.channel_id
LEFT JOIN object_names ow ON ow.session_id = e.session_id AND ow.id = e.owner_id
LEFT JOIN call_site_names cs ON cs.id = e.call_site_id;

-- One row per session with its counts; a block's events are counted by its event_count.
CREATE VIEW session_summary AS
SELECT s.id, s.label, s.process, s.pid, s.started_at, s.ended_at, s.clean_end,
       (SELECT COUNT(*) FROM event_rows e WHERE e.session_id = s.id)
         + (SELECT COALESCE(SUM(b.event_count), 0) FROM event_blocks b WHERE b.session_id = s.id) AS events,
       (SELECT COUNT(*) FROM registrations r WHERE r.session_id = s.id) AS registrations
FROM sessions s;
