-- PostgreSQL 0010: the triggers refused by the queue bound, counted for
-- GET /metrics (as SQLite's 0013, under the same names).
--
-- The refused triggers still stored are counted by an index that holds
-- them alone; each moves into service_metrics.queue_refused as it leaves
-- (purged, removed, or started afresh under the same triggerId), so that
-- no refused POST writes the one service_metrics row.  Those purged
-- before this migration are not counted.
ALTER TABLE service_metrics ADD COLUMN queue_refused bigint NOT NULL
	DEFAULT 0 CHECK (queue_refused >= 0);

CREATE INDEX triggers_refused ON triggers (job_id)
WHERE status = 'COMPLETED' AND failure_trace LIKE
    'org.apache.flink.runtime.checkpoint.CheckpointException: The maximum number of queued checkpoint requests exceeded%';

CREATE FUNCTION triggers_refused_count() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	UPDATE service_metrics SET queue_refused = queue_refused + 1
	WHERE id = 1;
	RETURN NULL;
END
$$;
CREATE TRIGGER triggers_refused_gone AFTER DELETE ON triggers
FOR EACH ROW
WHEN (OLD.status = 'COMPLETED' AND OLD.failure_trace LIKE
    'org.apache.flink.runtime.checkpoint.CheckpointException: The maximum number of queued checkpoint requests exceeded%')
EXECUTE FUNCTION triggers_refused_count();
CREATE TRIGGER triggers_refused_anew AFTER UPDATE OF created_ms ON triggers
FOR EACH ROW
WHEN (OLD.status = 'COMPLETED' AND NEW.created_ms > OLD.created_ms
    AND OLD.failure_trace LIKE
    'org.apache.flink.runtime.checkpoint.CheckpointException: The maximum number of queued checkpoint requests exceeded%')
EXECUTE FUNCTION triggers_refused_count();

UPDATE schema_version SET version = version + 1,
	applied_ms = floor(extract(epoch FROM now()) * 1000)::bigint;
