-- ObservationJournal schema 1: the first cut.
-- This folder is the schema's only source. Files are applied in order, each in its own
-- transaction together with its row in `migrations`; `PRAGMA user_version` is then the
-- number of migrations applied. `PRAGMA application_id` is set by the library.
--
-- Ids of objects, channels, registrations and scopes are the registry's own ids, which
-- are per session (one registry per recording session): tables key them by
-- (session_id, id). Nothing here stores a memory address.

CREATE TABLE migrations (
    version     INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL,
    applied_at  TEXT    NOT NULL            -- ISO 8601, UTC
) STRICT;

CREATE TABLE sessions (
    id              INTEGER PRIMARY KEY,
    label           TEXT    NOT NULL,
    process         TEXT    NOT NULL,       -- process name
    pid             INTEGER NOT NULL,
    host            TEXT    NOT NULL,
    started_at      TEXT    NOT NULL,       -- wall clock, ISO 8601 UTC, for people
    start_ns        INTEGER NOT NULL,       -- monotonic clock at start; events' time_ns is relative to it
    ended_at        TEXT,                   -- NULL while recording or after a crash
    clean_end       INTEGER NOT NULL DEFAULT 0 CHECK (clean_end IN (0, 1)),
    library_version TEXT    NOT NULL
) STRICT;

-- Interned text: type names, keys, files, functions, queue labels, scope names.
CREATE TABLE strings (
    id    INTEGER PRIMARY KEY,
    value TEXT NOT NULL UNIQUE
) STRICT;

CREATE TABLE call_sites (
    id          INTEGER PRIMARY KEY,
    file_id     INTEGER NOT NULL REFERENCES strings(id),
    line        INTEGER NOT NULL,
    function_id INTEGER NOT NULL REFERENCES strings(id),
    UNIQUE (file_id, line, function_id)
) STRICT;

CREATE TABLE objects (
    session_id  INTEGER NOT NULL REFERENCES sessions(id),
    id          INTEGER NOT NULL,           -- the registry's object id; 0 is "any"
    type_id     INTEGER NOT NULL REFERENCES strings(id),
    first_seq   INTEGER NOT NULL,           -- first event naming it
    dealloc_seq INTEGER,                    -- event where its deallocation was seen
    PRIMARY KEY (session_id, id)
) STRICT, WITHOUT ROWID;

CREATE TABLE channels (
    session_id  INTEGER NOT NULL REFERENCES sessions(id),
    id          INTEGER NOT NULL,
    subject_id  INTEGER NOT NULL,           -- objects.id; 0 for notifications (any sender)
    key_id      INTEGER NOT NULL REFERENCES strings(id),
    policy      TEXT    NOT NULL CHECK (policy IN ('multicast', 'singleSlot')),
    first_seq   INTEGER NOT NULL,
    PRIMARY KEY (session_id, id)
) STRICT, WITHOUT ROWID;

CREATE TABLE scopes (
    session_id  INTEGER NOT NULL REFERENCES sessions(id),
    id          INTEGER NOT NULL,
    name_id     INTEGER NOT NULL REFERENCES strings(id),
    began_seq   INTEGER,
    ended_seq   INTEGER,
    PRIMARY KEY (session_id, id)
) STRICT, WITHOUT ROWID;

CREATE TABLE registrations (
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
    removal_reason  TEXT CHECK (removal_reason IN ('explicit', 'ownerRemovedAll', 'tokenCancelled',
                        'tokenReleased', 'ownerDeallocated', 'subjectDeallocated', 'replaced')),
    PRIMARY KEY (session_id, id)
) STRICT, WITHOUT ROWID;

