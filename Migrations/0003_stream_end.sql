-- ObservationJournal schema 3: a removal reason of its own for async sequences.
-- `streamEnded`: the consumer of a `changes()` sequence stopped (its loop exited, its task
-- was cancelled, or the sequence was dropped).
--
-- `registrations.removal_reason` has a CHECK list (0001). SQLite cannot alter a CHECK, and
-- rebuilding the table would have to name every column (later migrations may add some).
-- Only loosening the list is needed, which SQLite documents as safe to do by editing the
-- table's stored SQL (https://www.sqlite.org/lang_altertable.html, "otheralter"): no row
-- changes, and every existing value still satisfies the new list.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(sql, '''replaced''))', '''replaced'', ''streamEnded''))')
 WHERE type = 'table' AND name = 'registrations';
PRAGMA writable_schema = OFF;
-- Any schema change bumps the schema cookie, so other connections reload the schema.
CREATE TABLE schema_cookie_bump (unused INTEGER);
DROP TABLE schema_cookie_bump;
