-- PostgreSQL 0004: a job's checkpoint history, kept apart from the
-- triggers, as SQLite's 0007 (where the reasons are): one row per
-- finished checkpoint, written in the transaction that records the result
-- (by the function below, from the statistics' trigger event), pruned by
-- the history's own retention, not by the purge of expired results.  The
-- same columns and checks; the view checkpoints reads the running
-- checkpoints from the triggers and the finished ones from here, and the
-- savepoints stay in their own table (0003), read beside it.

CREATE TABLE checkpoint_history (
	job_id          text COLLATE "C" NOT NULL
	                CHECK (length(job_id) = 32
	                       AND ltrim(job_id, '0123456789abcdef') = ''),
	checkpoint_id   bigint NOT NULL CHECK (checkpoint_id > 0),
	kind            text NOT NULL DEFAULT 'CHECKPOINT'
	                CHECK (kind = 'CHECKPOINT' OR kind = 'SAVEPOINT'
	                       OR kind = 'SYNC_SAVEPOINT'),
	status          text NOT NULL
	                CHECK (status = 'COMPLETED' OR status = 'FAILED'),
	trigger_row     bigint NOT NULL,
	trigger_id      text COLLATE "C" NOT NULL
	                CHECK (length(trigger_id) = 32
	                       AND ltrim(trigger_id, '0123456789abcdef') = ''),
	requested_type  text NOT NULL,
	checkpoint_type text,
	created_ms      bigint NOT NULL, -- the trigger recorded
	claimed_by      text,
	claimed_ms      bigint, -- the runner took it (NULL: no action)
	completed_ms    bigint NOT NULL, -- completed or failed
	location        text,
	failure_class   text,
	failure_trace   text,
	failure_throwable text,
	remote_user     text,
	remote_addr     text,
	CHECK ((status = 'FAILED') = (failure_class IS NOT NULL)),
	CHECK ((failure_class IS NULL) = (failure_trace IS NULL)),
	CHECK ((failure_class IS NULL) = (failure_throwable IS NULL)),
	PRIMARY KEY (job_id, checkpoint_id)
);

-- Retention by age, and listings in arrival order.
CREATE INDEX checkpoint_history_completed ON checkpoint_history (completed_ms);
CREATE INDEX checkpoint_history_row ON checkpoint_history (trigger_row);

-- SQLite's trigger triggers_history: its WHEN is triggers_stats's.  An id
-- seen again takes the newer result rather than failing the commit.
CREATE FUNCTION triggers_keep() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
	INSERT INTO checkpoint_history AS h (job_id, checkpoint_id, status,
	    trigger_row, trigger_id, requested_type, checkpoint_type,
	    created_ms, claimed_by, claimed_ms, completed_ms, location,
	    failure_class, failure_trace, failure_throwable, remote_user,
	    remote_addr)
	VALUES (NEW.job_id, NEW.checkpoint_id,
	    CASE WHEN NEW.failure_class IS NULL THEN 'COMPLETED'
	    ELSE 'FAILED' END, NEW.id, NEW.trigger_id, NEW.requested_type,
	    NEW.checkpoint_type, NEW.created_ms, NEW.claimed_by,
	    NEW.claimed_ms, NEW.completed_ms, NEW.location,
	    NEW.failure_class, NEW.failure_trace, NEW.failure_throwable,
	    NEW.remote_user, NEW.remote_addr)
	ON CONFLICT (job_id, checkpoint_id) DO UPDATE SET
	    kind = 'CHECKPOINT', status = excluded.status,
	    trigger_row = excluded.trigger_row,
	    trigger_id = excluded.trigger_id,
	    requested_type = excluded.requested_type,
	    checkpoint_type = excluded.checkpoint_type,
	    created_ms = excluded.created_ms, claimed_by = excluded.claimed_by,
	    claimed_ms = excluded.claimed_ms,
	    completed_ms = excluded.completed_ms, location = excluded.location,
	    failure_class = excluded.failure_class,
	    failure_trace = excluded.failure_trace,
	    failure_throwable = excluded.failure_throwable,
	    remote_user = excluded.remote_user,
	    remote_addr = excluded.remote_addr;
	RETURN NULL;
END
$$;

CREATE TRIGGER triggers_history AFTER UPDATE OF status ON triggers
FOR EACH ROW
WHEN (OLD.status = 'IN_PROGRESS' AND NEW.status = 'COMPLETED'
    AND NEW.checkpoint_id IS NOT NULL)
EXECUTE FUNCTION triggers_keep();

-- The finished checkpoints still stored as triggers; the newest trigger
-- first, should an id appear twice.
INSERT INTO checkpoint_history (job_id, checkpoint_id, status,
    trigger_row, trigger_id, requested_type, checkpoint_type, created_ms,
    claimed_by, claimed_ms, completed_ms, location, failure_class,
    failure_trace, failure_throwable, remote_user, remote_addr)
SELECT DISTINCT ON (job_id, checkpoint_id) job_id, checkpoint_id,
    CASE WHEN failure_class IS NULL THEN 'COMPLETED' ELSE 'FAILED' END,
    id, trigger_id, requested_type, checkpoint_type, created_ms,
    claimed_by, claimed_ms, completed_ms, location, failure_class,
    failure_trace, failure_throwable, remote_user, remote_addr
FROM triggers WHERE status = 'COMPLETED' AND checkpoint_id IS NOT NULL
ORDER BY job_id, checkpoint_id, id DESC;

-- The view the statistics read, the same columns (duration_ms NULL while
-- running, as in SQLite).
DROP VIEW checkpoints;
CREATE VIEW checkpoints AS
SELECT
	job_id,
	checkpoint_id,
	'IN_PROGRESS' AS status,
	coalesce(claimed_ms, created_ms) AS trigger_ms,
	completed_ms,
	NULL::bigint AS duration_ms,
	location,
	failure_class,
	failure_trace,
	trigger_id
FROM triggers
WHERE status = 'IN_PROGRESS' AND checkpoint_id IS NOT NULL
UNION ALL
SELECT
	job_id,
	checkpoint_id,
	status,
	coalesce(claimed_ms, created_ms) AS trigger_ms,
	completed_ms,
	greatest(0, completed_ms - coalesce(claimed_ms, created_ms)) AS duration_ms,
	location,
	failure_class,
	failure_trace,
	trigger_id
FROM checkpoint_history;

-- One more than the migration before, whatever this file's number.
UPDATE schema_version SET version = version + 1,
	applied_ms = floor(extract(epoch FROM now()) * 1000)::bigint;
