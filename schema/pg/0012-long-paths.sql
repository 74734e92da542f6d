-- PostgreSQL 0012: paths of any length that a request may name are
-- indexed by their hash, not their value.
--
-- A btree entry holds the whole value and cannot be larger than about a
-- third of a page, whatever the column allows: a disposal's path (UNIQUE)
-- over it was a 500, and a savepoint's location over it was run but could
-- not be recorded.  The service bounds such paths (checkpoint-api(7),
-- "SAVEPOINTS") at a length that real deployments never reach but that a
-- btree cannot hold; a hash index holds a value's hash alone, so any
-- length is indexed.  A disposal's one key is its path's md5, which the
-- statements that look it up name, so that they use its index.
DROP INDEX savepoints_location;
CREATE INDEX savepoints_location ON savepoints USING hash (location)
	WHERE location IS NOT NULL;
DROP INDEX checkpoint_history_location;
CREATE INDEX checkpoint_history_location ON checkpoint_history
	USING hash (location) WHERE location IS NOT NULL;
ALTER TABLE savepoint_disposals
	DROP CONSTRAINT savepoint_disposals_savepoint_path_key;
-- Under the name the constraint had, as the other keys' names are made.
CREATE UNIQUE INDEX savepoint_disposals_savepoint_path_key
	ON savepoint_disposals (md5(savepoint_path));

UPDATE schema_version SET version = version + 1,
	applied_ms = floor(extract(epoch FROM now()) * 1000)::bigint;
