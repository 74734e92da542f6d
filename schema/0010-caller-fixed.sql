-- 0010: who posted a trigger is never changed afterwards.
--
-- remote_user and remote_addr are the record of who asked for a
-- checkpoint (GET /jobs/:jobid/triggers, checkpointctl triggers).  No
-- statement may change them, except the one that starts an expired
-- trigger's row afresh (checkpoint-api(7), "RETENTION"): that row is a
-- new trigger, recorded with its own caller, and is told by what that
-- statement does: a COMPLETED row made anew, later, with no checkpoint id
-- and no claim.
CREATE TRIGGER triggers_caller_fixed BEFORE UPDATE OF remote_user, remote_addr
ON triggers
WHEN (old.remote_user IS NOT new.remote_user
    OR old.remote_addr IS NOT new.remote_addr)
    AND NOT (old.status = 'COMPLETED' AND new.created_ms > old.created_ms
        AND new.checkpoint_id IS NULL AND new.claimed_by IS NULL)
BEGIN
	SELECT RAISE(ABORT, 'the caller recorded with a trigger is never changed');
END;
