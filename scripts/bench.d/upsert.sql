-- pgbench script: the PostgreSQL store's POST, one trigger a transaction
-- (scripts/bench --stage pg: the POST ceiling).  The statement is the
-- store's own upsert (cgi/store_pg.c, STMT_RECORD), for one row: the same
-- ON CONFLICT clause, with one row of VALUES where the store sends a
-- batch's arrays, and its parameters filled as a POST fills them: a fresh random triggerId of job :job
-- (pgbench -D job=...), the default store duration (300 s), no user;
-- created_ms is the server's clock, as in the store.
-- Under -M prepared it is prepared once a client and sent with its
-- values, as the store sends it.
\set r random(1, 9223372036854775807)
\set keep 300000
INSERT INTO triggers AS t (job_id, trigger_id, requested_type, created_ms, remote_user, remote_addr) VALUES (:job, lpad(to_hex(:r::bigint), 32, '0'), 'CONFIGURED', floor(extract(epoch FROM statement_timestamp()) * 1000)::bigint, NULL, '127.0.0.1') ON CONFLICT (job_id, trigger_id) DO UPDATE SET requested_type = excluded.requested_type, checkpoint_type = NULL, status = 'IN_PROGRESS', checkpoint_id = NULL, location = NULL, failure_class = NULL, failure_trace = NULL, failure_throwable = NULL, created_ms = excluded.created_ms, claimed_by = NULL, claimed_ms = NULL, lease_ms = NULL, completed_ms = NULL, remote_user = excluded.remote_user, remote_addr = excluded.remote_addr WHERE t.status = 'COMPLETED' AND :keep::bigint > 0 AND t.completed_ms <= excluded.created_ms - :keep::bigint;