-- The event log: append-only, one row per registry action, gap-free `seq` per session.
CREATE TABLE events (
    session_id      INTEGER NOT NULL REFERENCES sessions(id),
    seq             INTEGER NOT NULL,       -- 1, 2, 3, ... per session
    time_ns         INTEGER NOT NULL,       -- monotonic ns since sessions.start_ns
    kind            TEXT    NOT NULL CHECK (kind IN ('registered', 'replaced', 'removed',
                        'removeUnregistered', 'changed', 'delivered', 'skipped',
                        'scopeBegan', 'scopeEnded', 'gap')),
    thread          INTEGER NOT NULL,       -- the registry's thread number
    is_main         INTEGER NOT NULL CHECK (is_main IN (0, 1)),
    channel_id      INTEGER,
    registration_id INTEGER,
    owner_id        INTEGER,                -- the registration's owner, or the owner named by a removal
    other_registration_id INTEGER,          -- replaced: the registration that was replaced
    call_site_id    INTEGER REFERENCES call_sites(id),  -- where a removal or post was requested
    scope_id        INTEGER,
    depth           INTEGER NOT NULL DEFAULT 0,
    live_count      INTEGER,                -- changed: live registrations when dispatched
    duration_ns     INTEGER,                -- delivered: how long the callback ran
    is_prior        INTEGER NOT NULL DEFAULT 0 CHECK (is_prior IN (0, 1)),
    old_value       TEXT,                   -- changed: text of the old value (truncated, redacted)
    new_value       TEXT,                   -- changed: text of the new value; delivered: initial value
    reason          TEXT,                   -- removed: removal reason; skipped: skip reason; gap: why
    detail          TEXT,                   -- free text; gap: 'dropped=N'
    PRIMARY KEY (session_id, seq)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;

CREATE INDEX registrations_by_channel ON registrations (session_id, channel_id);

-- Views for ad-hoc SQL: sqlite3 journal.sqlite 'select * from event_log limit 20'.

-- Objects with their type names: `Player#1`.
CREATE VIEW object_names AS
SELECT o.session_id, o.id, s.value AS type, s.value || '#' || o.id AS name, o.first_seq, o.dealloc_seq
FROM objects o JOIN strings s ON s.id = o.type_id;

-- Channels with readable names: `Player#1.isPlaying`, `*.name` for notifications.
CREATE VIEW channel_names AS
SELECT c.session_id, c.id,
       CASE WHEN c.subject_id = 0 THEN '*' ELSE COALESCE(o.name, '?#' || c.subject_id) END || '.' || k.value AS name,
       k.value AS key, c.policy, c.first_seq
FROM channels c
JOIN strings k ON k.id = c.key_id
LEFT JOIN object_names o ON o.session_id = c.session_id AND o.id = c.subject_id;

-- Call sites as `Module/File.swift:42`.
CREATE VIEW call_site_names AS
SELECT cs.id, f.value || ':' || cs.line AS site, f.value AS file, cs.line, fn.value AS function
FROM call_sites cs JOIN strings f ON f.id = cs.file_id JOIN strings fn ON fn.id = cs.function_id;

-- Every event, readable.
CREATE VIEW event_log AS
SELECT e.session_id, e.seq, e.time_ns, e.kind, e.thread, e.is_main,
       ch.name AS channel, e.registration_id, ow.name AS owner, e.other_registration_id,
       cs.site AS call_site, e.depth, e.live_count, e.duration_ns, e.is_prior,
       e.old_value, e.new_value, e.reason, e.detail
FROM events e
LEFT JOIN channel_names ch ON ch.session_id = e.session_id AND ch.id = e.channel_id
LEFT JOIN object_names ow ON ow.session_id = e.session_id AND ow.id = e.owner_id
LEFT JOIN call_site_names cs ON cs.id = e.call_site_id;

-- Every registration, readable, with how it ended (NULL reason: still live).
CREATE VIEW registration_log AS
SELECT r.session_id, r.id, ch.name AS channel, ch.policy, ow.name AS owner, cs.site AS call_site,
       r.options, q.value AS queue, r.expects_main, r.registered_seq, r.removed_seq, r.removal_reason
FROM registrations r
LEFT JOIN channel_names ch ON ch.session_id = r.session_id AND ch.id = r.channel_id
LEFT JOIN object_names ow ON ow.session_id = r.session_id AND ow.id = r.owner_id
LEFT JOIN call_site_names cs ON cs.id = r.call_site_id
LEFT JOIN strings q ON q.id = r.queue_id;

-- One row per session with its counts.
CREATE VIEW session_summary AS
SELECT s.id, s.label, s.process, s.pid, s.started_at, s.ended_at, s.clean_end,
       (SELECT COUNT(*) FROM events e WHERE e.session_id = s.id) AS events,
       (SELECT COUNT(*) FROM registrations r WHERE r.session_id = s.id) AS registrations
FROM sessions s;
