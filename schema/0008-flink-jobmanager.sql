-- A job bound to a Flink JobManager (checkpointctl job add --flink URL):
-- the runner triggers its checkpoints on that JobManager's REST API
-- instead of running a command, and records Flink's own checkpoint id,
-- external path and failure (checkpoint-runner(8), "FLINK JOBMANAGERS").
-- NULL: not bound.  The URL is the JobManager's REST endpoint, e.g.
-- http://jobmanager:8081; one service may front several clusters.
--
-- Nothing else changes shape: while Flink runs the checkpoint its trigger
-- is claimed without an id (a command's claim always takes one), and the
-- id Flink gives is recorded at completion, the job's counter moved up to
-- it (checkpoint_counters.last_id never goes down).  A failure keeps the
-- serialized-throwable Flink sent, in failure_throwable.
ALTER TABLE jobs ADD COLUMN flink_url TEXT
	CHECK (flink_url IS NULL OR flink_url GLOB 'http://?*'
	       OR flink_url GLOB 'https://?*');
