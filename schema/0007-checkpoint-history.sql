-- 0007: a job's checkpoint history, kept apart from the triggers.
--
-- A trigger's record is the result GET /jobs/:jobid/checkpoints/:triggerid
-- answers, and expires after CHECKPOINT_STORE_DURATION as Flink's does
-- (store_purge).  The history of the statistics (GET /jobs/:jobid/
-- checkpoints, .../details/:checkpointid), the failures GET
-- /jobs/:jobid/triggers shows and checkpointctl lists were read from those
-- same records, so they vanished with them, minutes old.  Flink keeps its
-- history for the job's life; here it is kept in this table, one row per
-- finished checkpoint, until the history's own retention
-- (CHECKPOINT_HISTORY_KEEP, CHECKPOINT_HISTORY_AGE) prunes it.
--
-- A row is written by an SQL trigger when a trigger row with a checkpoint
-- id completes: in the statement, so in the transaction, that records the
-- result, whichever program or statement completed it, as checkpoint_stats
-- (0004) is kept.  Rows copied by an import are inserted whole and fire
-- nothing.
--
-- Keyed by job and checkpoint id, which one sequence per job hands out
-- (checkpoint_counters); kind says what took the id.  Every row written
-- here is a CHECKPOINT: savepoints, which share the sequence, stay in their
-- own table (0006), which no retention touches, and the statistics read
-- them beside this one through the view savepoint_checkpoints, so that the
-- checkpoints view below and savepoint_checkpoints never name the same id.
-- trigger_row is the trigger's row id: its place in arrival order, by
-- which the listings of triggers sort.

CREATE TABLE checkpoint_history (
	job_id          TEXT NOT NULL
	                CHECK (length(job_id) = 32
	                       AND ltrim(job_id, '0123456789abcdef') = ''),
	checkpoint_id   INTEGER NOT NULL CHECK (checkpoint_id > 0),
	kind            TEXT NOT NULL DEFAULT 'CHECKPOINT'
	                CHECK (kind = 'CHECKPOINT' OR kind = 'SAVEPOINT'
	                       OR kind = 'SYNC_SAVEPOINT'),
	status          TEXT NOT NULL
	                CHECK (status = 'COMPLETED' OR status = 'FAILED'),
	trigger_row     INTEGER NOT NULL,
	trigger_id      TEXT NOT NULL
	                CHECK (length(trigger_id) = 32
	                       AND ltrim(trigger_id, '0123456789abcdef') = ''),
	requested_type  TEXT NOT NULL,
	checkpoint_type TEXT,
	created_ms      INTEGER NOT NULL, -- the trigger recorded
	claimed_by      TEXT,
	claimed_ms      INTEGER, -- the runner took it (NULL: no action)
	completed_ms    INTEGER NOT NULL, -- completed or failed
	location        TEXT,
	failure_class   TEXT,
	failure_trace   TEXT,
	failure_throwable TEXT,
	remote_user     TEXT,
	remote_addr     TEXT,
	CHECK ((status = 'FAILED') = (failure_class IS NOT NULL)),
	CHECK ((failure_class IS NULL) = (failure_trace IS NULL)),
	CHECK ((failure_class IS NULL) = (failure_throwable IS NULL)),
	PRIMARY KEY (job_id, checkpoint_id)
) STRICT;

-- Retention by age, and listings in arrival order.
CREATE INDEX checkpoint_history_completed ON checkpoint_history (completed_ms);
CREATE INDEX checkpoint_history_row ON checkpoint_history (trigger_row);

-- Its WHEN is triggers_stats's: every completion that counts is kept.  An
-- id seen again (never, while the counters only grow) takes the newer
-- result rather than failing the runner's commit.
CREATE TRIGGER triggers_history AFTER UPDATE OF status ON triggers
WHEN old.status = 'IN_PROGRESS' AND new.status = 'COMPLETED'
    AND new.checkpoint_id IS NOT NULL
BEGIN
	INSERT OR REPLACE INTO checkpoint_history (job_id, checkpoint_id,
	    status, trigger_row, trigger_id, requested_type, checkpoint_type,
	    created_ms, claimed_by, claimed_ms, completed_ms, location,
	    failure_class, failure_trace, failure_throwable, remote_user,
	    remote_addr)
	VALUES (new.job_id, new.checkpoint_id,
	    iif(new.failure_class IS NULL, 'COMPLETED', 'FAILED'), new.id,
	    new.trigger_id, new.requested_type, new.checkpoint_type,
	    new.created_ms, new.claimed_by, new.claimed_ms, new.completed_ms,
	    new.location, new.failure_class, new.failure_trace,
	    new.failure_throwable, new.remote_user, new.remote_addr);
END;

-- The finished checkpoints still stored as triggers; the newest trigger
-- first, should an id appear twice.
INSERT OR IGNORE INTO checkpoint_history (job_id, checkpoint_id, status,
    trigger_row, trigger_id, requested_type, checkpoint_type, created_ms,
    claimed_by, claimed_ms, completed_ms, location, failure_class,
    failure_trace, failure_throwable, remote_user, remote_addr)
SELECT job_id, checkpoint_id,
    iif(failure_class IS NULL, 'COMPLETED', 'FAILED'), id, trigger_id,
    requested_type, checkpoint_type, created_ms, claimed_by, claimed_ms,
    completed_ms, location, failure_class, failure_trace,
    failure_throwable, remote_user, remote_addr
FROM triggers WHERE status = 'COMPLETED' AND checkpoint_id IS NOT NULL
ORDER BY id DESC;

-- The view the statistics read (0004), the same columns: the running
-- checkpoints from the triggers, the finished ones from the history.
DROP VIEW checkpoints;
CREATE VIEW checkpoints AS
SELECT
	job_id,
	checkpoint_id,
	'IN_PROGRESS' AS status,
	coalesce(claimed_ms, created_ms) AS trigger_ms,
	completed_ms,
	NULL AS duration_ms,
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
	max(0, completed_ms - coalesce(claimed_ms, created_ms)) AS duration_ms,
	location,
	failure_class,
	failure_trace,
	trigger_id
FROM checkpoint_history;
