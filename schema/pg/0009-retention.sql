-- PostgreSQL 0009: retention of savepoints and checkpoints, as SQLite's
-- 0012 (the comments there).
CREATE TABLE retention (
	job_id    text COLLATE "C" NOT NULL,
	kind      text NOT NULL CHECK (kind IN ('CHECKPOINT', 'SAVEPOINT')),
	keep_last bigint CHECK (keep_last IS NULL OR keep_last >= 1),
	keep_ms   bigint CHECK (keep_ms IS NULL OR keep_ms >= 1000),
	set_by    text,
	set_ms    bigint NOT NULL,
	CHECK (keep_last IS NOT NULL OR keep_ms IS NOT NULL),
	PRIMARY KEY (job_id, kind)
);

ALTER TABLE savepoints ADD COLUMN kept_ms bigint;
ALTER TABLE savepoint_disposals ADD COLUMN reason text;
ALTER TABLE checkpoint_history ADD COLUMN disposed_ms bigint;
CREATE INDEX checkpoint_history_location ON checkpoint_history (location)
	WHERE location IS NOT NULL;

CREATE FUNCTION jobs_retention_gone() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM retention WHERE job_id = OLD.job_id;
	RETURN OLD;
END
$$;
CREATE TRIGGER jobs_retention_gone AFTER DELETE ON jobs
FOR EACH ROW EXECUTE FUNCTION jobs_retention_gone();

CREATE FUNCTION savepoints_caller_fixed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'the caller recorded with a savepoint is never changed'
	    USING ERRCODE = 'check_violation';
END
$$;
CREATE TRIGGER savepoints_caller_fixed BEFORE UPDATE OF remote_user, remote_addr
ON savepoints
FOR EACH ROW
WHEN (OLD.remote_user IS DISTINCT FROM NEW.remote_user
    OR OLD.remote_addr IS DISTINCT FROM NEW.remote_addr)
EXECUTE FUNCTION savepoints_caller_fixed();

UPDATE schema_version SET version = version + 1,
	applied_ms = floor(extract(epoch FROM now()) * 1000)::bigint;
