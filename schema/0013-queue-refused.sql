-- 0013: the triggers refused by the queue bound, counted for GET /metrics
-- (checkpoint_api_triggers_refused_total).
--
-- A trigger past CHECKPOINT_MAX_QUEUED is recorded already failed, with
-- Flink's text for a full queue, and purged with the other results.
-- Counting it as it is recorded would have every refused POST write the
-- one service_metrics row at the very moment a flood of them arrives; so
-- the refused triggers still stored are counted from the triggers table,
-- by an index that holds them alone, and each moves into the count kept
-- here as it leaves: purged, removed, or started afresh under the same
-- triggerId once its result expired.  Those purged before this migration
-- are not counted.
ALTER TABLE service_metrics ADD COLUMN queue_refused INTEGER NOT NULL
	DEFAULT 0 CHECK (queue_refused >= 0);

CREATE INDEX triggers_refused ON triggers (job_id)
WHERE status = 'COMPLETED' AND failure_trace LIKE
    'org.apache.flink.runtime.checkpoint.CheckpointException: The maximum number of queued checkpoint requests exceeded%';

CREATE TRIGGER triggers_refused_gone AFTER DELETE ON triggers
WHEN old.status = 'COMPLETED' AND old.failure_trace LIKE
    'org.apache.flink.runtime.checkpoint.CheckpointException: The maximum number of queued checkpoint requests exceeded%'
BEGIN
	UPDATE service_metrics SET queue_refused = queue_refused + 1
	WHERE id = 1;
END;

CREATE TRIGGER triggers_refused_anew AFTER UPDATE OF created_ms ON triggers
WHEN old.status = 'COMPLETED' AND new.created_ms > old.created_ms
    AND old.failure_trace LIKE
    'org.apache.flink.runtime.checkpoint.CheckpointException: The maximum number of queued checkpoint requests exceeded%'
BEGIN
	UPDATE service_metrics SET queue_refused = queue_refused + 1
	WHERE id = 1;
END;
