-- 0006: savepoints, stop-with-savepoint and savepoint disposal.
--
-- Flink keeps savepoint and stop results in one cache per (job, triggerId),
-- apart from the checkpoint triggers' (a triggerId used for a checkpoint
-- may name a savepoint too); so do we, in a table of their own.  Unlike
-- Flink's cache a row is never purged: a savepoint's result stays as long
-- as the savepoint does, and a disposed one is marked, not forgotten.

-- Per job: the default directory (Flink's
-- execution.checkpointing.savepoint-dir) and the commands that take a
-- savepoint, stop the job with one, and delete one.
ALTER TABLE jobs ADD COLUMN savepoint_dir TEXT
	CHECK (savepoint_dir IS NULL OR length(savepoint_dir) > 0);
ALTER TABLE jobs ADD COLUMN savepoint_command TEXT
	CHECK (savepoint_command IS NULL OR length(savepoint_command) > 0);
ALTER TABLE jobs ADD COLUMN stop_command TEXT
	CHECK (stop_command IS NULL OR length(stop_command) > 0);
ALTER TABLE jobs ADD COLUMN dispose_command TEXT
	CHECK (dispose_command IS NULL OR length(dispose_command) > 0);

-- One row per (job, triggerId) of POST /jobs/:jobid/savepoints (kind
-- SAVEPOINT) or POST /jobs/:jobid/stop (kind STOP).  A COMPLETED row has a
-- location or a failure, never both (Flink's SavepointInfo); a failed
-- attempt that got an id keeps it.
CREATE TABLE savepoints (
	id              INTEGER PRIMARY KEY,
	job_id          TEXT NOT NULL
	                CHECK (length(job_id) = 32 AND ltrim(job_id, '0123456789abcdef') = ''),
	trigger_id      TEXT NOT NULL
	                CHECK (length(trigger_id) = 32
	                       AND ltrim(trigger_id, '0123456789abcdef') = ''),
	kind            TEXT NOT NULL CHECK (kind IN ('SAVEPOINT', 'STOP')),
	target_directory TEXT NOT NULL,
	format_type     TEXT NOT NULL CHECK (format_type IN ('CANONICAL', 'NATIVE')),
	cancel_job      INTEGER NOT NULL DEFAULT 0 CHECK (cancel_job IN (0, 1)),
	drain           INTEGER NOT NULL DEFAULT 0 CHECK (drain IN (0, 1)),
	status          TEXT NOT NULL DEFAULT 'IN_PROGRESS'
	                CHECK (status IN ('IN_PROGRESS', 'COMPLETED')),
	checkpoint_id   INTEGER CHECK (checkpoint_id > 0),
	location        TEXT,
	failure_class   TEXT,
	failure_trace   TEXT,
	failure_throwable TEXT,
	created_ms      INTEGER NOT NULL,
	claimed_by      TEXT,
	claimed_ms      INTEGER,
	lease_ms        INTEGER,
	completed_ms    INTEGER,
	disposed_ms     INTEGER,
	remote_user     TEXT,
	remote_addr     TEXT,
	CHECK ((failure_class IS NULL) = (failure_trace IS NULL)),
	CHECK ((failure_class IS NULL) = (failure_throwable IS NULL)),
	CHECK (status = 'IN_PROGRESS' OR (completed_ms IS NOT NULL
	       AND (location IS NULL) <> (failure_class IS NULL))),
	CHECK (status = 'COMPLETED' OR (completed_ms IS NULL
	       AND location IS NULL AND failure_class IS NULL)),
	CHECK ((claimed_by IS NULL) = (claimed_ms IS NULL)),
	CHECK (disposed_ms IS NULL OR location IS NOT NULL),
	UNIQUE (job_id, trigger_id)
) STRICT;

CREATE INDEX savepoints_pending ON savepoints (id) WHERE status = 'IN_PROGRESS';
CREATE INDEX savepoints_location ON savepoints (location) WHERE location IS NOT NULL;

-- One disposal per savepoint path: POST /savepoint-disposal of a path
-- already disposed or being disposed answers with its id and runs
-- nothing; one that failed is started again under the same id.
CREATE TABLE savepoint_disposals (
	id              INTEGER PRIMARY KEY,
	trigger_id      TEXT NOT NULL UNIQUE
	                CHECK (length(trigger_id) = 32
	                       AND ltrim(trigger_id, '0123456789abcdef') = ''),
	savepoint_path  TEXT NOT NULL UNIQUE,
	status          TEXT NOT NULL DEFAULT 'IN_PROGRESS'
	                CHECK (status IN ('IN_PROGRESS', 'COMPLETED')),
	failure_class   TEXT,
	failure_trace   TEXT,
	failure_throwable TEXT,
	created_ms      INTEGER NOT NULL,
	claimed_by      TEXT,
	claimed_ms      INTEGER,
	lease_ms        INTEGER,
	completed_ms    INTEGER,
	attempts        INTEGER NOT NULL DEFAULT 1 CHECK (attempts > 0),
	remote_user     TEXT,
	remote_addr     TEXT,
	CHECK ((failure_class IS NULL) = (failure_trace IS NULL)),
	CHECK ((failure_class IS NULL) = (failure_throwable IS NULL)),
	CHECK (status = 'IN_PROGRESS' OR completed_ms IS NOT NULL),
	CHECK (status = 'COMPLETED' OR (completed_ms IS NULL AND failure_class IS NULL)),
	CHECK ((claimed_by IS NULL) = (claimed_ms IS NULL))
) STRICT;

CREATE INDEX savepoint_disposals_pending ON savepoint_disposals (id)
	WHERE status = 'IN_PROGRESS';

-- Each savepoint as GET /jobs/:jobid/savepoints/:triggerid answers it.
CREATE VIEW savepoint_status AS
SELECT
	job_id,
	trigger_id,
	kind,
	status,
	checkpoint_id,
	location,
	CASE
	WHEN status = 'IN_PROGRESS' THEN
		'{"status":{"id":"IN_PROGRESS"},"operation":null}'
	WHEN failure_class IS NULL THEN
		json_object('status', json_object('id', 'COMPLETED'),
		    'operation', json_object('location', location))
	ELSE
		json_object('status', json_object('id', 'COMPLETED'),
		    'operation', json_object('failure-cause',
		        json_object('class', failure_class,
		            'stack-trace', failure_trace,
		            'serialized-throwable', failure_throwable)))
	END AS response,
	strftime('%Y-%m-%d %H:%M:%f', created_ms / 1000.0, 'unixepoch') AS created,
	strftime('%Y-%m-%d %H:%M:%f', completed_ms / 1000.0, 'unixepoch') AS completed,
	disposed_ms IS NOT NULL AS disposed,
	remote_user,
	remote_addr,
	created_ms,
	completed_ms
FROM savepoints;

-- The savepoints that took an id, as the checkpoints view shows
-- checkpoints: the statistics' history and details show both, one id
-- sequence per job, as Flink's.
CREATE VIEW savepoint_checkpoints AS
SELECT
	job_id,
	checkpoint_id,
	CASE
	WHEN status = 'IN_PROGRESS' THEN 'IN_PROGRESS'
	WHEN failure_class IS NULL THEN 'COMPLETED'
	ELSE 'FAILED'
	END AS status,
	coalesce(claimed_ms, created_ms) AS trigger_ms,
	completed_ms,
	max(0, completed_ms - coalesce(claimed_ms, created_ms)) AS duration_ms,
	location,
	failure_class,
	failure_trace,
	trigger_id,
	kind,
	format_type,
	disposed_ms
FROM savepoints
WHERE checkpoint_id IS NOT NULL;

CREATE INDEX savepoints_checkpoint ON savepoints (job_id, checkpoint_id)
	WHERE checkpoint_id IS NOT NULL;

-- Each disposal as GET /savepoint-disposal/:triggerid answers it.
CREATE VIEW savepoint_disposal_status AS
SELECT
	trigger_id,
	savepoint_path,
	status,
	attempts,
	CASE
	WHEN status = 'IN_PROGRESS' THEN
		'{"status":{"id":"IN_PROGRESS"},"operation":null}'
	WHEN failure_class IS NULL THEN
		'{"status":{"id":"COMPLETED"},"operation":{}}'
	ELSE
		json_object('status', json_object('id', 'COMPLETED'),
		    'operation', json_object('failure-cause',
		        json_object('class', failure_class,
		            'stack-trace', failure_trace,
		            'serialized-throwable', failure_throwable)))
	END AS response,
	remote_user,
	remote_addr,
	created_ms,
	completed_ms
FROM savepoint_disposals;
