-- ObservationJournal schema 2: main-queue facts, callback CPU time, cancel-after-auto-removal.
--
-- events.main_queue  whether the action ran on the main queue (DispatchQueue.main),
--                    whichever thread drained it: under dispatchMain() on Linux that is
--                    not the main thread, so is_main alone cannot tell a `queue: .main`
--                    delivery that was on main. NULL: not recorded (schema 1 rows, gaps).
-- events.cpu_ns      delivered: thread CPU time the callback used (the CLOCK_THREAD_CPUTIME_ID
--                    clock; on Linux read with getrusage(RUSAGE_THREAD), to the microsecond),
--                    next to its wall time duration_ns; preemption does not count.
-- events.waits       delivered: voluntary context switches of its thread during the callback
--                    (it slept, waited for a lock or I/O); NULL where the system does not
--                    count them per thread.
-- events.kind        gains 'cancelAfterAutoRemoval': a token cancelled after the registry had
--                    removed its registration by itself (reason: how it had gone); a no-op;
--                    and 'ownerGone': the owner of a registration already replaced in a single
--                    slot was deallocated (its token went with it); objects.dealloc_seq is set.
--
-- SQLite cannot change a CHECK constraint in place, so `events` is rebuilt: new table,
-- rows copied, old table dropped, new one renamed. The views that read `events` are
-- dropped first and recreated last (a rename refuses to run while a view names a missing
-- table), and the append-only triggers are recreated on the new table.

DROP VIEW event_log;
DROP VIEW session_summary;

CREATE TABLE events_v2 (
    session_id      INTEGER NOT NULL REFERENCES sessions(id),
    seq             INTEGER NOT NULL,       -- 1, 2, 3, ... per session
    time_ns         INTEGER NOT NULL,       -- monotonic ns since sessions.start_ns
    kind            TEXT    NOT NULL CHECK (kind IN ('registered', 'replaced', 'removed',
                        'removeUnregistered', 'changed', 'delivered', 'skipped',
                        'scopeBegan', 'scopeEnded', 'gap', 'cancelAfterAutoRemoval', 'ownerGone')),
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
    PRIMARY KEY (session_id, seq)
) STRICT, WITHOUT ROWID;

INSERT INTO events_v2 (session_id, seq, time_ns, kind, thread, is_main, channel_id, registration_id,
    owner_id, other_registration_id, call_site_id, scope_id, depth, live_count, duration_ns, is_prior,
    old_value, new_value, reason, detail)
SELECT session_id, seq, time_ns, kind, thread, is_main, channel_id, registration_id,
    owner_id, other_registration_id, call_site_id, scope_id, depth, live_count, duration_ns, is_prior,
    old_value, new_value, reason, detail
FROM events;

-- Dropping a table fires no DELETE trigger; its own triggers go with it.
DROP TABLE events;
ALTER TABLE events_v2 RENAME TO events;

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;

-- Every event, readable (schema 1's view, plus the three new columns at the end).
CREATE VIEW event_log AS
SELECT e.session_id, e.seq, e.time_ns, e.kind, e.thread, e.is_main,
       ch.name AS channel, e.registration_id, ow.name AS owner, e.other_registration_id,
       cs.site AS call_site, e.depth, e.live_count, e.duration_ns, e.is_prior,
       e.old_value, e.new_value, e.reason, e.detail, e.main_queue, e.cpu_ns, e.waits
FROM events e
LEFT JOIN channel_names ch ON ch.session_id = e.session_id AND ch.id = e.channel_id
LEFT JOIN object_names ow ON ow.session_id = e.session_id AND ow.id = e.owner_id
LEFT JOIN call_site_names cs ON cs.id = e.call_site_id;

-- One row per session with its counts (unchanged from schema 1).
CREATE VIEW session_summary AS
SELECT s.id, s.label, s.process, s.pid, s.started_at, s.ended_at, s.clean_end,
       (SELECT COUNT(*) FROM events e WHERE e.session_id = s.id) AS events,
       (SELECT COUNT(*) FROM registrations r WHERE r.session_id = s.id) AS registrations
FROM sessions s;
