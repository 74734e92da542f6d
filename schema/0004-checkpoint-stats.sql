-- 0004: what GET /jobs/:jobid/checkpoints and .../details/:checkpointid read
-- (Flink's checkpoint statistics), each in a handful of indexed lookups
-- however many triggers a job has stored.
--
-- Retention purges completed triggers; Flink's counts and min/max/avg run
-- over the job's whole life.  So they are kept here, per job, moved by a
-- trigger (an SQL TRIGGER) when a trigger row completes, and survive the
-- purge, as checkpoint_counters does for ids.  The POST path never touches
-- them: a new row is IN_PROGRESS, and the trigger fires on completion only.

CREATE TABLE checkpoint_stats (
	job_id          TEXT PRIMARY KEY
	                CHECK (length(job_id) = 32
	                       AND ltrim(job_id, '0123456789abcdef') = ''),
	completed       INTEGER NOT NULL DEFAULT 0, -- with an id, no failure
	failed          INTEGER NOT NULL DEFAULT 0, -- any failure, id or not
	-- End-to-end durations of the completed ones, ms (NULL: none yet).
	duration_min    INTEGER,
	duration_max    INTEGER,
	duration_sum    INTEGER NOT NULL DEFAULT 0,
	-- The latest completed checkpoint (highest id), kept whole: Flink's
	-- latest.completed outlives the purge of its trigger.
	last_completed  INTEGER,
	completed_trigger_ms INTEGER,
	completed_ms    INTEGER,
	completed_location TEXT,
	-- The latest failed checkpoint (highest id), likewise.
	last_failed     INTEGER,
	failed_trigger_ms INTEGER,
	failed_ms       INTEGER,
	failed_class    TEXT,
	failed_trace    TEXT
) STRICT;

-- A checkpoint's end-to-end duration is its completion less the moment the
-- runner claimed it to run the job's action (for a job without an action,
-- the moment it was recorded), never below 0 (Flink: max(0, ack - trigger)).
CREATE TRIGGER triggers_stats AFTER UPDATE OF status ON triggers
WHEN old.status = 'IN_PROGRESS' AND new.status = 'COMPLETED'
BEGIN
	INSERT INTO checkpoint_stats (job_id, completed, failed, duration_min,
	    duration_max, duration_sum, last_completed, completed_trigger_ms,
	    completed_ms, completed_location, last_failed, failed_trigger_ms,
	    failed_ms, failed_class, failed_trace)
	SELECT new.job_id, ok, NOT ok,
	    iif(ok, d, NULL), iif(ok, d, NULL), iif(ok, d, 0),
	    iif(ok, new.checkpoint_id, NULL), iif(ok, t, NULL),
	    iif(ok, new.completed_ms, NULL), iif(ok, new.location, NULL),
	    iif(ok, NULL, new.checkpoint_id), iif(ok, NULL, t),
	    iif(ok, NULL, new.completed_ms), iif(ok, NULL, new.failure_class),
	    iif(ok, NULL, new.failure_trace)
	FROM (SELECT new.failure_class IS NULL AS ok,
	    coalesce(new.claimed_ms, new.created_ms) AS t,
	    max(0, new.completed_ms - coalesce(new.claimed_ms, new.created_ms)) AS d)
	WHERE true
	ON CONFLICT (job_id) DO UPDATE SET
	    completed = completed + excluded.completed,
	    failed = failed + excluded.failed,
	    duration_min = min(coalesce(duration_min, excluded.duration_min),
	        coalesce(excluded.duration_min, duration_min)),
	    duration_max = max(coalesce(duration_max, excluded.duration_max),
	        coalesce(excluded.duration_max, duration_max)),
	    duration_sum = duration_sum + excluded.duration_sum,
	    -- A newer completed checkpoint replaces the latest (a failure
	    -- without an id never does).
	    (last_completed, completed_trigger_ms, completed_ms,
	        completed_location) =
	    (SELECT iif(n, excluded.last_completed, last_completed),
	        iif(n, excluded.completed_trigger_ms, completed_trigger_ms),
	        iif(n, excluded.completed_ms, completed_ms),
	        iif(n, excluded.completed_location, completed_location)
	     FROM (SELECT coalesce(excluded.last_completed > last_completed,
	         excluded.last_completed IS NOT NULL) AS n)),
	    (last_failed, failed_trigger_ms, failed_ms, failed_class,
	        failed_trace) =
	    (SELECT iif(n, excluded.last_failed, last_failed),
	        iif(n, excluded.failed_trigger_ms, failed_trigger_ms),
	        iif(n, excluded.failed_ms, failed_ms),
	        iif(n, excluded.failed_class, failed_class),
	        iif(n, excluded.failed_trace, failed_trace)
	     FROM (SELECT coalesce(excluded.last_failed > last_failed,
	         excluded.last_failed IS NOT NULL) AS n));
END;

-- What is stored already counts.
INSERT INTO checkpoint_stats (job_id, completed, failed, duration_min,
    duration_max, duration_sum)
SELECT job_id,
    sum(failure_class IS NULL), sum(failure_class IS NOT NULL),
    min(iif(failure_class IS NULL, d, NULL)),
    max(iif(failure_class IS NULL, d, NULL)),
    coalesce(sum(iif(failure_class IS NULL, d, NULL)), 0)
FROM (SELECT job_id, failure_class,
    max(0, completed_ms - coalesce(claimed_ms, created_ms)) AS d
    FROM triggers WHERE status = 'COMPLETED')
GROUP BY job_id;

-- The triggers that were given a checkpoint id, as Flink's statistics show
-- them (the API reads them from this view): FAILED is a completed trigger
-- with a failure; trigger_ms is when the runner claimed it (for a job
-- without an action, when it was recorded).
CREATE VIEW checkpoints AS
SELECT
	job_id,
	checkpoint_id,
	CASE
	WHEN status = 'IN_PROGRESS' THEN 'IN_PROGRESS'
	WHEN failure_class IS NULL THEN 'COMPLETED'
	ELSE 'FAILED'
	END AS status,
	coalesce(claimed_ms, created_ms) AS trigger_ms,
	completed_ms,
	max(0, completed_ms - coalesce(claimed_ms, created_ms)) AS duration_ms,
	location,
	failure_class,
	failure_trace,
	trigger_id
FROM triggers
WHERE checkpoint_id IS NOT NULL;

-- And the latest completed and failed of each job.
UPDATE checkpoint_stats SET
    (last_completed, completed_trigger_ms, completed_ms, completed_location) =
    (SELECT checkpoint_id, trigger_ms, completed_ms, location
     FROM checkpoints c WHERE c.job_id = checkpoint_stats.job_id
     AND c.status = 'COMPLETED' ORDER BY checkpoint_id DESC LIMIT 1),
    (last_failed, failed_trigger_ms, failed_ms, failed_class, failed_trace) =
    (SELECT checkpoint_id, trigger_ms, completed_ms, failure_class,
     failure_trace
     FROM checkpoints c WHERE c.job_id = checkpoint_stats.job_id
     AND c.status = 'FAILED' ORDER BY checkpoint_id DESC LIMIT 1);

-- A job's checkpoints by id: the history (newest first), one checkpoint's
-- details, the latest completed and failed.  Partial: a POST inserts a row
-- without an id, so this index costs it nothing; the runner's claim or
-- completion adds the entry.
CREATE INDEX triggers_checkpoint ON triggers (job_id, checkpoint_id)
	WHERE checkpoint_id IS NOT NULL;
