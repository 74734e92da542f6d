-- PostgreSQL 0015: each job's waiting triggers, and its waiting savepoints
-- and stops, counted as they come and go (SQLite's 0016 says why).
--
-- Statement triggers, not row triggers: each statement adds its rows'
-- moves up by job and applies them in job order, so two statements
-- touching the same jobs lock their counts in the same order (a
-- committer's batch records many jobs' triggers at once).  The count
-- takes no CHECK: a proposed row is checked before its conflict is, and
-- a statement's move of a job that waits may be negative.
CREATE TABLE queue_waiting (
	kind    text NOT NULL CHECK (kind IN ('TRIGGER', 'SAVEPOINT')),
	job_id  text COLLATE "C" NOT NULL,
	waiting bigint NOT NULL,
	PRIMARY KEY (kind, job_id)
);

INSERT INTO queue_waiting (kind, job_id, waiting)
SELECT 'TRIGGER', job_id, count(*) FROM triggers
WHERE status = 'IN_PROGRESS' AND claimed_by IS NULL GROUP BY job_id;
INSERT INTO queue_waiting (kind, job_id, waiting)
SELECT 'SAVEPOINT', job_id, count(*) FROM savepoints
WHERE status = 'IN_PROGRESS' AND claimed_by IS NULL GROUP BY job_id;

-- Adds each job's move n to its count of kind k, in job order; a count
-- at 0 loses its row.
CREATE FUNCTION queue_waiting_add(k text, jobs text[], n bigint[])
RETURNS void LANGUAGE sql AS $$
	INSERT INTO queue_waiting AS q (kind, job_id, waiting)
	SELECT k, u.j, u.d FROM unnest(jobs, n) AS u (j, d)
	WHERE u.d <> 0 ORDER BY u.j COLLATE "C"
	ON CONFLICT (kind, job_id)
	DO UPDATE SET waiting = q.waiting + excluded.waiting;
	DELETE FROM queue_waiting
	WHERE kind = k AND job_id = ANY (jobs) AND waiting = 0;
$$;

-- The statement's rows that began waiting (new_rows) count 1, those that
-- stopped (old_rows) -1, by job; TG_ARGV[0] names the kind.
CREATE FUNCTION queue_waiting_moved() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
	jobs text[];
	n bigint[];
BEGIN
	IF TG_OP = 'INSERT' THEN
		SELECT array_agg(job_id), array_agg(c) INTO jobs, n
		FROM (SELECT job_id, count(*) AS c FROM new_rows
		WHERE status = 'IN_PROGRESS' AND claimed_by IS NULL
		GROUP BY job_id) AS m;
	ELSIF TG_OP = 'DELETE' THEN
		SELECT array_agg(job_id), array_agg(-c) INTO jobs, n
		FROM (SELECT job_id, count(*) AS c FROM old_rows
		WHERE status = 'IN_PROGRESS' AND claimed_by IS NULL
		GROUP BY job_id) AS m;
	ELSE
		SELECT array_agg(job_id), array_agg(c) INTO jobs, n
		FROM (SELECT job_id, sum(d) AS c FROM
		(SELECT job_id, 1 AS d FROM new_rows
		WHERE status = 'IN_PROGRESS' AND claimed_by IS NULL
		UNION ALL SELECT job_id, -1 FROM old_rows
		WHERE status = 'IN_PROGRESS' AND claimed_by IS NULL) AS u
		GROUP BY job_id) AS m;
	END IF;
	IF jobs IS NOT NULL THEN
		PERFORM queue_waiting_add(TG_ARGV[0], jobs, n);
	END IF;
	RETURN NULL;
END
$$;

CREATE TRIGGER triggers_waiting_new AFTER INSERT ON triggers
REFERENCING NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION queue_waiting_moved('TRIGGER');
CREATE TRIGGER triggers_waiting_moved AFTER UPDATE ON triggers
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION queue_waiting_moved('TRIGGER');
CREATE TRIGGER triggers_waiting_gone AFTER DELETE ON triggers
REFERENCING OLD TABLE AS old_rows
FOR EACH STATEMENT EXECUTE FUNCTION queue_waiting_moved('TRIGGER');
CREATE TRIGGER savepoints_waiting_new AFTER INSERT ON savepoints
REFERENCING NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION queue_waiting_moved('SAVEPOINT');
CREATE TRIGGER savepoints_waiting_moved AFTER UPDATE ON savepoints
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION queue_waiting_moved('SAVEPOINT');
CREATE TRIGGER savepoints_waiting_gone AFTER DELETE ON savepoints
REFERENCING OLD TABLE AS old_rows
FOR EACH STATEMENT EXECUTE FUNCTION queue_waiting_moved('SAVEPOINT');

UPDATE schema_version SET version = version + 1,
	applied_ms = floor(extract(epoch FROM now()) * 1000)::bigint;
