-- ObservationJournal schema 6: the recorder's events in compact blocks, `event_packs`.
--
-- event_packs   up to 256 events of one session with consecutive seqs per row, as
--               event_blocks (schema 5) but with a body about half the size
--               (docs/EVENT-BLOCKS.md, "Schema 6"): the seq is not written (an event's seq
--               is first_seq + its index), time_ns is written as its difference from the
--               row's base_time_ns, change_seq as seq - change_seq, depth and is_prior as
--               null when 0, and the columns come in the order of how often they are not
--               null, so that the trailing nulls left out are most of them:
--                 [time_ns - base_time_ns, kind, thread, is_main, main_queue, channel_id,
--                  registration_id, owner_id, duration_ns, cpu_ns, seq - change_seq,
--                  call_site_id, live_count, new_value, old_value, reason, scope_id,
--                  other_registration_id, waits, depth, is_prior, detail]
--               Why: a schema-5 body spelled the seq and the absolute time of every event,
--               and 5 bytes (`null,`) for each absent column before the last present one:
--               109 bytes per event on disk against 48 for the same events as rows.
-- event_blocks  schema 5's blocks, rows untouched: the events recorded before this
--               migration stay there. The library writes no new rows to it.
-- events        the view gains a third branch, the events of event_packs, with the same
--               columns and types; session_summary counts them.

DROP VIEW event_log;
DROP VIEW session_summary;
DROP VIEW events;

CREATE TABLE event_packs (
    session_id   INTEGER NOT NULL REFERENCES sessions(id),
    first_seq    INTEGER NOT NULL,
    event_count  INTEGER NOT NULL,
    base_time_ns INTEGER NOT NULL,
    body         TEXT    NOT NULL,      -- JSON: [[time_ns - base_time_ns, kind, thread, ...], ...]
    PRIMARY KEY (session_id, first_seq)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER event_packs_no_update BEFORE UPDATE ON event_packs
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER event_packs_no_delete BEFORE DELETE ON event_packs
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
FROM event_blocks b, json_each(b.body) j
UNION ALL
SELECT p.session_id,
       p.first_seq + j.key AS seq,
       p.base_time_ns + json_extract(j.value, '$[0]') AS time_ns,
       json_extract(j.value, '$[1]') AS kind,
       json_extract(j.value, '$[2]') AS thread,
       json_extract(j.value, '$[3]') AS is_main,
       json_extract(j.value, '$[5]') AS channel_id,
       json_extract(j.value, '$[6]') AS registration_id,
       json_extract(j.value, '$[7]') AS owner_id,
       json_extract(j.value, '$[17]') AS other_registration_id,
       json_extract(j.value, '$[11]') AS call_site_id,
       json_extract(j.value, '$[16]') AS scope_id,
       COALESCE(json_extract(j.value, '$[19]'), 0) AS depth,
       json_extract(j.value, '$[12]') AS live_count,
       json_extract(j.value, '$[8]') AS duration_ns,
       COALESCE(json_extract(j.value, '$[20]'), 0) AS is_prior,
       json_extract(j.value, '$[14]') AS old_value,
       json_extract(j.value, '$[13]') AS new_value,
       json_extract(j.value, '$[15]') AS reason,
       json_extract(j.value, '$[21]') AS detail,
       json_extract(j.value, '$[4]') AS main_queue,
       json_extract(j.value, '$[9]') AS cpu_ns,
       json_extract(j.value, '$[18]') AS waits,
       p.first_seq + j.key - json_extract(j.value, '$[10]') AS change_seq
FROM event_packs p, json_each(p.body) j;

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
         + (SELECT COALESCE(SUM(b.event_count), 0) FROM event_blocks b WHERE b.session_id = s.id)
         + (SELECT COALESCE(SUM(p.event_count), 0) FROM event_packs p WHERE p.session_id = s.id) AS events,
       (SELECT COUNT(*) FROM registrations r WHERE r.session_id = s.id) AS registrations
FROM sessions s;
