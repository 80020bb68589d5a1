-- ObservationJournal schema 3: a removal reason of its own for async sequences.
-- `streamEnded`: the consumer of a `changes()` sequence stopped (its loop exited, its task
-- was cancelled, or the sequence was dropped).
--
-- `registrations.removal_reason` has a CHECK list (0001) and SQLite cannot alter a CHECK,
-- so the table is rebuilt as 0002 rebuilt `events`: the views that read it are dropped
-- first and recreated last, rows are copied, its index is recreated. No `writable_schema`
-- editing: readers verify the schema text against these files, and defensive connections
-- forbid it.

DROP VIEW registration_log;
DROP VIEW session_summary;

CREATE TABLE registrations_v3 (
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
                        'tokenReleased', 'ownerDeallocated', 'subjectDeallocated', 'replaced',
                        'streamEnded')),
    PRIMARY KEY (session_id, id)
) STRICT, WITHOUT ROWID;

INSERT INTO registrations_v3 (session_id, id, channel_id, owner_id, call_site_id, options, queue_id,
    expects_main, sender_id, scope_id, registered_seq, removed_seq, removal_reason)
SELECT session_id, id, channel_id, owner_id, call_site_id, options, queue_id,
    expects_main, sender_id, scope_id, registered_seq, removed_seq, removal_reason
FROM registrations;

-- Dropping the table drops its index too.
DROP TABLE registrations;
ALTER TABLE registrations_v3 RENAME TO registrations;

CREATE INDEX registrations_by_channel ON registrations (session_id, channel_id);

-- Every registration, readable, with how it ended (unchanged from schema 1).
CREATE VIEW registration_log AS
SELECT r.session_id, r.id, ch.name AS channel, ch.policy, ow.name AS owner, cs.site AS call_site,
       r.options, q.value AS queue, r.expects_main, r.registered_seq, r.removed_seq, r.removal_reason
FROM registrations r
LEFT JOIN channel_names ch ON ch.session_id = r.session_id AND ch.id = r.channel_id
LEFT JOIN object_names ow ON ow.session_id = r.session_id AND ow.id = r.owner_id
LEFT JOIN call_site_names cs ON cs.id = r.call_site_id
LEFT JOIN strings q ON q.id = r.queue_id;

-- One row per session with its counts (unchanged from schema 1).
CREATE VIEW session_summary AS
SELECT s.id, s.label, s.process, s.pid, s.started_at, s.ended_at, s.clean_end,
       (SELECT COUNT(*) FROM events e WHERE e.session_id = s.id) AS events,
       (SELECT COUNT(*) FROM registrations r WHERE r.session_id = s.id) AS registrations
FROM sessions s;
