-- 0011: schedules (checkpointctl job set --every, --cron; checkpoint-runner(8),
-- "SCHEDULES").
--
-- A job has at most one schedule per kind: an interval of at least a
-- second, its slots at since_ms + k * every_ms, or a cron expression of
-- five fields read in UTC.  last_slot_ms is the latest slot fired (or
-- skipped, the job not RUNNING); it starts at since_ms, so that nothing
-- fires for the past of a new rule.  A runner fires a slot by moving
-- last_slot_ms up to it and recording the slot, in the transaction that
-- records the trigger: the primary key of schedule_slots is what makes
-- two runners never fire one slot twice.  After a runner was away, only
-- the latest slot missed fires.  set_by is who set the rule.
CREATE TABLE schedules (
	job_id       TEXT NOT NULL,
	kind         TEXT NOT NULL CHECK (kind IN ('CHECKPOINT', 'SAVEPOINT')),
	every_ms     INTEGER CHECK (every_ms IS NULL OR every_ms >= 1000),
	cron         TEXT CHECK (cron IS NULL OR length(cron) BETWEEN 9 AND 127),
	since_ms     INTEGER NOT NULL,
	last_slot_ms INTEGER NOT NULL,
	set_by       TEXT,
	CHECK ((every_ms IS NULL) <> (cron IS NULL)),
	PRIMARY KEY (job_id, kind)
) STRICT;

-- The slots fired, the newest hundred of each schedule: which trigger
-- each became (NULL: skipped, and why).
CREATE TABLE schedule_slots (
	job_id     TEXT NOT NULL,
	kind       TEXT NOT NULL,
	slot_ms    INTEGER NOT NULL,
	fired_ms   INTEGER NOT NULL,
	trigger_id TEXT,
	skipped    TEXT,
	CHECK ((trigger_id IS NULL) <> (skipped IS NULL)),
	PRIMARY KEY (job_id, kind, slot_ms)
) STRICT;

-- A job removed takes its schedules with it.
CREATE TRIGGER jobs_schedules_gone AFTER DELETE ON jobs
BEGIN
	DELETE FROM schedules WHERE job_id = old.job_id;
	DELETE FROM schedule_slots WHERE job_id = old.job_id;
END;
