-- ObservationJournal schema 8: a journal says which one it is, a session which run it was.
--
-- journal        one row: the journal's id, 32 lowercase hexadecimal digits, random, written
--                when the journal is created, so exports made from it can be copied,
--                renamed and concatenated and still say where each row came from (two
--                journals of one CI run never share a name). A copy of the file is the same
--                journal and has the same id. A journal upgraded from an older schema gets
--                no row: readers derive its id from its first session (host, process, pid,
--                start), the same before and after the upgrade and on every reading.
-- sessions.run   the CI run or job the session was recorded in, when the recorder knew it
--                (`Journal.Options.run`, or the environment's OBSERVATION_JOURNAL_RUN); NULL
--                otherwise.

CREATE TABLE journal (
    id          TEXT    NOT NULL,           -- 32 lowercase hexadecimal digits
    created_at  TEXT    NOT NULL            -- ISO 8601, UTC
) STRICT;

INSERT INTO journal (id, created_at)
SELECT lower(hex(randomblob(16))), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
WHERE NOT EXISTS (SELECT 1 FROM sessions);

ALTER TABLE sessions ADD COLUMN run TEXT;
