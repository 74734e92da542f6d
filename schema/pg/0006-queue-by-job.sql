-- PostgreSQL 0006: each job's queue, by job in arrival order (as SQLite's
-- 0009).
--
-- The runner takes the first waiting trigger of each job whose command is
-- free (one probe a job, however long the queue), and a POST counts a
-- job's waiting triggers against CHECKPOINT_MAX_QUEUED (a probe bounded by
-- that limit): neither may walk the whole queue, nor another job's.
CREATE INDEX triggers_queue ON triggers (job_id, id)
	WHERE status = 'IN_PROGRESS' AND claimed_by IS NULL;

UPDATE schema_version SET version = version + 1,
	applied_ms = floor(extract(epoch FROM now()) * 1000)::bigint;
