-- 0001: jobs, per-job checkpoint counters, triggers, and the operator's views.
--
-- Applied once, in one transaction, by any of the three programs; recorded in
-- PRAGMA user_version.  Never edit a migration that has shipped: add the next
-- numbered file instead.
--
-- Timestamps are integer milliseconds since the Unix epoch (*_ms); the views
-- show them as UTC text.

-- A job the operator registered with `checkpointctl job add`.
CREATE TABLE jobs (
	job_id          TEXT PRIMARY KEY
	                CHECK (length(job_id) = 32 AND job_id NOT GLOB '*[^0-9a-f]*'),
	name            TEXT NOT NULL DEFAULT '',
	state           TEXT NOT NULL DEFAULT 'RUNNING'
	                CHECK (state IN ('RUNNING', 'FINISHED', 'CANCELED', 'FAILED', 'SUSPENDED')),
	checkpoint_type TEXT NOT NULL DEFAULT 'FULL'
	                CHECK (checkpoint_type IN ('FULL', 'INCREMENTAL')),
	command         TEXT CHECK (command IS NULL OR length(command) > 0),
	timeout_s       INTEGER NOT NULL DEFAULT 600 CHECK (timeout_s > 0),
	created_ms      INTEGER NOT NULL,
	updated_ms      INTEGER NOT NULL
) STRICT;

-- The last checkpoint id handed out per job.  Kept apart from jobs so that
-- removing and re-adding a job never reuses an id (checkpoint-api(7),
-- "CHECKPOINT IDS").
CREATE TABLE checkpoint_counters (
	job_id          TEXT PRIMARY KEY
	                CHECK (length(job_id) = 32 AND job_id NOT GLOB '*[^0-9a-f]*'),
	last_id         INTEGER NOT NULL CHECK (last_id > 0)
) STRICT;

-- One row per (job, triggerId): what POST recorded and what the runner made
-- of it.  A COMPLETED row carries a checkpoint id, a failure, or both (a
-- failed attempt still consumes its id).
CREATE TABLE triggers (
	id              INTEGER PRIMARY KEY,
	job_id          TEXT NOT NULL
	                CHECK (length(job_id) = 32 AND job_id NOT GLOB '*[^0-9a-f]*'),
	trigger_id      TEXT NOT NULL
	                CHECK (length(trigger_id) = 32 AND trigger_id NOT GLOB '*[^0-9a-f]*'),
	requested_type  TEXT NOT NULL
	                CHECK (requested_type IN ('CONFIGURED', 'FULL', 'INCREMENTAL')),
	checkpoint_type TEXT CHECK (checkpoint_type IN ('FULL', 'INCREMENTAL')),
	status          TEXT NOT NULL DEFAULT 'IN_PROGRESS'
	                CHECK (status IN ('IN_PROGRESS', 'COMPLETED')),
	checkpoint_id   INTEGER CHECK (checkpoint_id > 0),
	location        TEXT,
	failure_class   TEXT,
	failure_trace   TEXT,
	created_ms      INTEGER NOT NULL,
	claimed_by      TEXT,
	claimed_ms      INTEGER,
	lease_ms        INTEGER,
	completed_ms    INTEGER,
	remote_user     TEXT,
	remote_addr     TEXT,
	CHECK ((failure_class IS NULL) = (failure_trace IS NULL)),
	CHECK (status = 'IN_PROGRESS' OR completed_ms IS NOT NULL),
	CHECK (status = 'IN_PROGRESS' OR checkpoint_id IS NOT NULL
	       OR failure_class IS NOT NULL),
	CHECK (status = 'COMPLETED' OR (completed_ms IS NULL AND failure_class IS NULL)),
	CHECK ((claimed_by IS NULL) = (claimed_ms IS NULL)),
	UNIQUE (job_id, trigger_id)
) STRICT;

-- The runner's queue: pending triggers in arrival order.
CREATE INDEX triggers_pending ON triggers (id) WHERE status = 'IN_PROGRESS';
-- Claimed triggers, by job: whether a job's command is running is one
-- probe, however long the queue (one job's commands never overlap).
CREATE INDEX triggers_claimed ON triggers (job_id)
	WHERE status = 'IN_PROGRESS' AND claimed_by IS NOT NULL;
-- Purging and retention scans.
CREATE INDEX triggers_completed ON triggers (completed_ms) WHERE status = 'COMPLETED';

-- Each trigger exactly as GET /jobs/:jobid/checkpoints/:triggerid answers it
-- (while its result has not expired), with the rest of its story beside it.
CREATE VIEW trigger_status AS
SELECT
	job_id,
	trigger_id,
	status,
	checkpoint_id,
	checkpoint_type,
	requested_type,
	location,
	CASE
	WHEN status = 'IN_PROGRESS' THEN
		'{"status":{"id":"IN_PROGRESS"},"operation":null}'
	WHEN failure_class IS NULL THEN
		json_object('status', json_object('id', 'COMPLETED'),
		    'operation', json_object('checkpointId', checkpoint_id))
	ELSE
		json_object('status', json_object('id', 'COMPLETED'),
		    'operation', json_object('failureCause',
		        json_object('class', failure_class,
		            'stack-trace', failure_trace)))
	END AS response,
	strftime('%Y-%m-%d %H:%M:%f', created_ms / 1000.0, 'unixepoch') AS created,
	strftime('%Y-%m-%d %H:%M:%f', completed_ms / 1000.0, 'unixepoch') AS completed,
	claimed_by,
	remote_user,
	remote_addr,
	created_ms,
	completed_ms
FROM triggers;

-- Registered jobs with their last checkpoint id.
CREATE VIEW job_overview AS
SELECT
	j.job_id,
	j.name,
	j.state,
	j.checkpoint_type,
	j.command,
	j.timeout_s,
	coalesce(c.last_id, 0) AS last_checkpoint_id,
	(SELECT count(*) FROM triggers t
	 WHERE t.job_id = j.job_id AND t.status = 'IN_PROGRESS') AS pending
FROM jobs j LEFT JOIN checkpoint_counters c USING (job_id);
