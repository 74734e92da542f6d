-- PostgreSQL: a job bound to a Flink JobManager, as SQLite's migration of
-- the same name says: its REST endpoint, NULL when not bound.
ALTER TABLE jobs ADD COLUMN flink_url text
	CHECK (flink_url IS NULL OR flink_url ~ '^https?://.');

-- One more migration, whatever its place in the series.
UPDATE schema_version SET version = version + 1,
	applied_ms = floor(extract(epoch FROM now()) * 1000)::bigint;
