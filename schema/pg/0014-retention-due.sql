-- PostgreSQL 0014: retention's work in a runner's pass is what changed,
-- as SQLite's 0015 (the comments there).
ALTER TABLE retention ADD COLUMN due_ms bigint NOT NULL DEFAULT 0;
ALTER TABLE retention ADD COLUMN changes bigint NOT NULL DEFAULT 0;
CREATE INDEX retention_due ON retention (due_ms);

CREATE FUNCTION retention_due() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	UPDATE retention SET due_ms = 0, changes = changes + 1
	WHERE job_id = NEW.job_id AND kind = TG_ARGV[0];
	RETURN NULL;
END
$$;
CREATE TRIGGER retention_history_due AFTER INSERT ON checkpoint_history
FOR EACH ROW WHEN (NEW.kind = 'CHECKPOINT')
EXECUTE FUNCTION retention_due('CHECKPOINT');
CREATE TRIGGER retention_savepoint_due AFTER UPDATE OF status, kept_ms
ON savepoints
FOR EACH ROW EXECUTE FUNCTION retention_due('SAVEPOINT');

-- The history's retention by count likewise (SQLite's 0015).
CREATE TABLE history_grown (
	job_id text COLLATE "C" PRIMARY KEY
);
CREATE FUNCTION counters_grown() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO history_grown (job_id) VALUES (NEW.job_id)
	ON CONFLICT (job_id) DO NOTHING;
	RETURN NULL;
END
$$;
CREATE TRIGGER counters_grown_new AFTER INSERT ON checkpoint_counters
FOR EACH ROW EXECUTE FUNCTION counters_grown();
CREATE TRIGGER counters_grown AFTER UPDATE OF last_id ON checkpoint_counters
FOR EACH ROW WHEN (NEW.last_id <> OLD.last_id)
EXECUTE FUNCTION counters_grown();
CREATE TABLE history_keep (
	one  integer PRIMARY KEY CHECK (one = 1),
	keep bigint NOT NULL
);

-- A schedule's slots missed (SQLite's 0015).
ALTER TABLE schedules ADD COLUMN missed bigint NOT NULL DEFAULT 0
	CHECK (missed >= 0);
ALTER TABLE service_metrics ADD COLUMN schedule_missed bigint NOT NULL
	DEFAULT 0 CHECK (schedule_missed >= 0);

UPDATE schema_version SET version = version + 1,
	applied_ms = floor(extract(epoch FROM now()) * 1000)::bigint;
