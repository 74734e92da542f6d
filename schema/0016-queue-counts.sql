-- 0016: each job's waiting triggers, and its waiting savepoints and stops,
-- counted as they come and go, so that a POST checks CHECKPOINT_MAX_QUEUED
-- with one lookup however long its job's queue has grown (0009 and 0014
-- counted the queue itself, up to the bound, on every POST).
--
-- A row waits while it is IN_PROGRESS and unclaimed.  The triggers below
-- move the count as a row starts or stops waiting, whatever statement
-- moves it (a POST, a claim, a completion, a claim released, a purge, a
-- job removed, an import, an operator's SQL), so no statement has to
-- remember to.  A count that falls to 0 loses its row: a job, known or
-- not, keeps a row here only while something of it waits.
CREATE TABLE queue_waiting (
	kind    TEXT NOT NULL CHECK (kind IN ('TRIGGER', 'SAVEPOINT')),
	job_id  TEXT NOT NULL,
	waiting INTEGER NOT NULL CHECK (waiting >= 0),
	PRIMARY KEY (kind, job_id)
) WITHOUT ROWID;

INSERT INTO queue_waiting (kind, job_id, waiting)
SELECT 'TRIGGER', job_id, count(*) FROM triggers
WHERE status = 'IN_PROGRESS' AND claimed_by IS NULL GROUP BY job_id;
INSERT INTO queue_waiting (kind, job_id, waiting)
SELECT 'SAVEPOINT', job_id, count(*) FROM savepoints
WHERE status = 'IN_PROGRESS' AND claimed_by IS NULL GROUP BY job_id;

CREATE TRIGGER triggers_waiting_new AFTER INSERT ON triggers
WHEN new.status = 'IN_PROGRESS' AND new.claimed_by IS NULL
BEGIN
	INSERT INTO queue_waiting (kind, job_id, waiting)
	VALUES ('TRIGGER', new.job_id, 1)
	ON CONFLICT (kind, job_id) DO UPDATE SET waiting = waiting + 1;
END;

CREATE TRIGGER triggers_waiting_gone AFTER DELETE ON triggers
WHEN old.status = 'IN_PROGRESS' AND old.claimed_by IS NULL
BEGIN
	UPDATE queue_waiting SET waiting = waiting - 1
	WHERE kind = 'TRIGGER' AND job_id = old.job_id;
	DELETE FROM queue_waiting
	WHERE kind = 'TRIGGER' AND job_id = old.job_id AND waiting = 0;
END;

CREATE TRIGGER triggers_waiting_moved
AFTER UPDATE OF status, claimed_by, job_id ON triggers
WHEN (old.status = 'IN_PROGRESS' AND old.claimed_by IS NULL)
    IS NOT (new.status = 'IN_PROGRESS' AND new.claimed_by IS NULL)
    OR old.job_id IS NOT new.job_id
BEGIN
	UPDATE queue_waiting SET waiting = waiting - 1
	WHERE kind = 'TRIGGER' AND job_id = old.job_id
	AND old.status = 'IN_PROGRESS' AND old.claimed_by IS NULL;
	DELETE FROM queue_waiting
	WHERE kind = 'TRIGGER' AND job_id = old.job_id AND waiting = 0;
	INSERT INTO queue_waiting (kind, job_id, waiting)
	SELECT 'TRIGGER', new.job_id, 1
	WHERE new.status = 'IN_PROGRESS' AND new.claimed_by IS NULL
	ON CONFLICT (kind, job_id) DO UPDATE SET waiting = waiting + 1;
END;

CREATE TRIGGER savepoints_waiting_new AFTER INSERT ON savepoints
WHEN new.status = 'IN_PROGRESS' AND new.claimed_by IS NULL
BEGIN
	INSERT INTO queue_waiting (kind, job_id, waiting)
	VALUES ('SAVEPOINT', new.job_id, 1)
	ON CONFLICT (kind, job_id) DO UPDATE SET waiting = waiting + 1;
END;

CREATE TRIGGER savepoints_waiting_gone AFTER DELETE ON savepoints
WHEN old.status = 'IN_PROGRESS' AND old.claimed_by IS NULL
BEGIN
	UPDATE queue_waiting SET waiting = waiting - 1
	WHERE kind = 'SAVEPOINT' AND job_id = old.job_id;
	DELETE FROM queue_waiting
	WHERE kind = 'SAVEPOINT' AND job_id = old.job_id AND waiting = 0;
END;

CREATE TRIGGER savepoints_waiting_moved
AFTER UPDATE OF status, claimed_by, job_id ON savepoints
WHEN (old.status = 'IN_PROGRESS' AND old.claimed_by IS NULL)
    IS NOT (new.status = 'IN_PROGRESS' AND new.claimed_by IS NULL)
    OR old.job_id IS NOT new.job_id
BEGIN
	UPDATE queue_waiting SET waiting = waiting - 1
	WHERE kind = 'SAVEPOINT' AND job_id = old.job_id
	AND old.status = 'IN_PROGRESS' AND old.claimed_by IS NULL;
	DELETE FROM queue_waiting
	WHERE kind = 'SAVEPOINT' AND job_id = old.job_id AND waiting = 0;
	INSERT INTO queue_waiting (kind, job_id, waiting)
	SELECT 'SAVEPOINT', new.job_id, 1
	WHERE new.status = 'IN_PROGRESS' AND new.claimed_by IS NULL
	ON CONFLICT (kind, job_id) DO UPDATE SET waiting = waiting + 1;
END;
