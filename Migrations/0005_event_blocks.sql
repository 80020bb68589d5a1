-- ObservationJournal schema 5: events packed in blocks, read through a view named `events`;
-- the delivery policy and the removal reason as small integers, as schema 4 made kinds.
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
--               through it parses JSON: 5–13× slower than reading a table; obsreplay decodes
--               blocks itself.
-- channels.policy, registrations.removal_reason
--               integer codes checked by a range, named by the lookup tables
--               `delivery_policies` and `removal_reasons` (code → name; the codes are
--               JournalDeliveryPolicy's and JournalRemovalReason's, appended to, never
--               renumbered). Why: a `CHECK (x IN ('a', …))` on text made SQLite build a
--               temporary B-tree of the names for every row it checked, so for every
--               registration inserted and every removal recorded (schema 4 did the same for
--               events.kind).
--
-- The views that read the tables this migration changes are dropped first (a rename rewrites
-- the views that name the renamed table, and refuses to run while a view names a missing
-- one) and recreated last, with the same columns, showing names where the tables now hold
-- codes. `events` is renamed, rows untouched, its append-only triggers moving with it;
-- event_blocks gets its own. `channels` and `registrations` are rebuilt as 0004 rebuilt
-- `events`: rows copied with their names translated, the index recreated.

DROP VIEW event_log;
DROP VIEW registration_log;
DROP VIEW session_summary;
DROP VIEW channel_names;

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

-- Delivery policies and removal reasons as codes.

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

CREATE TABLE channels_v5 (
    session_id  INTEGER NOT NULL REFERENCES sessions(id),
    id          INTEGER NOT NULL,
    subject_id  INTEGER NOT NULL,           -- objects.id; 0 for notifications (any sender)
    key_id      INTEGER NOT NULL REFERENCES strings(id),
    policy      INTEGER NOT NULL CHECK (policy BETWEEN 0 AND 1),  -- delivery_policies.code
    first_seq   INTEGER NOT NULL,
    PRIMARY KEY (session_id, id)
) STRICT, WITHOUT ROWID;

INSERT INTO channels_v5 (session_id, id, subject_id, key_id, policy, first_seq)
SELECT c.session_id, c.id, c.subject_id, c.key_id, p.code, c.first_seq
FROM channels c JOIN delivery_policies p ON p.name = c.policy;

DROP TABLE channels;
ALTER TABLE channels_v5 RENAME TO channels;

CREATE TABLE registrations_v5 (
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

INSERT INTO registrations_v5 (session_id, id, channel_id, owner_id, call_site_id, options, queue_id,
    expects_main, sender_id, scope_id, registered_seq, removed_seq, removal_reason)
SELECT r.session_id, r.id, r.channel_id, r.owner_id, r.call_site_id, r.options, r.queue_id,
    r.expects_main, r.sender_id, r.scope_id, r.registered_seq, r.removed_seq, rr.code
FROM registrations r LEFT JOIN removal_reasons rr ON rr.name = r.removal_reason;

-- Dropping the table drops its index too.
DROP TABLE registrations;
ALTER TABLE registrations_v5 RENAME TO registrations;

CREATE INDEX registrations_by_channel ON registrations (session_id, channel_id);

-- Channels with readable names: schema 1's columns, the policy by name.
CREATE VIEW channel_names AS
SELECT c.session_id, c.id,
       CASE WHEN c.subject_id = 0 THEN '*' ELSE COALESCE(o.name, '?#' || c.subject_id) END || '.' || k.value AS name,
       k.value AS key, p.name AS policy, c.first_seq
FROM channels c
JOIN strings k ON k.id = c.key_id
LEFT JOIN delivery_policies p ON p.code = c.policy
LEFT JOIN object_names o ON o.session_id = c.session_id AND o.id = c.subject_id;

-- Every registration, readable, with how it ended (NULL reason: still live): schema 1's
-- columns, the reason by name.
CREATE VIEW registration_log AS
SELECT r.session_id, r.id, ch.name AS channel, ch.policy, ow.name AS owner, cs.site AS call_site,
       r.options, q.value AS queue, r.expects_main, r.registered_seq, r.removed_seq, rr.name AS removal_reason
FROM registrations r
LEFT JOIN channel_names ch ON ch.session_id = r.session_id AND ch.id = r.channel_id
LEFT JOIN object_names ow ON ow.session_id = r.session_id AND ow.id = r.owner_id
LEFT JOIN call_site_names cs ON cs.id = r.call_site_id
LEFT JOIN strings q ON q.id = r.queue_id
LEFT JOIN removal_reasons rr ON rr.code = r.removal_reason;

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
