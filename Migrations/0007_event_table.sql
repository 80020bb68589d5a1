-- ObservationJournal schema 7: one table of events, one row per event.
--
-- Schemas 2 to 6 were never released (journals written by builds between 0.1.0 and this
-- one); readers refuse them with a message that says so. This migration takes a schema-1
-- journal (0.1.0) to the shape every reader and writer now uses, converting its rows.
--
-- events         one row per registry action, keyed by (session_id, seq): an ordinary
--                table that SQL reads and filters by its primary key. What every event has,
--                and what changes and deliveries (nearly all events) have, is stored here;
--                what few events have is in event_details. Every column costs every row a
--                byte of its record header (NULL too) and every insert its share of work, so
--                the yes/no facts share one column and the change is a distance; the view
--                event_log shows them decoded. (Generated columns would show them in
--                `events` too, but SQLite computes them on every insert.)
--   flags        bit 0: on the main thread; bit 1: a notification before the change
--                (prior); bit 2: whether the main queue was recorded; bit 3: on the main
--                queue; the bits above: the depth of nested dispatch. event_log: is_main,
--                is_prior, main_queue, depth.
--   change_back  delivered, skipped: how many events back the change delivered is
--                (seq - change_seq); NULL when not known. event_log: change_seq.
-- event_details  the columns few events have: a replacement's replaced registration, a
--                scope's id, the waits and the wait for a CPU of a slow callback, free text
--                (a gap's 'dropped=N').
--                At most one row per event, with the event's key.
-- event_kinds, delivery_policies, removal_reasons
--                the names of the codes stored in events.kind, channels.policy and
--                registrations.removal_reason (codes are appended, never renumbered).
--
-- The views keep schema 1's columns (names shown where tables hold codes) and gain the
-- columns recorded since.

DROP VIEW event_log;
DROP VIEW registration_log;
DROP VIEW session_summary;
DROP VIEW channel_names;
DROP TRIGGER events_no_update;
DROP TRIGGER events_no_delete;

CREATE TABLE event_kinds (
    code    INTEGER PRIMARY KEY,
    name    TEXT    NOT NULL UNIQUE
) STRICT;

INSERT INTO event_kinds (code, name) VALUES
    (0, 'registered'), (1, 'replaced'), (2, 'removed'), (3, 'removeUnregistered'), (4, 'changed'),
    (5, 'delivered'), (6, 'skipped'), (7, 'scopeBegan'), (8, 'scopeEnded'), (9, 'gap'),
    (10, 'cancelAfterAutoRemoval'), (11, 'ownerGone');

CREATE TABLE delivery_policies (
    code    INTEGER PRIMARY KEY,
    name    TEXT    NOT NULL UNIQUE
) STRICT;

INSERT INTO delivery_policies (code, name) VALUES (0, 'multicast'), (1, 'singleSlot');

CREATE TABLE removal_reasons (
    code    INTEGER PRIMARY KEY,
    name    TEXT    NOT NULL UNIQUE
) STRICT;

INSERT INTO removal_reasons (code, name) VALUES
    (0, 'explicit'), (1, 'ownerRemovedAll'), (2, 'tokenCancelled'), (3, 'tokenReleased'),
    (4, 'ownerDeallocated'), (5, 'subjectDeallocated'), (6, 'replaced'), (7, 'streamEnded');

-- Channels and registrations: the policy and the removal reason as codes.

CREATE TABLE channels_v7 (
    session_id  INTEGER NOT NULL REFERENCES sessions(id),
    id          INTEGER NOT NULL,
    subject_id  INTEGER NOT NULL,           -- objects.id; 0 for notifications (any sender)
    key_id      INTEGER NOT NULL REFERENCES strings(id),
    policy      INTEGER NOT NULL CHECK (policy BETWEEN 0 AND 1),  -- delivery_policies.code
    first_seq   INTEGER NOT NULL,
    PRIMARY KEY (session_id, id)
) STRICT, WITHOUT ROWID;

INSERT INTO channels_v7 (session_id, id, subject_id, key_id, policy, first_seq)
SELECT c.session_id, c.id, c.subject_id, c.key_id, p.code, c.first_seq
FROM channels c JOIN delivery_policies p ON p.name = c.policy;

DROP TABLE channels;
ALTER TABLE channels_v7 RENAME TO channels;

CREATE TABLE registrations_v7 (
    session_id      INTEGER NOT NULL REFERENCES sessions(id),
    id              INTEGER NOT NULL,
    channel_id      INTEGER NOT NULL,
    owner_id        INTEGER NOT NULL,
    call_site_id    INTEGER NOT NULL REFERENCES call_sites(id),
    options         TEXT    NOT NULL,       -- comma list: initial,prior,old,new,onlyWhenChanged
    queue_id        INTEGER REFERENCES strings(id),  -- label of the delivery queue, if any
    expects_main    INTEGER NOT NULL CHECK (expects_main IN (0, 1)),
    sender_id       INTEGER,                -- objects.id of the sender filter, if any
    scope_id        INTEGER,                -- scopes.id it was declared for, if any
    registered_seq  INTEGER NOT NULL,
    removed_seq     INTEGER,                -- NULL while live
    removal_reason  INTEGER CHECK (removal_reason BETWEEN 0 AND 7),  -- removal_reasons.code
    PRIMARY KEY (session_id, id)
) STRICT, WITHOUT ROWID;

INSERT INTO registrations_v7 (session_id, id, channel_id, owner_id, call_site_id, options, queue_id,
    expects_main, sender_id, scope_id, registered_seq, removed_seq, removal_reason)
SELECT r.session_id, r.id, r.channel_id, r.owner_id, r.call_site_id, r.options, r.queue_id,
    r.expects_main, r.sender_id, r.scope_id, r.registered_seq, r.removed_seq, rr.code
FROM registrations r LEFT JOIN removal_reasons rr ON rr.name = r.removal_reason;

-- Dropping the table drops its index too.
DROP TABLE registrations;
ALTER TABLE registrations_v7 RENAME TO registrations;

CREATE INDEX registrations_by_channel ON registrations (session_id, channel_id);

-- Events.

CREATE TABLE events_v7 (
    session_id      INTEGER NOT NULL REFERENCES sessions(id),
    seq             INTEGER NOT NULL,       -- 1, 2, 3, ... per session
    time_ns         INTEGER NOT NULL,       -- monotonic ns since sessions.start_ns
    kind            INTEGER NOT NULL,       -- event_kinds.code
    thread          INTEGER NOT NULL,       -- the registry's thread number
    flags           INTEGER NOT NULL,       -- is_main, is_prior, main_queue, depth (see above)
    channel_id      INTEGER,
    registration_id INTEGER,
    owner_id        INTEGER,                -- the registration's owner, or the owner named by a removal
    change_back     INTEGER,                -- delivered, skipped: seq - change_seq
    duration_ns     INTEGER,                -- delivered: how long the callback ran (wall clock)
    cpu_ns          INTEGER,                -- delivered: thread CPU time of the callback
    live_count      INTEGER,                -- changed: live registrations when dispatched
    call_site_id    INTEGER REFERENCES call_sites(id),  -- where a registration, removal, cancel or post was made
    old_value       TEXT,                   -- changed: text of the old value (truncated, redacted)
    new_value       TEXT,                   -- changed: text of the new value; delivered: initial value
    reason          TEXT,                   -- removed, cancelAfterAutoRemoval: removal reason;
                                            -- skipped: skip reason; gap: why
    PRIMARY KEY (session_id, seq)
) STRICT, WITHOUT ROWID;

CREATE TABLE event_details (
    session_id      INTEGER NOT NULL,
    seq             INTEGER NOT NULL,       -- events.seq of the event these belong to
    other_registration_id INTEGER,          -- replaced: the registration that was replaced
    scope_id        INTEGER,                -- scopeBegan, scopeEnded, and events inside a scope
    waits           INTEGER,                -- delivered: voluntary context switches of a slow callback
    detail          TEXT,                   -- free text; gap: 'dropped=N'
    run_queue_ns    INTEGER,                -- delivered: a slow callback's time runnable, waiting for a CPU
    PRIMARY KEY (session_id, seq)
) STRICT, WITHOUT ROWID;

INSERT INTO events_v7 (session_id, seq, time_ns, kind, thread, flags, channel_id, registration_id,
    owner_id, change_back, duration_ns, cpu_ns, live_count, call_site_id, old_value, new_value, reason)
SELECT e.session_id, e.seq, e.time_ns, k.code, e.thread, e.is_main | (e.is_prior << 1) | (e.depth << 4),
    e.channel_id, e.registration_id, e.owner_id, NULL, e.duration_ns, NULL, e.live_count, e.call_site_id,
    e.old_value, e.new_value, e.reason
FROM events e JOIN event_kinds k ON k.name = e.kind;

INSERT INTO event_details (session_id, seq, other_registration_id, scope_id, waits, detail)
SELECT session_id, seq, other_registration_id, scope_id, NULL, detail FROM events
WHERE other_registration_id IS NOT NULL OR scope_id IS NOT NULL OR detail IS NOT NULL;

DROP TABLE events;
ALTER TABLE events_v7 RENAME TO events;

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER event_details_no_update BEFORE UPDATE ON event_details
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER event_details_no_delete BEFORE DELETE ON event_details
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;

-- Channels with readable names: `Player#1.isPlaying`, `*.name` for notifications.
CREATE VIEW channel_names AS
SELECT c.session_id, c.id,
       CASE WHEN c.subject_id = 0 THEN '*' ELSE COALESCE(o.name, '?#' || c.subject_id) END || '.' || k.value AS name,
       k.value AS key, p.name AS policy, c.first_seq
FROM channels c
JOIN strings k ON k.id = c.key_id
LEFT JOIN delivery_policies p ON p.code = c.policy
LEFT JOIN object_names o ON o.session_id = c.session_id AND o.id = c.subject_id;

-- Every registration, readable, with how it ended (NULL reason: still live).
CREATE VIEW registration_log AS
SELECT r.session_id, r.id, ch.name AS channel, ch.policy, ow.name AS owner, cs.site AS call_site,
       r.options, q.value AS queue, r.expects_main, r.registered_seq, r.removed_seq, rr.name AS removal_reason
FROM registrations r
LEFT JOIN channel_names ch ON ch.session_id = r.session_id AND ch.id = r.channel_id
LEFT JOIN object_names ow ON ow.session_id = r.session_id AND ow.id = r.owner_id
LEFT JOIN call_site_names cs ON cs.id = r.call_site_id
LEFT JOIN strings q ON q.id = r.queue_id
LEFT JOIN removal_reasons rr ON rr.code = r.removal_reason;

-- Every event, readable, with its details and its flags decoded.
CREATE VIEW event_log AS
SELECT e.session_id, e.seq, e.time_ns, k.name AS kind, e.thread, e.flags & 1 AS is_main,
       ch.name AS channel, e.registration_id, ow.name AS owner, d.other_registration_id,
       cs.site AS call_site, e.flags >> 4 AS depth, e.live_count, e.duration_ns, (e.flags >> 1) & 1 AS is_prior,
       e.old_value, e.new_value, e.reason, d.detail,
       CASE WHEN e.flags & 4 THEN (e.flags >> 3) & 1 END AS main_queue, e.cpu_ns, d.waits,
       e.seq - e.change_back AS change_seq, d.scope_id, d.run_queue_ns
FROM events e
LEFT JOIN event_kinds k ON k.code = e.kind
LEFT JOIN event_details d ON d.session_id = e.session_id AND d.seq = e.seq
LEFT JOIN channel_names ch ON ch.session_id = e.session_id AND ch.id = e.channel_id
LEFT JOIN object_names ow ON ow.session_id = e.session_id AND ow.id = e.owner_id
LEFT JOIN call_site_names cs ON cs.id = e.call_site_id;

-- One row per session with its counts.
CREATE VIEW session_summary AS
SELECT s.id, s.label, s.process, s.pid, s.started_at, s.ended_at, s.clean_end,
       (SELECT COUNT(*) FROM events e WHERE e.session_id = s.id) AS events,
       (SELECT COUNT(*) FROM registrations r WHERE r.session_id = s.id) AS registrations
FROM sessions s;
