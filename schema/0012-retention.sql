-- 0012: retention of savepoints and checkpoints (checkpointctl job set
-- --keep-savepoints, --keep-savepoints-for, --keep-checkpoints,
-- --keep-checkpoints-for; checkpoint-runner(8), "Retention").
--
-- A job's policy for a kind keeps its newest keep_last snapshots and
-- those younger than keep_ms; the runner asks for the disposal of the
-- others, through the job's dispose command, as a client's POST
-- /savepoint-disposal does.  Never the newest completed one, never a
-- savepoint marked kept (kept_ms, by checkpointctl savepoint keep).  The
-- checkpoints it sees are the history's (CHECKPOINT_HISTORY_KEEP, AGE)
-- whose action printed a location.  A disposal says why it was asked for
-- (reason); the runner's own say which rule let the snapshot go, and a
-- checkpoint disposed of is marked as a savepoint is (disposed_ms).
CREATE TABLE retention (
	job_id    TEXT NOT NULL,
	kind      TEXT NOT NULL CHECK (kind IN ('CHECKPOINT', 'SAVEPOINT')),
	keep_last INTEGER CHECK (keep_last IS NULL OR keep_last >= 1),
	keep_ms   INTEGER CHECK (keep_ms IS NULL OR keep_ms >= 1000),
	set_by    TEXT,
	set_ms    INTEGER NOT NULL,
	CHECK (keep_last IS NOT NULL OR keep_ms IS NOT NULL),
	PRIMARY KEY (job_id, kind)
) STRICT;

ALTER TABLE savepoints ADD COLUMN kept_ms INTEGER;
ALTER TABLE savepoint_disposals ADD COLUMN reason TEXT;
ALTER TABLE checkpoint_history ADD COLUMN disposed_ms INTEGER;
CREATE INDEX checkpoint_history_location ON checkpoint_history (location)
	WHERE location IS NOT NULL;

-- A job removed takes its policy with it (its savepoints stay, as its
-- triggers do).
CREATE TRIGGER jobs_retention_gone AFTER DELETE ON jobs
BEGIN
	DELETE FROM retention WHERE job_id = old.job_id;
END;

-- Who asked for a savepoint or a stop is never changed afterwards, as a
-- trigger's (0010): no statement writes them after the insert.
CREATE TRIGGER savepoints_caller_fixed BEFORE UPDATE OF remote_user, remote_addr
ON savepoints
WHEN old.remote_user IS NOT new.remote_user
    OR old.remote_addr IS NOT new.remote_addr
BEGIN
	SELECT RAISE(ABORT, 'the caller recorded with a savepoint is never changed');
END;
