-- 0014: savepoints and stops under their job's queue bound, and the
-- results that hold no savepoint expired as a trigger's.
--
-- A POST of a savepoint or a stop counts its job's waiting ones against
-- CHECKPOINT_MAX_QUEUED, as a trigger's POST counts triggers (0009): a
-- probe of that job alone, bounded by the limit.
CREATE INDEX savepoints_queue ON savepoints (job_id, id)
	WHERE status = 'IN_PROGRESS' AND claimed_by IS NULL;

-- The purge (checkpointctl purge, the runner) deletes a savepoint that
-- failed without an id (no snapshot, no place in any history) and a
-- disposal's result once their store duration is over: each finds them
-- by its own index.
CREATE INDEX savepoints_expiring ON savepoints (completed_ms)
	WHERE status = 'COMPLETED' AND checkpoint_id IS NULL
	AND location IS NULL;
CREATE INDEX savepoint_disposals_done ON savepoint_disposals (completed_ms)
	WHERE status = 'COMPLETED';
