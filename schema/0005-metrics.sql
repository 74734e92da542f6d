-- 0005: what GET /metrics counts, kept apart from the triggers table so that
-- retention (store_purge) never makes a count go down.  A cumulative count
-- that falls is read by Prometheus's rate() and increase() as a restart of
-- the counter, and a dashboard would show a burst of checkpoints that never
-- happened.  Counted by an SQL trigger in the same transaction that
-- completes a trigger, whichever statement completes it (the runner's
-- set-based rounds, its row-by-row results, a stale claim resolved).

-- Per job, the outcomes of triggers that consumed a checkpoint id, and the
-- last completed checkpoint (Flink's lastCompletedCheckpointId and
-- lastCheckpointDuration).  Only jobs that were RUNNING get ids, so there
-- is at most one row per job ever registered.
CREATE TABLE job_metrics (
	job_id          TEXT PRIMARY KEY
	                CHECK (length(job_id) = 32 AND ltrim(job_id, '0123456789abcdef') = ''),
	completed       INTEGER NOT NULL DEFAULT 0 CHECK (completed >= 0),
	declined        INTEGER NOT NULL DEFAULT 0 CHECK (declined >= 0),
	expired         INTEGER NOT NULL DEFAULT 0 CHECK (expired >= 0),
	last_id         INTEGER CHECK (last_id > 0), -- NULL: none completed
	last_duration_ms INTEGER
) STRICT;

-- The service as a whole, one row: triggers failed because their job was
-- not found (not registered, or not RUNNING; any job id a client sends, so
-- not kept per job), and the last pass a runner recorded
-- (store_runner_pass).
CREATE TABLE service_metrics (
	id              INTEGER PRIMARY KEY CHECK (id = 1),
	job_not_found   INTEGER NOT NULL DEFAULT 0 CHECK (job_not_found >= 0),
	pass_ms         INTEGER NOT NULL DEFAULT 0, -- 0: no pass recorded yet
	pass_advanced   INTEGER NOT NULL DEFAULT 0,
	pass_duration_ms INTEGER NOT NULL DEFAULT 0
) STRICT;
INSERT INTO service_metrics (id) VALUES (1);

-- The kinds of outcome.  The texts are the runner's (runner.h, Flink's own):
-- a job not found fails with CompletionException and consumes no id; a
-- checkpoint that failed fails with CheckpointException, "expired" when its
-- first line says so (timeout, or its runner gone), else "declined" (the
-- action failed).  One trigger per kind of row, so that each completion
-- runs one statement.
CREATE TRIGGER triggers_job_not_found AFTER UPDATE OF status ON triggers
WHEN old.status = 'IN_PROGRESS' AND new.status = 'COMPLETED'
    AND new.checkpoint_id IS NULL
BEGIN
	UPDATE service_metrics SET job_not_found = job_not_found + 1
	WHERE id = 1;
END;

CREATE TRIGGER triggers_job_metrics AFTER UPDATE OF status ON triggers
WHEN old.status = 'IN_PROGRESS' AND new.status = 'COMPLETED'
    AND new.checkpoint_id IS NOT NULL
BEGIN
	INSERT INTO job_metrics (job_id, completed, declined, expired, last_id,
	    last_duration_ms)
	SELECT new.job_id,
	    new.failure_class IS NULL,
	    new.failure_class IS NOT NULL AND NOT e,
	    new.failure_class IS NOT NULL AND e,
	    CASE WHEN new.failure_class IS NULL THEN new.checkpoint_id END,
	    CASE WHEN new.failure_class IS NULL THEN
	        new.completed_ms - coalesce(new.claimed_ms, new.created_ms) END
	FROM (SELECT new.failure_trace GLOB 'org.apache.flink.runtime.checkpoint.'
	    || 'CheckpointException: Checkpoint expired before completing.*' AS e)
	WHERE true -- an INSERT ... SELECT with an upsert needs a WHERE
	ON CONFLICT (job_id) DO UPDATE SET
	    completed = completed + excluded.completed,
	    declined = declined + excluded.declined,
	    expired = expired + excluded.expired,
	    last_duration_ms = CASE WHEN excluded.last_id > coalesce(last_id, 0)
	        THEN excluded.last_duration_ms ELSE last_duration_ms END,
	    last_id = CASE WHEN excluded.last_id > coalesce(last_id, 0)
	        THEN excluded.last_id ELSE last_id END;
END;

-- What the triggers already there would have counted.
UPDATE service_metrics SET job_not_found = (SELECT count(*) FROM triggers
    WHERE status = 'COMPLETED' AND checkpoint_id IS NULL);
INSERT INTO job_metrics (job_id, completed, declined, expired)
SELECT job_id, sum(failure_class IS NULL),
    sum(failure_class IS NOT NULL AND NOT e), sum(failure_class IS NOT NULL AND e)
FROM (SELECT job_id, failure_class,
        failure_trace GLOB 'org.apache.flink.runtime.checkpoint.'
        || 'CheckpointException: Checkpoint expired before completing.*' AS e
    FROM triggers WHERE status = 'COMPLETED' AND checkpoint_id IS NOT NULL)
GROUP BY job_id;
UPDATE job_metrics SET (last_id, last_duration_ms) = (
    SELECT t.checkpoint_id, t.completed_ms - coalesce(t.claimed_ms, t.created_ms)
    FROM triggers t WHERE t.job_id = job_metrics.job_id
    AND t.status = 'COMPLETED' AND t.failure_class IS NULL
    AND t.checkpoint_id IS NOT NULL
    ORDER BY t.checkpoint_id DESC LIMIT 1);
