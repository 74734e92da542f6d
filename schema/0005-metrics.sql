-- 0005: what GET /metrics counts beyond a job's checkpoints (those are
-- checkpoint_stats, migration 0004, which both endpoints read), kept apart
-- from the triggers table so that retention (store_purge) never makes a
-- count go down.  A cumulative count that falls is read by Prometheus's
-- rate() and increase() as a restart of the counter, and a dashboard would
-- show a burst of checkpoints that never happened.

-- The service as a whole, one row: triggers failed because their job was
-- not found (not registered, or not RUNNING; any job id a client sends, so
-- counted here and never per job), and the last pass a runner recorded
-- (store_record_pass).
CREATE TABLE service_metrics (
	id              INTEGER PRIMARY KEY CHECK (id = 1),
	job_not_found   INTEGER NOT NULL DEFAULT 0 CHECK (job_not_found >= 0),
	pass_ms         INTEGER NOT NULL DEFAULT 0, -- 0: no pass recorded yet
	pass_advanced   INTEGER NOT NULL DEFAULT 0,
	pass_duration_ms INTEGER NOT NULL DEFAULT 0
) STRICT;
INSERT INTO service_metrics (id) VALUES (1);

-- A job not found fails with CompletionException and consumes no id (the
-- runner's texts, runner.h, Flink's own).  Its WHEN is the converse of
-- triggers_stats's, so that each completion runs one statement.
CREATE TRIGGER triggers_job_not_found AFTER UPDATE OF status ON triggers
WHEN old.status = 'IN_PROGRESS' AND new.status = 'COMPLETED'
    AND new.checkpoint_id IS NULL
BEGIN
	UPDATE service_metrics SET job_not_found = job_not_found + 1
	WHERE id = 1;
END;

-- What the triggers already there would have counted.
UPDATE service_metrics SET job_not_found = (SELECT count(*) FROM triggers
    WHERE status = 'COMPLETED' AND checkpoint_id IS NULL);
