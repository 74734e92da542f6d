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
