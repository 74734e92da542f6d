-- PostgreSQL 0007: who posted a trigger is never changed afterwards (as
-- SQLite's 0010, under the same name).
--
-- No statement may change remote_user or remote_addr, except the one
-- that starts an expired trigger's row afresh (checkpoint-api(7),
-- "RETENTION"): a COMPLETED row made anew, later, with no checkpoint id
-- and no claim.
CREATE FUNCTION triggers_caller_fixed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	IF NOT (OLD.status = 'COMPLETED' AND NEW.created_ms > OLD.created_ms
	    AND NEW.checkpoint_id IS NULL AND NEW.claimed_by IS NULL) THEN
		RAISE EXCEPTION 'the caller recorded with a trigger is never changed'
		    USING ERRCODE = 'check_violation';
	END IF;
	RETURN NEW;
END
$$;
CREATE TRIGGER triggers_caller_fixed BEFORE UPDATE OF remote_user, remote_addr
ON triggers
FOR EACH ROW
WHEN (OLD.remote_user IS DISTINCT FROM NEW.remote_user
    OR OLD.remote_addr IS DISTINCT FROM NEW.remote_addr)
EXECUTE FUNCTION triggers_caller_fixed();

UPDATE schema_version SET version = version + 1,
	applied_ms = floor(extract(epoch FROM now()) * 1000)::bigint;
