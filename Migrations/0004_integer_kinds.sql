-- ObservationJournal schema 4: event kinds as small integers, and the change a delivery is for.
--
-- events.kind        an integer code, checked by a range, named by the lookup table
--                    `event_kinds`. A `CHECK (kind IN ('registered', …))` on text made SQLite
--                    build and clear a small table for every inserted row (most of the
--                    writer's time per row); a range check is two comparisons.
-- events.change_seq  delivered, skipped: the seq of the `changed` row whose delivery this is,
--                    as the registry numbered it where the change was posted; NULL where not
--                    recorded (initial deliveries, rows of schema 1–3, a change dropped in a gap).
-- event_kinds        code → name; the codes are JournalEventKind's, appended to, never renumbered.
--
-- The views keep showing names: `event_log.kind` is the kind's name, as in schemas 1–3, and
-- every view keeps its columns. `events` is rebuilt as 0002 rebuilt it: the views that read
-- it are dropped first and recreated last, rows are copied with their kinds translated.

CREATE TABLE event_kinds (
    code    INTEGER PRIMARY KEY,
    name    TEXT    NOT NULL UNIQUE
) STRICT;

INSERT INTO event_kinds (code, name) VALUES
    (0, 'registered'), (1, 'replaced'), (2, 'removed'), (3, 'removeUnregistered'), (4, 'changed'),
    (5, 'delivered'), (6, 'skipped'), (7, 'scopeBegan'), (8, 'scopeEnded'), (9, 'gap'),
    (10, 'cancelAfterAutoRemoval'), (11, 'ownerGone');

DROP VIEW event_log;
DROP VIEW session_summary;

CREATE TABLE events_v4 (
    session_id      INTEGER NOT NULL REFERENCES sessions(id),
    seq             INTEGER NOT NULL,       -- 1, 2, 3, ... per session
    time_ns         INTEGER NOT NULL,       -- monotonic ns since sessions.start_ns
    kind            INTEGER NOT NULL CHECK (kind BETWEEN 0 AND 11),  -- event_kinds.code
    thread          INTEGER NOT NULL,       -- the registry's thread number
    is_main         INTEGER NOT NULL CHECK (is_main IN (0, 1)),
    channel_id      INTEGER,
    registration_id INTEGER,
    owner_id        INTEGER,                -- the registration's owner, or the owner named by a removal
    other_registration_id INTEGER,          -- replaced: the registration that was replaced
    call_site_id    INTEGER REFERENCES call_sites(id),  -- where a removal, cancel or post was requested
    scope_id        INTEGER,
    depth           INTEGER NOT NULL DEFAULT 0,
    live_count      INTEGER,                -- changed: live registrations when dispatched
    duration_ns     INTEGER,                -- delivered: how long the callback ran (wall clock)
    is_prior        INTEGER NOT NULL DEFAULT 0 CHECK (is_prior IN (0, 1)),
    old_value       TEXT,                   -- changed: text of the old value (truncated, redacted)
    new_value       TEXT,                   -- changed: text of the new value; delivered: initial value
    reason          TEXT,                   -- removed: removal reason; skipped: skip reason; gap: why;
                                            -- cancelAfterAutoRemoval: how the registration had gone
    detail          TEXT,                   -- free text; gap: 'dropped=N'
    main_queue      INTEGER CHECK (main_queue IN (0, 1)),  -- on the main queue; NULL: not recorded
    cpu_ns          INTEGER,                -- delivered: thread CPU time of the callback
    waits           INTEGER,                -- delivered: voluntary context switches
    change_seq      INTEGER,                -- delivered, skipped: seq of the change delivered
    PRIMARY KEY (session_id, seq)
) STRICT, WITHOUT ROWID;

INSERT INTO events_v4 (session_id, seq, time_ns, kind, thread, is_main, channel_id, registration_id,
    owner_id, other_registration_id, call_site_id, scope_id, depth, live_count, duration_ns, is_prior,
    old_value, new_value, reason, detail, main_queue, cpu_ns, waits)
SELECT e.session_id, e.seq, e.time_ns, k.code, e.thread, e.is_main, e.channel_id, e.registration_id,
    e.owner_id, e.other_registration_id, e.call_site_id, e.scope_id, e.depth, e.live_count, e.duration_ns,
    e.is_prior, e.old_value, e.new_value, e.reason, e.detail, e.main_queue, e.cpu_ns, e.waits
FROM events e JOIN event_kinds k ON k.name = e.kind;

-- Dropping a table fires no DELETE trigger; its own triggers go with it.
DROP TABLE events;
ALTER TABLE events_v4 RENAME TO events;

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;

-- Every event, readable: schema 2's columns, the kind by name.
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

-- One row per session with its counts (unchanged from schema 1).
CREATE VIEW session_summary AS
SELECT s.id, s.label, s.process, s.pid, s.started_at, s.ended_at, s.clean_end,
       (SELECT COUNT(*) FROM events e WHERE e.session_id = s.id) AS events,
       (SELECT COUNT(*) FROM registrations r WHERE r.session_id = s.id) AS registrations
FROM sessions s;
