-- 0012: retention of savepoints (checkpointctl job set --keep-savepoints,
-- --keep-savepoints-for; checkpoint-runner(8), "Retention").
--
-- A job's policy keeps its newest keep_last savepoints and those younger
-- than keep_ms; the runner asks for the disposal of the others, through
-- the job's dispose command, as a client's POST /savepoint-disposal does.
-- Never the newest completed one, never one marked kept (kept_ms, by
-- checkpointctl savepoint keep).  A disposal says why it was asked for
-- (reason); the runner's own say which rule let the savepoint go.
CREATE TABLE retention (
	job_id    TEXT PRIMARY KEY,
	keep_last INTEGER CHECK (keep_last IS NULL OR keep_last >= 1),
	keep_ms   INTEGER CHECK (keep_ms IS NULL OR keep_ms >= 1000),
	set_by    TEXT,
	set_ms    INTEGER NOT NULL,
	CHECK (keep_last IS NOT NULL OR keep_ms IS NOT NULL)
) STRICT;

ALTER TABLE savepoints ADD COLUMN kept_ms INTEGER;
ALTER TABLE savepoint_disposals ADD COLUMN reason TEXT;

-- A job removed takes its policy with it (its savepoints stay, as its
-- triggers do).
CREATE TRIGGER jobs_retention_gone AFTER DELETE ON jobs
BEGIN
	DELETE FROM retention WHERE job_id = old.job_id;
END;
