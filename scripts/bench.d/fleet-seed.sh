#!/bin/sh
# scripts/bench.d/fleet-seed.sh DB JOBS KEPT [POLICY]: a fleet for the
# runner's idle pass, in the SQLite database DB (made by checkpointctl
# init): JOBS registered jobs, RUNNING, without a command, each with
# KEPT finished checkpoints in its history (with a location), one a
# minute up to now, and its counter, nothing waiting; with POLICY (a number), each
# job keeps its newest POLICY checkpoints (--keep-checkpoints).  Written
# in bulk by SQL, not through the API: the history's rows directly, as
# the runner's results would have left them.
set -eu
db=$1 jobs=$2 kept=$3 policy=${4:-}
sqlite3 "$db" <<SQL
PRAGMA journal_mode = WAL;
PRAGMA synchronous = OFF;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $jobs)
INSERT INTO jobs (job_id, name, created_ms, updated_ms)
SELECT printf('%032x', i), 'fleet ' || i, 1, 1 FROM n;
WITH RECURSIVE c(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM c WHERE k < $kept)
INSERT INTO checkpoint_history (job_id, checkpoint_id, status, trigger_row,
    trigger_id, requested_type, checkpoint_type, created_ms, completed_ms,
    location)
SELECT j.job_id, c.k, 'COMPLETED', 0, printf('%016x%016x', j.rowid, c.k),
    'CONFIGURED', 'FULL', t.ms - 60000 * ($kept - c.k) - 10,
    t.ms - 60000 * ($kept - c.k),
    '/ckpt/' || j.job_id || '/chk-' || c.k
FROM jobs j, c, (SELECT CAST(strftime('%s', 'now') AS INTEGER) * 1000 AS ms) AS t;
INSERT INTO checkpoint_counters (job_id, last_id)
SELECT job_id, $kept FROM jobs;
COMMIT;
SQL
if [ -n "$policy" ]; then
	sqlite3 "$db" "INSERT INTO retention (job_id, kind, keep_last, set_ms)
	    SELECT job_id, 'CHECKPOINT', $policy, 1 FROM jobs"
fi
sqlite3 "$db" "PRAGMA wal_checkpoint(TRUNCATE); ANALYZE" > /dev/null
