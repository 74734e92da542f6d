-- 0015: retention's work in a runner's pass is what changed, not the
-- fleet's kept history (checkpoint-runner(8), "Retention").
--
-- Each policy says when its job's snapshots next need a look (due_ms):
-- 0 when something changed, else the time a kept snapshot ages past
-- keep_ms, a failed disposal is tried again or one under way is looked
-- at again, or never (the largest integer) when only a new snapshot
-- could change a verdict.  A pass reads the policies that are due, by
-- the index, and only their jobs' snapshots.  A new checkpoint in the
-- history, a savepoint that completed or was kept or let go, and the
-- policy set again make it due at once; changes counts them, so that a
-- pass that read a policy before such a change does not write over it.
ALTER TABLE retention ADD COLUMN due_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE retention ADD COLUMN changes INTEGER NOT NULL DEFAULT 0;
CREATE INDEX retention_due ON retention (due_ms);

CREATE TRIGGER retention_history_due AFTER INSERT ON checkpoint_history
WHEN new.kind = 'CHECKPOINT'
BEGIN
	UPDATE retention SET due_ms = 0, changes = changes + 1
	WHERE job_id = new.job_id AND kind = 'CHECKPOINT';
END;

CREATE TRIGGER retention_savepoint_due AFTER UPDATE OF status, kept_ms
ON savepoints
BEGIN
	UPDATE retention SET due_ms = 0, changes = changes + 1
	WHERE job_id = new.job_id AND kind = 'SAVEPOINT';
END;

-- The history's retention by count (CHECKPOINT_HISTORY_KEEP) likewise:
-- a job's counter that moves puts the job among those grown, and a pass
-- prunes those alone, then forgets them; every job only when the count
-- differs from the one they were last pruned by (history_keep; none
-- in a copy that checkpointctl migrate made: every job, once).
CREATE TABLE history_grown (
	job_id TEXT PRIMARY KEY
) STRICT, WITHOUT ROWID;
CREATE TRIGGER counters_grown_new AFTER INSERT ON checkpoint_counters
BEGIN
	INSERT INTO history_grown (job_id) VALUES (new.job_id)
	ON CONFLICT (job_id) DO NOTHING;
END;
CREATE TRIGGER counters_grown AFTER UPDATE OF last_id ON checkpoint_counters
WHEN new.last_id <> old.last_id
BEGIN
	INSERT INTO history_grown (job_id) VALUES (new.job_id)
	ON CONFLICT (job_id) DO NOTHING;
END;
CREATE TABLE history_keep (
	one  INTEGER PRIMARY KEY CHECK (one = 1),
	keep INTEGER NOT NULL
) STRICT;

-- A schedule's slots missed (checkpoint-runner(8), "Schedules"): when a
-- pass fires a slot, those between it and the slot last fired were not
-- fired before the next was due, and are counted here, never merged
-- silently into the one that fires.
ALTER TABLE schedules ADD COLUMN missed INTEGER NOT NULL DEFAULT 0
	CHECK (missed >= 0);
-- And of every schedule ever, for GET /metrics: a count that never goes
-- down, not when a schedule or its job is removed.
ALTER TABLE service_metrics ADD COLUMN schedule_missed INTEGER NOT NULL
	DEFAULT 0 CHECK (schedule_missed >= 0);
