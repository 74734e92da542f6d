-- PostgreSQL 0016: a job whose savepoints and stops are bookkeeping only
-- (SQLite's 0017 says why).  Only the owner writes jobs' settings: no
-- grant is given on it (pg-grants.sql).
ALTER TABLE jobs ADD COLUMN bookkeeping_only integer NOT NULL DEFAULT 0
	CHECK (bookkeeping_only IN (0, 1));

UPDATE schema_version SET version = version + 1,
	applied_ms = floor(extract(epoch FROM now()) * 1000)::bigint;
