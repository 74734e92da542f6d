-- PostgreSQL 0008: schedules, as SQLite's 0011 (the comments there).
CREATE TABLE schedules (
	job_id       text COLLATE "C" NOT NULL,
	kind         text NOT NULL CHECK (kind IN ('CHECKPOINT', 'SAVEPOINT')),
	every_ms     bigint CHECK (every_ms IS NULL OR every_ms >= 1000),
	cron         text CHECK (cron IS NULL OR length(cron) BETWEEN 9 AND 127),
	since_ms     bigint NOT NULL,
	last_slot_ms bigint NOT NULL,
	set_by       text,
	CHECK ((every_ms IS NULL) <> (cron IS NULL)),
	PRIMARY KEY (job_id, kind)
);

CREATE TABLE schedule_slots (
	job_id     text COLLATE "C" NOT NULL,
	kind       text NOT NULL,
	slot_ms    bigint NOT NULL,
	fired_ms   bigint NOT NULL,
	trigger_id text,
	skipped    text,
	CHECK ((trigger_id IS NULL) <> (skipped IS NULL)),
	PRIMARY KEY (job_id, kind, slot_ms)
);

CREATE FUNCTION jobs_schedules_gone() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM schedules WHERE job_id = OLD.job_id;
	DELETE FROM schedule_slots WHERE job_id = OLD.job_id;
	RETURN OLD;
END
$$;
CREATE TRIGGER jobs_schedules_gone AFTER DELETE ON jobs
FOR EACH ROW EXECUTE FUNCTION jobs_schedules_gone();

UPDATE schema_version SET version = version + 1,
	applied_ms = floor(extract(epoch FROM now()) * 1000)::bigint;
