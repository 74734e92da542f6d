-- 0002: the triggers table's checks made cheap; the rows they accept are the
-- same.  Each check runs on every POST:
--
-- * CHECK (x IN ('a', 'b', 'c')) with three or more values makes SQLite build
--   an ephemeral index of the list on every INSERT, a page allocated and
--   zeroed: a large share of a POST's work (scripts/bench.d/results.md,
--   "Figures from the code's comments").  An OR of equalities is three
--   comparisons.
-- * x NOT GLOB '*[^0-9a-f]*' costs several times what
--   ltrim(x, '0123456789abcdef') = '' does, and says the same.
--
-- SQLite cannot change a CHECK in place, so the table is rebuilt as
-- https://www.sqlite.org/lang_altertable.html#otheralter describes: the views
-- that name it are dropped and made again unchanged, the rows copied with
-- their ids, the indexes made again.  Runs in the migration's one
-- transaction, like every migration.

DROP VIEW trigger_status;
DROP VIEW job_overview;

CREATE TABLE triggers_new (
	id              INTEGER PRIMARY KEY,
	job_id          TEXT NOT NULL
	                CHECK (length(job_id) = 32 AND ltrim(job_id, '0123456789abcdef') = ''),
	trigger_id      TEXT NOT NULL
	                CHECK (length(trigger_id) = 32
	                       AND ltrim(trigger_id, '0123456789abcdef') = ''),
	requested_type  TEXT NOT NULL
	                CHECK (requested_type = 'CONFIGURED' OR requested_type = 'FULL'
	                       OR requested_type = 'INCREMENTAL'),
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

-- Same columns in the same order.
INSERT INTO triggers_new SELECT * FROM triggers;
DROP TABLE triggers;
ALTER TABLE triggers_new RENAME TO triggers;

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
