-- PostgreSQL 0002: at most one claimed trigger per job, enforced.
--
-- A job's checkpoint actions never overlap: the runner claims a trigger
-- of a job only when none of its triggers is claimed.  On SQLite one
-- runner round at a time holds the only write lock; on PostgreSQL rounds
-- of several runners run at once, each holding its jobs' rows locked, and
-- this index makes a second claim of one job an error (unique_violation)
-- rather than a second action running, should that rule ever be broken.
DROP INDEX triggers_claimed;
CREATE UNIQUE INDEX triggers_claimed ON triggers (job_id)
	WHERE status = 'IN_PROGRESS' AND claimed_by IS NOT NULL;

UPDATE schema_version SET version = 2,
	applied_ms = floor(extract(epoch FROM now()) * 1000)::bigint;
