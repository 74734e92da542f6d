/*
 * The statements PostgreSQL writes its own way, by name (enum stmt):
 * the rest are the shared ones of store_sql.c, their ?N read as $N.
 * Times are the server's (NOW_MS), never the caller's now_ms (store_pg.c
 * says why).
 */
#include <config.h>

#include <pthread.h>
#include <string.h>

#include "log.h"
#include "store_pg_impl.h"

/* The server's clock in ms, the same all through one statement. */
#define NOW_MS "floor(extract(epoch FROM statement_timestamp()) * 1000)::bigint"
/*
 * A disposal's path as its index (md5, PostgreSQL 0012) finds it: a
 * path may be longer than a btree entry.
 */
#define PG_SAME_PATH "md5(d.savepoint_path) = md5(c.location)"

/* A job's savepoints in its counts and durations, as store_sqlite_sql.c's. */
#define SAVEPOINT_COUNTS \
	"count(*) FILTER (WHERE status = 'COMPLETED')" \
	" AS completed, count(*) FILTER (WHERE status = 'FAILED') AS failed," \
	" count(*) FILTER (WHERE status = 'IN_PROGRESS') AS running," \
	" min(duration_ms) FILTER (WHERE status = 'COMPLETED') AS dmin," \
	" max(duration_ms) FILTER (WHERE status = 'COMPLETED') AS dmax," \
	" coalesce(sum(duration_ms) FILTER (WHERE status = 'COMPLETED'), 0)" \
	"::bigint AS dsum"

const char *const store_pg_sql[STMT__MAX] = {
	[STMT_BEGIN] = "BEGIN",
	/* One snapshot for several reads. */
	[STMT_BEGIN_READ] = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
	/*
	 * A committer's batch in one statement (pg_pipe_send_batch), a POST
	 * of plain CGI a batch of one: the triggers as arrays ($1 jobs, $2
	 * triggerIds, $3 types, $4 users, $5 addresses), sorted by key and
	 * without a key twice (one statement cannot upsert a row twice),
	 * inserted in that order, so that batches of several processes lock
	 * rows in one order.  Each row is a new trigger, or a fresh start for
	 * one whose result has expired (checkpoint-api(7), "RETENTION"); a
	 * live trigger is left alone, though its row stays locked to the end
	 * of the transaction.  RETURNING names the rows created or started
	 * afresh.  One statement a batch, not one a row: the server does
	 * much less for a batch (scripts/bench.d/results.md).
	 * A row past its job's $7 waiting triggers (those already queued,
	 * their count kept in queue_waiting, then the batch's own in order)
	 * is made already failed ($8, $9, $10): beside other processes'
	 * uncommitted batches, each may add its own.
	 */
	[STMT_RECORD] =
	    "INSERT INTO triggers AS t (job_id, trigger_id, requested_type,"
	    " created_ms, remote_user, remote_addr, status, failure_class,"
	    " failure_trace, failure_throwable, completed_ms)"
	    " SELECT r.j, r.k, r.y, " NOW_MS ", r.u, r.a,"
	    " CASE WHEN r.f THEN 'COMPLETED' ELSE 'IN_PROGRESS' END,"
	    " CASE WHEN r.f THEN $8 END, CASE WHEN r.f THEN $9 END,"
	    " CASE WHEN r.f THEN $10 END, CASE WHEN r.f THEN " NOW_MS " END"
	    " FROM (SELECT r.*, coalesce((SELECT q.waiting FROM queue_waiting q"
	    "  WHERE q.kind = 'TRIGGER' AND q.job_id = r.j), 0)"
	    "  + row_number() OVER (PARTITION BY r.j ORDER BY r.i)"
	    "  > $7::bigint AS f"
	    " FROM unnest($1::text[], $2::text[], $3::text[], $4::text[],"
	    "  $5::text[]) WITH ORDINALITY AS r (j, k, y, u, a, i)) AS r"
	    " ORDER BY r.i"
	    " ON CONFLICT (job_id, trigger_id) DO UPDATE SET"
	    " requested_type = excluded.requested_type,"
	    " checkpoint_type = NULL, status = excluded.status,"
	    " checkpoint_id = NULL, location = NULL,"
	    " failure_class = excluded.failure_class,"
	    " failure_trace = excluded.failure_trace,"
	    " failure_throwable = excluded.failure_throwable,"
	    " created_ms = excluded.created_ms,"
	    " claimed_by = NULL, claimed_ms = NULL, lease_ms = NULL,"
	    " completed_ms = excluded.completed_ms,"
	    " remote_user = excluded.remote_user,"
	    " remote_addr = excluded.remote_addr"
	    " WHERE t.status = 'COMPLETED' AND $6::bigint > 0"
	    " AND t.completed_ms <= excluded.created_ms - $6::bigint"
	    " RETURNING t.job_id, t.trigger_id",
	[STMT_STATUS] = "SELECT response FROM trigger_status"
			" WHERE job_id = $1 AND trigger_id = $2"
			" AND (status = 'IN_PROGRESS' OR $4::bigint = 0"
			" OR completed_ms > " NOW_MS " - $4::bigint)",
	/*
	 * The GETs of several threads in one statement (readers.c): $1 jobs
	 * and $2 triggerIds as arrays; each answer found comes with its
	 * place in them.
	 */
	[STMT_STATUSES] =
	    "SELECT k.i, s.response FROM unnest($1::text[], $2::text[])"
	    " WITH ORDINALITY AS k (job_id, trigger_id, i)"
	    " JOIN trigger_status s ON s.job_id = k.job_id"
	    " AND s.trigger_id = k.trigger_id"
	    " WHERE s.status = 'IN_PROGRESS' OR $3::bigint = 0"
	    " OR s.completed_ms > " NOW_MS " - $3::bigint",
	/*
	 * A job added or changed may free triggers waiting for it: the
	 * watching runners are told, inside the transaction (rare).
	 */
	[STMT_JOB_ADD] =
	    "WITH i AS (INSERT INTO jobs (job_id, name, state, checkpoint_type,"
	    " command, timeout_s, created_ms, updated_ms)"
	    " VALUES ($1, $2, $3, $4, $5, $6, " NOW_MS ", " NOW_MS ")"
	    " RETURNING 1)"
	    " SELECT pg_notify('" PG_CHANNEL "', '') FROM i",
	[STMT_JOB_SET] =
	    "WITH u AS (UPDATE jobs SET"
	    " name = CASE WHEN $2::int & 1 <> 0 THEN $3 ELSE name END,"
	    " state = CASE WHEN $2::int & 2 <> 0 THEN $4 ELSE state END,"
	    " checkpoint_type = CASE WHEN $2::int & 4 <> 0 THEN $5"
	    "  ELSE checkpoint_type END,"
	    " command = CASE WHEN $2::int & 8 <> 0 THEN $6 ELSE command END,"
	    " timeout_s = CASE WHEN $2::int & 16 <> 0 THEN $7::bigint"
	    "  ELSE timeout_s END,"
	    " updated_ms = " NOW_MS " WHERE job_id = $1 RETURNING 1)"
	    " SELECT pg_notify('" PG_CHANNEL "', '') FROM u",
	[STMT_CKPT_COUNTS] =
	    "SELECT j.timeout_s, coalesce(s.completed, 0) + p.completed,"
	    " coalesce(s.failed, 0) + p.failed,"
	    " coalesce(least(s.duration_min, p.dmin), 0),"
	    " coalesce(greatest(s.duration_max, p.dmax), 0),"
	    " coalesce(s.duration_sum, 0) + p.dsum,"
	    " (SELECT count(*) FROM triggers t WHERE t.job_id = j.job_id"
	    "  AND t.status = 'IN_PROGRESS' AND t.claimed_by IS NOT NULL)"
	    " + p.running"
	    " FROM jobs j LEFT JOIN checkpoint_stats s ON s.job_id = j.job_id,"
	    " (SELECT " SAVEPOINT_COUNTS " FROM savepoint_checkpoints"
	    "  WHERE job_id = $1) AS p"
	    " WHERE j.job_id = $1",
	[STMT_CKPT_LATEST] =
	    "SELECT last_completed, 'COMPLETED', completed_trigger_ms,"
	    " completed_ms, greatest(0, completed_ms - completed_trigger_ms),"
	    " completed_location, NULL, NULL, 0, NULL"
	    " FROM checkpoint_stats WHERE job_id = $1"
	    " AND last_completed IS NOT NULL"
	    " UNION ALL"
	    " SELECT last_failed, 'FAILED', failed_trigger_ms, failed_ms,"
	    " greatest(0, failed_ms - failed_trigger_ms), NULL, failed_class,"
	    " failed_trace, 0, NULL FROM checkpoint_stats WHERE job_id = $1"
	    " AND last_failed IS NOT NULL",
	/*
	 * The view checkpoints' two halves (schema/0007) written out, each
	 * ordered and limited on its own key: the planner would sort the
	 * view's whole union, a job's whole history, for the newest few.
	 * A running checkpoint is a claimed trigger (at most one a job),
	 * found by the claims' index, not among the job's results.  The
	 * job's savepoints (schema/0006, never purged) are a third half,
	 * limited on their own index: one id sequence, as Flink's.
	 */
	[STMT_CKPT_HISTORY] =
	    "SELECT * FROM (SELECT * FROM (SELECT checkpoint_id,"
	    "  'IN_PROGRESS' AS status, coalesce(claimed_ms, created_ms),"
	    "  NULL::bigint, NULL::bigint, location, failure_class,"
	    "  failure_trace, 0, NULL"
	    "  FROM triggers WHERE job_id = $1"
	    "  AND status = 'IN_PROGRESS' AND claimed_by IS NOT NULL"
	    "  AND checkpoint_id IS NOT NULL"
	    "  ORDER BY checkpoint_id DESC LIMIT $2) AS r"
	    " UNION ALL SELECT * FROM (SELECT checkpoint_id, status,"
	    "  coalesce(claimed_ms, created_ms), completed_ms,"
	    "  greatest(0, completed_ms - coalesce(claimed_ms, created_ms)),"
	    "  location, failure_class, failure_trace, 0, NULL"
	    "  FROM checkpoint_history WHERE job_id = $1"
	    "  ORDER BY checkpoint_id DESC LIMIT $2) AS h"
	    " UNION ALL SELECT * FROM (" SAVEPOINT_ROWS " WHERE job_id = $1"
	    "  ORDER BY checkpoint_id DESC LIMIT $2) AS s) AS u"
	    " ORDER BY 1 DESC LIMIT $2",
	[STMT_CKPT_DURATIONS] =
	    "SELECT duration_ms FROM (SELECT checkpoint_id, duration_ms"
	    " FROM checkpoints WHERE job_id = $1 AND status = 'COMPLETED'"
	    " UNION ALL SELECT checkpoint_id, duration_ms"
	    " FROM savepoint_checkpoints"
	    " WHERE job_id = $1 AND status = 'COMPLETED') AS d"
	    " ORDER BY checkpoint_id DESC LIMIT $2",
	/* Each part an index walk (store_sqlite.c says why). */
	[STMT_TRIGGER_RECENT] =
	    "SELECT " TRIGGER_COLS " FROM"
	    " (SELECT id AS ord, " TRIGGER_COLS " FROM triggers"
	    "  WHERE " QUEUED(
		"$1") " UNION ALL SELECT id AS ord, " TRIGGER_COLS
		      " FROM triggers"
		      "  WHERE " CLAIMED(
			  "$1") " UNION ALL SELECT * FROM (" HISTORY_AS_TRIGGERS
				"  WHERE job_id = $1 ORDER BY checkpoint_id DESC LIMIT $2) AS h)"
				" AS u ORDER BY ord DESC LIMIT $2",
	[STMT_TRIGGER_WAITING] =
	    "SELECT count(*), coalesce(min(created_ms), 0),"
	    " coalesce((SELECT pass_ms FROM service_metrics WHERE id = 1), 0)"
	    " FROM (SELECT created_ms FROM triggers WHERE " QUEUED(
		"$1") " UNION ALL SELECT created_ms FROM triggers WHERE " CLAIMED("$1") ") AS w",
	/* In batches: a purge of millions never holds one long transaction. */
	[STMT_PURGE] = "DELETE FROM triggers WHERE id IN (SELECT id FROM"
		       " triggers WHERE status = 'COMPLETED'"
		       " AND $2::bigint > 0"
		       " AND completed_ms <= " NOW_MS " - $2::bigint"
		       " LIMIT " PG_QUOTED(PG_PURGE_BATCH) ")",
	[STMT_SP_PURGE] = "DELETE FROM savepoints WHERE id IN (SELECT id FROM"
			  " savepoints WHERE status = 'COMPLETED'"
			  " AND checkpoint_id IS NULL AND location IS NULL"
			  " AND $2::bigint > 0"
			  " AND completed_ms <= " NOW_MS " - $2::bigint"
			  " LIMIT " PG_QUOTED(PG_PURGE_BATCH) ")",
	[STMT_DISPOSAL_PURGE] =
	    "DELETE FROM savepoint_disposals WHERE id IN (SELECT id FROM"
	    " savepoint_disposals WHERE status = 'COMPLETED'"
	    " AND $2::bigint > 0"
	    " AND completed_ms <= " NOW_MS " - $2::bigint"
	    " LIMIT " PG_QUOTED(PG_PURGE_BATCH) ")",
	/*
	 * The round's queue in arrival order, of the jobs the round locked
	 * ($4) only: a trigger that committed late, with an id inside the
	 * range, may be of a job another round holds.
	 */
	[STMT_PENDING] =
	    "SELECT t.id, t.job_id, t.trigger_id, t.requested_type,"
	    " j.job_id IS NOT NULL, j.state, j.checkpoint_type, j.command,"
	    " j.timeout_s,"
	    " EXISTS (SELECT 1 FROM triggers c WHERE c.job_id = t.job_id"
	    "  AND c.status = 'IN_PROGRESS' AND c.claimed_by IS NOT NULL),"
	    " j.flink_url"
	    " FROM triggers t LEFT JOIN jobs j ON j.job_id = t.job_id"
	    " WHERE t.status = 'IN_PROGRESS' AND t.claimed_by IS NULL"
	    " AND t.id > $1 AND t.id <= $3 AND t.job_id = ANY ($4::text[])"
	    " ORDER BY t.id LIMIT $2",
	[STMT_PENDING_BOUND] =
	    "SELECT max(id), count(*) FROM (SELECT id FROM triggers"
	    " WHERE status = 'IN_PROGRESS' AND claimed_by IS NULL AND id > $1"
	    " ORDER BY id LIMIT $2) AS r",
	/*
	 * The round's jobs, locked until its end, in job id order so that
	 * two rounds cannot deadlock; the wait is bounded by lock_timeout
	 * (STORE_BUSY: the runner tries again).  NO KEY UPDATE: POSTs, which
	 * never touch jobs, are not held up.
	 */
	[STMT_LOCK_JOBS] =
	    "SELECT job_id FROM jobs WHERE job_id IN (SELECT job_id"
	    " FROM triggers WHERE id > $1 AND id <= $2"
	    " AND status = 'IN_PROGRESS' AND claimed_by IS NULL)"
	    " ORDER BY job_id FOR NO KEY UPDATE",
	/*
	 * The jobs of the round's triggers that cannot run (not RUNNING),
	 * and each one's triggers failed (store_fail_unknown_jobs).
	 */
	[STMT_UNKNOWN_JOBS] =
	    "SELECT DISTINCT t.job_id FROM triggers t"
	    " WHERE t.id > $1 AND t.id <= $2 AND t.status = 'IN_PROGRESS'"
	    " AND t.claimed_by IS NULL AND NOT EXISTS (SELECT 1 FROM jobs j"
	    "  WHERE j.job_id = t.job_id AND j.state = 'RUNNING')",
	[STMT_FAIL_UNKNOWN] =
	    "UPDATE triggers AS t SET status = 'COMPLETED',"
	    " failure_class = $3, failure_trace = $4,"
	    " failure_throwable = $5, completed_ms = " NOW_MS
	    " WHERE t.job_id = $6 AND t.id > $1 AND t.id <= $2"
	    " AND t.status = 'IN_PROGRESS' AND t.claimed_by IS NULL"
	    " AND NOT EXISTS (SELECT 1 FROM jobs j"
	    "  WHERE j.job_id = t.job_id AND j.state = 'RUNNING')",
	/*
	 * The easy triggers of the round's locked jobs ($4) get the jobs'
	 * next ids in arrival order, and the counters move past them, in
	 * one statement.
	 */
	[STMT_COMPLETE_PLAIN] =
	    "WITH r AS (SELECT t.id AS id,"
	    "  coalesce(c.last_id, 0) + row_number() OVER"
	    "   (PARTITION BY t.job_id ORDER BY t.id) AS cid,"
	    "  CASE t.requested_type WHEN 'CONFIGURED' THEN j.checkpoint_type"
	    "   ELSE t.requested_type END AS typ"
	    " FROM triggers t JOIN jobs j ON j.job_id = t.job_id"
	    "  AND j.state = 'RUNNING' AND j.command IS NULL"
	    "  AND j.flink_url IS NULL"
	    " LEFT JOIN checkpoint_counters c ON c.job_id = t.job_id"
	    " WHERE t.id > $1 AND t.id <= $2 AND t.status = 'IN_PROGRESS'"
	    "  AND t.claimed_by IS NULL AND t.job_id = ANY ($4::text[])),"
	    " u AS (UPDATE triggers SET status = 'COMPLETED',"
	    " checkpoint_id = r.cid, checkpoint_type = r.typ,"
	    " completed_ms = " NOW_MS " FROM r WHERE triggers.id = r.id"
	    " AND triggers.status = 'IN_PROGRESS'"
	    " RETURNING triggers.job_id, triggers.checkpoint_id),"
	    " s AS (INSERT INTO checkpoint_counters (job_id, last_id)"
	    " SELECT job_id, max(checkpoint_id) FROM u GROUP BY job_id"
	    " ON CONFLICT (job_id) DO UPDATE SET last_id ="
	    " greatest(checkpoint_counters.last_id, excluded.last_id))"
	    " SELECT count(*) FROM u",
	[STMT_NEXT_ID] =
	    "INSERT INTO checkpoint_counters (job_id, last_id) VALUES ($1, 1)"
	    " ON CONFLICT (job_id) DO UPDATE"
	    " SET last_id = checkpoint_counters.last_id + 1 RETURNING last_id",
	/*
	 * Completing a claimed trigger ($8, its owner) frees its job: the
	 * watching runners are told, inside the transaction (rare).
	 */
	[STMT_COMPLETE] =
	    "WITH u AS (UPDATE triggers SET status = 'COMPLETED',"
	    " checkpoint_id = coalesce($2::bigint, checkpoint_id),"
	    " checkpoint_type = coalesce($3, checkpoint_type),"
	    " location = $4, failure_class = $5, failure_trace = $6,"
	    " failure_throwable = $9, completed_ms = " NOW_MS
	    " WHERE id = $1 AND status = 'IN_PROGRESS'"
	    " AND claimed_by IS NOT DISTINCT FROM $8::text RETURNING 1),"
	    " n AS (SELECT pg_notify('" PG_CHANNEL "', '') FROM u"
	    "  WHERE $8::text IS NOT NULL LIMIT 1)"
	    " SELECT (SELECT count(*) FROM u), (SELECT count(*) FROM n)",
	/* $7: the lease's length; it ends by the server's clock. */
	[STMT_CLAIM] =
	    "UPDATE triggers SET claimed_by = $2, claimed_ms = " NOW_MS ","
	    " lease_ms = " NOW_MS " + $7::bigint, checkpoint_id = $3,"
	    " checkpoint_type = $4"
	    " WHERE id = $1 AND status = 'IN_PROGRESS' AND claimed_by IS NULL",
	/* $4: the lease's new length, from now by the server's clock. */
	[STMT_CLAIM_RENEW] =
	    "UPDATE triggers SET lease_ms = " NOW_MS " + $4::bigint"
	    " WHERE id = $1 AND status = 'IN_PROGRESS' AND claimed_by = $2",
	/* The lease as time left by the server's clock (pg_claimed). */
	[STMT_CLAIMED] =
	    "SELECT id, job_id, trigger_id, claimed_by,"
	    " lease_ms - " NOW_MS ", checkpoint_id, checkpoint_type"
	    " FROM triggers"
	    " WHERE status = 'IN_PROGRESS' AND claimed_by IS NOT NULL"
	    " ORDER BY id",
	[STMT_METRICS_SERVICE] =
	    "SELECT q.n, coalesce(q.oldest, 0), (SELECT count(*)"
	    "  FROM triggers"
	    "  WHERE status = 'IN_PROGRESS' AND claimed_by IS NOT NULL),"
	    " m.c, m.f - m.x, m.x, s.job_not_found, s.pass_ms, s.pass_advanced,"
	    " s.pass_duration_ms, s.queue_refused + (SELECT count(*)"
	    "  FROM triggers WHERE " REFUSED ")"
	    " FROM service_metrics s,"
	    " (SELECT count(*) AS n, min(created_ms) AS oldest FROM triggers"
	    "  WHERE status = 'IN_PROGRESS' AND claimed_by IS NULL) AS q,"
	    " (SELECT coalesce(sum(completed), 0)::bigint AS c,"
	    "  coalesce(sum(failed), 0)::bigint AS f,"
	    "  coalesce(sum(expired), 0)::bigint AS x FROM checkpoint_stats)"
	    "  AS m"
	    " WHERE s.id = 1",
	/* SQLite's max(0, NULL) is NULL; greatest(0, NULL) would be 0. */
	[STMT_METRICS_JOBS] =
	    "SELECT j.job_id, j.name,"
	    " coalesce(s.completed, 0) + coalesce(p.completed, 0),"
	    " coalesce(s.failed, 0) + coalesce(p.failed, 0),"
	    " (SELECT count(*) FROM triggers t WHERE t.job_id = j.job_id"
	    "  AND t.status = 'IN_PROGRESS' AND t.claimed_by IS NOT NULL)"
	    " + coalesce(p.running, 0),"
	    " coalesce(s.last_completed, -1),"
	    " CASE WHEN s.completed_ms IS NULL"
	    "  OR s.completed_trigger_ms IS NULL THEN -1"
	    "  ELSE greatest(0, s.completed_ms - s.completed_trigger_ms) END"
	    " FROM jobs j LEFT JOIN checkpoint_stats s ON s.job_id = j.job_id"
	    " LEFT JOIN (SELECT job_id, " SAVEPOINT_COUNTS
	    "  FROM savepoint_checkpoints GROUP BY job_id) AS p"
	    " ON p.job_id = j.job_id ORDER BY j.job_id",
	/*
	 * A pass that advanced nothing is recorded only once the last record
	 * is $4 ms old.  It never notifies: watching runners would wake each
	 * other for ever.
	 */
	[STMT_RUNNER_PASS] = "UPDATE service_metrics SET pass_ms = " NOW_MS ","
			     " pass_advanced = $2, pass_duration_ms = $3"
			     " WHERE id = 1 AND ($2::bigint > 0"
			     " OR pass_ms <= " NOW_MS " - $4::bigint)",
	/* With the refused triggers the export leaves out (expired). */
	[STMT_EXPORT_SERVICE] =
	    "SELECT job_not_found, pass_ms, pass_advanced, pass_duration_ms,"
	    " schedule_missed, queue_refused + (SELECT count(*) FROM triggers"
	    " WHERE " REFUSED "  AND $2::bigint > 0 AND completed_ms <= " NOW_MS
	    " - $2::bigint)"
	    " FROM service_metrics WHERE id = 1",
	[STMT_EXPORT_TRIGGERS] =
	    "SELECT id, job_id, trigger_id, status, requested_type,"
	    " checkpoint_type, checkpoint_id, location, failure_class,"
	    " failure_trace, failure_throwable, claimed_by, remote_user,"
	    " remote_addr, created_ms, completed_ms, claimed_ms, lease_ms"
	    " FROM triggers"
	    " WHERE status = 'IN_PROGRESS' OR $2::bigint = 0"
	    " OR completed_ms > " NOW_MS " - $2::bigint ORDER BY id",
	/* Nothing else writes while the copy is checked and made. */
	[STMT_IMPORT_LOCK] =
	    "LOCK TABLE jobs, triggers, checkpoint_counters, checkpoint_stats,"
	    " service_metrics, checkpoint_history, savepoints,"
	    " savepoint_disposals, schedules, schedule_slots, retention"
	    " IN EXCLUSIVE MODE",
	/* The next POST's row follows the last one copied. */
	[STMT_IMPORT_SEQUENCE] =
	    "SELECT setval(pg_get_serial_sequence('triggers', 'id'),"
	    " (SELECT coalesce(max(id), 0) + 1 FROM triggers), false),"
	    " setval(pg_get_serial_sequence('savepoints', 'id'),"
	    " (SELECT coalesce(max(id), 0) + 1 FROM savepoints), false),"
	    " setval(pg_get_serial_sequence('savepoint_disposals', 'id'),"
	    " (SELECT coalesce(max(id), 0) + 1 FROM savepoint_disposals),"
	    " false)",
	/* A triggerId seen before starts nothing, whatever became of it. */
	/* A new one wakes the watching runners (LISTEN). */
	/* Past the job's $11 waiting, failed at once ($12, $13, $14). */
	[STMT_SP_RECORD] =
	    "WITH i AS (INSERT INTO savepoints (job_id, trigger_id, kind,"
	    " target_directory, format_type, cancel_job, drain, remote_user,"
	    " remote_addr, created_ms, status, failure_class, failure_trace,"
	    " failure_throwable, completed_ms)"
	    " SELECT $1, $2, $3, $4, $5, $6::bigint <> 0, $7::bigint <> 0,"
	    " $8, $9, " NOW_MS ","
	    " CASE WHEN f THEN 'COMPLETED' ELSE 'IN_PROGRESS' END,"
	    " CASE WHEN f THEN $12 END, CASE WHEN f THEN $13 END,"
	    " CASE WHEN f THEN $14 END, CASE WHEN f THEN " NOW_MS " END"
	    " FROM (SELECT $11::bigint > 0 AND coalesce((SELECT waiting"
	    "  FROM queue_waiting WHERE kind = 'SAVEPOINT' AND job_id = $1),"
	    "  0) >= $11::bigint AS f) AS q"
	    " ON CONFLICT (job_id, trigger_id) DO NOTHING RETURNING 1)"
	    " SELECT pg_notify('" PG_CHANNEL "', '') FROM i",
	/*
	 * The same for a committer's batch in one statement, as STMT_RECORD
	 * for triggers: each parameter an array, its k-th element the k-th
	 * savepoint's (pg_other_params); a row for each key recorded, the
	 * place (from 1) of its first.  Its NOTIFY comes after the batch's
	 * commit (pg_pipe_send_notify): one inside took its lock at every
	 * batch's commit.
	 */
	[STMT_SP_QUEUE] =
	    "WITH k AS (SELECT * FROM unnest($1::text[], $2::text[],"
	    " $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[],"
	    " $8::text[], $9::text[], $11::bigint[], $12::text[], $13::text[],"
	    " $14::text[]) WITH ORDINALITY AS k (job_id,"
	    " trigger_id, kind, target_directory, format_type, cancel_job,"
	    " drain, remote_user, remote_addr, mx, fc, ft, fth, i)),"
	    /* Past the job's waiting ones, then the batch's in order. */
	    " q AS (SELECT k.*, k.mx > 0 AND coalesce((SELECT w.waiting"
	    "  FROM queue_waiting w WHERE w.kind = 'SAVEPOINT'"
	    "  AND w.job_id = k.job_id), 0)"
	    "  + row_number() OVER (PARTITION BY k.job_id ORDER BY k.i)"
	    "  > k.mx AS f FROM k),"
	    " n AS (INSERT INTO savepoints (job_id, trigger_id, kind,"
	    " target_directory, format_type, cancel_job, drain, remote_user,"
	    " remote_addr, created_ms, status, failure_class, failure_trace,"
	    " failure_throwable, completed_ms) SELECT job_id, trigger_id, kind,"
	    " target_directory, format_type, cancel_job <> 0, drain <> 0,"
	    " remote_user, remote_addr, " NOW_MS ","
	    " CASE WHEN f THEN 'COMPLETED' ELSE 'IN_PROGRESS' END,"
	    " CASE WHEN f THEN fc END, CASE WHEN f THEN ft END,"
	    " CASE WHEN f THEN fth END, CASE WHEN f THEN " NOW_MS " END"
	    " FROM q ORDER BY i"
	    " ON CONFLICT (job_id, trigger_id) DO NOTHING"
	    " RETURNING job_id, trigger_id)"
	    " SELECT min(k.i) FROM n JOIN k USING (job_id, trigger_id)"
	    " GROUP BY k.job_id, k.trigger_id",
	/* As STMT_STATUSES, of savepoints and stops, until purged. */
	[STMT_SP_STATUSES] =
	    "SELECT k.i, s.response FROM unnest($1::text[], $2::text[])"
	    " WITH ORDINALITY AS k (job_id, trigger_id, i)"
	    " JOIN savepoint_status s ON s.job_id = k.job_id"
	    " AND s.trigger_id = k.trigger_id",
	/* Only a failed disposal starts again, under its first id. */
	[STMT_DISPOSAL_RECORD] =
	    "WITH i AS (INSERT INTO savepoint_disposals AS d (trigger_id,"
	    " savepoint_path,"
	    " remote_user, remote_addr, created_ms, reason)"
	    " VALUES ($1, $2, $3, $4, " NOW_MS ", $6::text)"
	    " ON CONFLICT ((md5(savepoint_path))) DO UPDATE SET"
	    " status = 'IN_PROGRESS', failure_class = NULL,"
	    " failure_trace = NULL, failure_throwable = NULL,"
	    " claimed_by = NULL, claimed_ms = NULL, lease_ms = NULL,"
	    " completed_ms = NULL, attempts = d.attempts + 1,"
	    " created_ms = excluded.created_ms,"
	    " remote_user = excluded.remote_user,"
	    " remote_addr = excluded.remote_addr, reason = excluded.reason"
	    " WHERE d.failure_class IS NOT NULL RETURNING 1)"
	    " SELECT pg_notify('" PG_CHANNEL "', '') FROM i",
	[STMT_DISPOSAL_ID] = "SELECT trigger_id FROM savepoint_disposals"
			     " WHERE md5(savepoint_path) = md5($1)",
	/*
	 * The runner's savepoint work (as SQLite's; leases and times on
	 * the server's clock): pending
	 * rows in arrival order with their job; busy while any command of
	 * the job runs (a checkpoint's or a savepoint's).
	 */
	[STMT_SP_PENDING] =
	    "SELECT s.id, s.job_id, s.trigger_id, s.kind = 'STOP',"
	    " s.target_directory, s.format_type = 'NATIVE', s.cancel_job,"
	    " s.drain, j.job_id IS NOT NULL, coalesce(j.state = 'RUNNING', false),"
	    " CASE s.kind WHEN 'STOP' THEN j.stop_command"
	    "  ELSE j.savepoint_command END, coalesce(j.timeout_s, 600),"
	    " EXISTS (SELECT 1 FROM triggers t WHERE t.job_id = s.job_id"
	    "  AND t.status = 'IN_PROGRESS' AND t.claimed_by IS NOT NULL)"
	    " OR EXISTS (SELECT 1 FROM savepoints o WHERE o.job_id = s.job_id"
	    "  AND o.status = 'IN_PROGRESS' AND o.claimed_by IS NOT NULL),"
	    " j.flink_url, coalesce(j.bookkeeping_only, 0) = 1"
	    " FROM savepoints s LEFT JOIN jobs j ON j.job_id = s.job_id"
	    " WHERE s.status = 'IN_PROGRESS' AND s.claimed_by IS NULL"
	    " ORDER BY s.id LIMIT $1 FOR UPDATE OF s SKIP LOCKED",
	[STMT_SP_CLAIM] =
	    "UPDATE savepoints SET claimed_by = $2, claimed_ms = " NOW_MS ","
	    " lease_ms = " NOW_MS " + $5::bigint, checkpoint_id = $3"
	    " WHERE id = $1 AND status = 'IN_PROGRESS' AND claimed_by IS NULL",
	[STMT_SP_COMPLETE] =
	    "UPDATE savepoints SET status = 'COMPLETED',"
	    " checkpoint_id = coalesce($2::bigint, checkpoint_id), location = $3,"
	    " failure_class = $4, failure_trace = $5, failure_throwable = $6,"
	    " completed_ms = " NOW_MS ", claimed_by = NULL, claimed_ms = NULL,"
	    " lease_ms = NULL"
	    " WHERE id = $1 AND status = 'IN_PROGRESS' AND claimed_by IS NOT DISTINCT FROM $8::text",
	[STMT_SP_END_JOB] = "UPDATE jobs SET state = $2, updated_ms = " NOW_MS
			    " WHERE job_id = $1 AND state = 'RUNNING'",
	/* A claim, and whether its lease is over. */
	[STMT_SP_CLAIMS] =
	    "SELECT id, job_id, trigger_id, claimed_by, lease_ms <= " NOW_MS
	    " FROM savepoints"
	    " WHERE status = 'IN_PROGRESS' AND claimed_by IS NOT NULL",
	[STMT_SP_RENEW] =
	    "UPDATE savepoints SET lease_ms = " NOW_MS " + $4::bigint"
	    " WHERE id = $1 AND status = 'IN_PROGRESS' AND claimed_by = $2",
	/*
	 * A disposal's command is that of the job whose savepoint has the
	 * path as its location.
	 */
	[STMT_DISPOSAL_PENDING] =
	    "SELECT d.id, d.trigger_id, d.savepoint_path, o.job_id,"
	    " j.dispose_command, coalesce(j.timeout_s, 600), j.flink_url,"
	    " " DISPOSAL_SCOPE " FROM savepoint_disposals d"
	    " LEFT JOIN savepoints s ON s.id = (SELECT max(id) FROM savepoints"
	    "  WHERE location = d.savepoint_path)"
	    /* Whose snapshot: a savepoint's job, else a checkpoint's. */
	    " CROSS JOIN LATERAL (SELECT coalesce(s.job_id,"
	    "  (SELECT h.job_id FROM checkpoint_history h"
	    "  WHERE h.location = d.savepoint_path LIMIT 1)) AS job_id) AS o"
	    " LEFT JOIN jobs j ON j.job_id = o.job_id"
	    " WHERE d.status = 'IN_PROGRESS' AND d.claimed_by IS NULL"
	    " ORDER BY d.id LIMIT $1 FOR UPDATE OF d SKIP LOCKED",
	[STMT_DISPOSAL_CLAIM] =
	    "UPDATE savepoint_disposals SET claimed_by = $2,"
	    " claimed_ms = " NOW_MS ", lease_ms = " NOW_MS " + $4::bigint"
	    " WHERE id = $1 AND status = 'IN_PROGRESS' AND claimed_by IS NULL",
	[STMT_DISPOSAL_COMPLETE] =
	    "UPDATE savepoint_disposals SET status = 'COMPLETED',"
	    " failure_class = $2, failure_trace = $3, failure_throwable = $4,"
	    " completed_ms = " NOW_MS ", claimed_by = NULL, claimed_ms = NULL,"
	    " lease_ms = NULL"
	    " WHERE id = $1 AND status = 'IN_PROGRESS' AND claimed_by IS NOT DISTINCT FROM $6::text",
	[STMT_DISPOSAL_MARK_HISTORY] =
	    "UPDATE checkpoint_history SET disposed_ms = " NOW_MS
	    " WHERE location = $1 AND disposed_ms IS NULL",
	[STMT_DISPOSAL_MARK] = "UPDATE savepoints SET disposed_ms = " NOW_MS
			       " WHERE location = $1 AND disposed_ms IS NULL",
	[STMT_DISPOSAL_CLAIMS] =
	    "SELECT id, '', trigger_id, claimed_by, lease_ms <= " NOW_MS
	    " FROM savepoint_disposals"
	    " WHERE status = 'IN_PROGRESS' AND claimed_by IS NOT NULL",
	[STMT_DISPOSAL_RENEW] =
	    "UPDATE savepoint_disposals SET lease_ms = " NOW_MS " + $4::bigint"
	    " WHERE id = $1 AND status = 'IN_PROGRESS' AND claimed_by = $2",
	[STMT_JOB_SET_SAVEPOINT] =
	    "UPDATE jobs SET"
	    " savepoint_dir = CASE WHEN $2::int & 32 <> 0 THEN $3 ELSE savepoint_dir END,"
	    " savepoint_command = CASE WHEN $2::int & 64 <> 0 THEN $4"
	    "  ELSE savepoint_command END,"
	    " stop_command = CASE WHEN $2::int & 128 <> 0 THEN $5 ELSE stop_command END,"
	    " dispose_command = CASE WHEN $2::int & 256 <> 0 THEN $6"
	    "  ELSE dispose_command END,"
	    " updated_ms = " NOW_MS " WHERE job_id = $1",
	/* latest.savepoint: the job's completed savepoint of highest id. */
	[STMT_SP_LATEST] = SAVEPOINT_ROWS
	" WHERE job_id = $1 AND status = 'COMPLETED'"
	" ORDER BY checkpoint_id DESC NULLS LAST LIMIT 1",
	/* Every savepoint of a job (NULL: of all), newest first. */
	[STMT_SP_LIST] =
	    "SELECT job_id, trigger_id, kind, status, checkpoint_id,"
	    " target_directory, format_type, cancel_job, drain, location,"
	    " failure_class, failure_trace, created_ms, claimed_ms,"
	    " completed_ms, disposed_ms, remote_user, remote_addr, kept_ms"
	    " FROM savepoints WHERE " JOB_RANGE("job_id",
		"$1::text") " ORDER BY id DESC",
	/* The history's retention, in batches as the purge's. */
	[STMT_HISTORY_PRUNE_KEEP] =
	    "DELETE FROM checkpoint_history WHERE ctid IN (SELECT h.ctid"
	    " FROM checkpoint_counters c JOIN checkpoint_history h"
	    " ON h.job_id = c.job_id AND h.checkpoint_id <= c.last_id - $2"
	    " WHERE $2::bigint > 0 LIMIT " PG_QUOTED(PG_PURGE_BATCH) ")",
	[STMT_HISTORY_PRUNE_AGE] =
	    "DELETE FROM checkpoint_history WHERE ctid IN (SELECT ctid"
	    " FROM checkpoint_history WHERE $3::bigint > 0"
	    " AND completed_ms <= " NOW_MS " - $3::bigint"
	    " LIMIT " PG_QUOTED(PG_PURGE_BATCH) ")",
	[STMT_SP_PRUNE] =
	    "DELETE FROM savepoints WHERE id IN (SELECT p.id FROM savepoints p"
	    " LEFT JOIN checkpoint_counters c ON c.job_id = p.job_id"
	    " WHERE p.status = 'COMPLETED' AND p.kept_ms IS NULL"
	    " AND (p.disposed_ms IS NOT NULL OR p.location IS NULL)"
	    " AND (($2::bigint > 0 AND p.checkpoint_id <= c.last_id - $2)"
	    "  OR ($3::bigint > 0"
	    "  AND p.completed_ms <= " NOW_MS " - $3::bigint))"
	    " AND p.id IS DISTINCT FROM (SELECT l.id FROM savepoints l"
	    "  WHERE l.job_id = p.job_id AND l.status = 'COMPLETED'"
	    "  ORDER BY l.checkpoint_id DESC NULLS LAST LIMIT 1)"
	    " LIMIT " PG_QUOTED(PG_PURGE_BATCH) ")",
	/* Tables copied whole (store_impl.h's *_COPY_COLS). */
	[STMT_EXPORT_SAVEPOINTS] =
	    "SELECT id, job_id, trigger_id, kind, target_directory,"
	    " format_type, cancel_job::int, drain::int, status, checkpoint_id,"
	    " location, failure_class, failure_trace, failure_throwable,"
	    " created_ms, claimed_by, claimed_ms, lease_ms, completed_ms,"
	    " disposed_ms, remote_user, remote_addr, kept_ms FROM savepoints"
	    " ORDER BY id",
	/* Jobs bound to a Flink JobManager (schema/pg/0005). */
	[STMT_JOB_FLINK_SET] = "UPDATE jobs SET flink_url = $2,"
			       " updated_ms = " NOW_MS " WHERE job_id = $1",
	/* A job's savepoints and stops bookkeeping only (schema/pg/0016). */
	[STMT_JOB_BOOKKEEPING_SET] =
	    "UPDATE jobs SET bookkeeping_only = $2::int,"
	    " updated_ms = " NOW_MS " WHERE job_id = $1",
	[STMT_FLINK_COMPLETE] =
	    "WITH u AS (UPDATE triggers SET status = 'COMPLETED',"
	    " checkpoint_id = $2::bigint,"
	    " checkpoint_type = coalesce($3, checkpoint_type),"
	    " location = $4, failure_class = $5, failure_trace = $6,"
	    " failure_throwable = $9, completed_ms = " NOW_MS
	    " WHERE id = $1 AND status = 'IN_PROGRESS'"
	    " AND claimed_by IS NOT DISTINCT FROM $8::text RETURNING 1),"
	    " n AS (SELECT pg_notify('" PG_CHANNEL "', '') FROM u LIMIT 1)"
	    " SELECT (SELECT count(*) FROM u), (SELECT count(*) FROM n)",
	/* Schedules: a rule set afresh starts at its since_ms. */
	[STMT_SCHED_SET] =
	    "INSERT INTO schedules (job_id, kind, every_ms, cron, since_ms,"
	    " last_slot_ms, set_by)"
	    " SELECT job_id, $2::text, $3::bigint, $4::text, $5::bigint,"
	    " $5::bigint, $6::text FROM jobs WHERE job_id = $1"
	    " ON CONFLICT (job_id, kind) DO UPDATE SET every_ms ="
	    " excluded.every_ms, cron = excluded.cron, since_ms ="
	    " excluded.since_ms, last_slot_ms = excluded.last_slot_ms,"
	    " set_by = excluded.set_by",
	/* The jobs' range too: a generic plan would read them all. */
	[STMT_SCHED_LIST] =
	    "SELECT s.job_id, s.kind, s.every_ms, s.cron, s.since_ms,"
	    " s.last_slot_ms, s.set_by, j.state, j.savepoint_dir, s.missed"
	    " FROM schedules s JOIN jobs j ON j.job_id = s.job_id"
	    " WHERE " JOB_RANGE("s.job_id",
		"$1::text") " AND " JOB_RANGE("j.job_id",
		"$1::text") " ORDER BY s.job_id, s.kind",
	/* Only the rule that was read, and only forward: one runner wins. */
	[STMT_SCHED_ADVANCE] =
	    "UPDATE schedules SET last_slot_ms = $3,"
	    " missed = missed + $5::bigint WHERE job_id = $1"
	    " AND kind = $2 AND since_ms = $4 AND last_slot_ms < $3",
	[STMT_SCHED_BUSY] =
	    "SELECT CASE WHEN $2::text = 'SAVEPOINT' THEN EXISTS (SELECT 1"
	    " FROM savepoints WHERE job_id = $1 AND status = 'IN_PROGRESS')"
	    " ELSE EXISTS (SELECT 1 FROM triggers WHERE job_id = $1"
	    " AND status = 'IN_PROGRESS') END::int",
	[STMT_SCHED_SLOT] =
	    "INSERT INTO schedule_slots (job_id, kind, slot_ms, fired_ms,"
	    " trigger_id, skipped) VALUES ($1, $2, $3, $4, $5::text, $6::text)",
	/*
	 * A checkpoint slot of a RUNNING job in one statement, each a round
	 * trip to the server: STMT_SCHED_ADVANCE, STMT_SCHED_BUSY,
	 * STMT_SCHED_SLOT, STMT_SCHED_RECORD and STMT_SCHED_SLOTS_PRUNE as
	 * one.  Its parts see one snapshot: the prune, which does not see
	 * the slot it inserts, keeps 99 others.  Answers whether the
	 * schedule moved, and whether the slot was skipped as busy ($9).
	 */
	[STMT_SCHED_FIRE_CHECKPOINT] =
	    "WITH a AS (UPDATE schedules SET last_slot_ms = $3::bigint,"
	    " missed = missed + $5::bigint WHERE job_id = $1 AND kind = $2"
	    " AND since_ms = $4::bigint AND last_slot_ms < $3::bigint"
	    " RETURNING job_id),"
	    " b AS (SELECT a.job_id, EXISTS (SELECT 1 FROM triggers t"
	    " WHERE t.job_id = a.job_id AND t.status = 'IN_PROGRESS') AS busy"
	    " FROM a),"
	    " sl AS (INSERT INTO schedule_slots (job_id, kind, slot_ms,"
	    " fired_ms, trigger_id, skipped) SELECT b.job_id, $2, $3::bigint,"
	    " $6::bigint, CASE WHEN b.busy THEN NULL ELSE $7::text END,"
	    " CASE WHEN b.busy THEN $9::text END FROM b),"
	    " tr AS (INSERT INTO triggers (job_id, trigger_id, requested_type,"
	    " created_ms, remote_user) SELECT b.job_id, $7::text, $8::text,"
	    " $6::bigint, $10::text FROM b WHERE NOT b.busy),"
	    " pr AS (DELETE FROM schedule_slots WHERE job_id = $1 AND kind = $2"
	    " AND EXISTS (SELECT 1 FROM a) AND slot_ms < (SELECT slot_ms"
	    " FROM schedule_slots WHERE job_id = $1 AND kind = $2"
	    " ORDER BY slot_ms DESC LIMIT 1 OFFSET 98))"
	    " SELECT (SELECT count(*) FROM a)::int,"
	    " coalesce((SELECT b.busy::int FROM b), 0)",
	/* Retention (schema/0012, retention.h): $2 is the kind. */
	[STMT_RETAIN_SET] =
	    "INSERT INTO retention (job_id, kind, keep_last, keep_ms, set_by,"
	    " set_ms) SELECT job_id, $2::text, $3::bigint, $4::bigint,"
	    " $5::text, $6::bigint FROM jobs"
	    " WHERE job_id = $1"
	    " ON CONFLICT (job_id, kind) DO UPDATE SET"
	    " keep_last = excluded.keep_last, keep_ms = excluded.keep_ms,"
	    " set_by = excluded.set_by, set_ms = excluded.set_ms,"
	    " due_ms = 0, changes = retention.changes + 1",
	/* A completed savepoint, by trigger id or checkpoint id. */
	[STMT_SP_KEEP] =
	    "UPDATE savepoints SET kept_ms = $4::bigint WHERE job_id = $1"
	    " AND (trigger_id = $2::text OR checkpoint_id = $3::bigint)"
	    " AND status = 'COMPLETED' AND location IS NOT NULL",
	/*
	 * Of every job with a policy, read from the policies (CROSS JOIN:
	 * in that order, SQLite), then each one's job by its key: no
	 * policy, nothing read; of one job, by the job's key, an equality
	 * that even a generic plan takes for one job's rows.
	 */
	[STMT_RETAIN_CANDIDATES] = RETAIN_CANDIDATES("JOIN", "NULL::bigint",
	    "$1::text IS NULL", PG_SAME_PATH),
	[STMT_RETAIN_CANDIDATES_JOB] = RETAIN_CANDIDATES("JOIN", "NULL::bigint",
	    "r.job_id = $1", PG_SAME_PATH),
	/* As store_sqlite_sql.c's. */
	[STMT_RETAIN_DUE] = "SELECT job_id, kind, changes FROM retention"
			    " WHERE due_ms <= $1::bigint ORDER BY job_id, kind",
	[STMT_RETAIN_NEXT] =
	    "UPDATE retention SET due_ms = $4::bigint"
	    " WHERE job_id = $1 AND kind = $2 AND changes = $3::bigint",
	/*
	 * As store_sqlite_sql.c's, the pruning and the forgetting one
	 * statement (STMT_HISTORY_GROWN_MARK: none): a job whose counter
	 * moves meanwhile is among the grown again once this one commits.
	 */
	/*
	 * Each grown job's counter and checkpoints by their keys (LATERAL,
	 * OFFSET 0: never pulled up into a join, which the generic plan
	 * could make a hash of the whole history), deleted by TID.
	 */
	[STMT_HISTORY_PRUNE_GROWN] =
	    "WITH g AS (DELETE FROM history_grown RETURNING job_id)"
	    " DELETE FROM checkpoint_history WHERE $2::bigint > 0"
	    " AND ctid = ANY (ARRAY(SELECT x.ctid FROM g,"
	    " LATERAL (SELECT last_id FROM checkpoint_counters"
	    "  WHERE job_id = g.job_id OFFSET 0) AS c,"
	    " LATERAL (SELECT h.ctid FROM checkpoint_history h"
	    "  WHERE h.job_id = g.job_id AND h.checkpoint_id <= c.last_id - $2"
	    "  OFFSET 0) AS x))",
	[STMT_HISTORY_KEEP_SET] =
	    "INSERT INTO history_keep (one, keep) VALUES (1, $2::bigint)"
	    " ON CONFLICT (one) DO UPDATE SET keep = excluded.keep",
	[STMT_SCHED_MISSED_ADD] =
	    "UPDATE service_metrics"
	    " SET schedule_missed = schedule_missed + $1::bigint"
	    " WHERE id = 1",
	[STMT_COUNTER_FOLLOW] =
	    "INSERT INTO checkpoint_counters (job_id, last_id)"
	    " SELECT job_id, $2::bigint FROM triggers WHERE id = $1"
	    " ON CONFLICT (job_id) DO UPDATE"
	    " SET last_id = greatest(checkpoint_counters.last_id,"
	    " excluded.last_id)",
	/*
	 * The jobs whose first waiting trigger a round may take, up to $1,
	 * found as SQLite's STMT_PENDING_HEADS finds them (the queue in
	 * arrival order up to the round's last row, $2; each row's job and
	 * queue probed by their keys, OFFSET 0: never a join over the
	 * fleet), locked until the round's end; those another runner's
	 * round holds are its own to take, and are skipped rather than
	 * waited for.  The heads are read by the next statement, whose
	 * snapshot follows the locks: a claim committed meanwhile is seen.
	 */
	[STMT_LOCK_HEADS] =
	    "SELECT job_id FROM jobs WHERE job_id = ANY (ARRAY("
	    " SELECT t.job_id FROM triggers t,"
	    " LATERAL (SELECT 1 FROM jobs h WHERE h.job_id = t.job_id"
	    "  AND h.state = 'RUNNING'"
	    "  AND (h.command IS NOT NULL OR h.flink_url IS NOT NULL)"
	    "  AND NOT EXISTS (SELECT 1 FROM triggers e"
	    "   WHERE e.job_id = t.job_id AND e.status = 'IN_PROGRESS'"
	    "   AND e.claimed_by IS NULL AND e.id < t.id)"
	    "  AND NOT EXISTS (SELECT 1 FROM triggers c"
	    "   WHERE c.job_id = t.job_id AND c.status = 'IN_PROGRESS'"
	    "   AND c.claimed_by IS NOT NULL) OFFSET 0) AS h"
	    " WHERE t.status = 'IN_PROGRESS' AND t.claimed_by IS NULL"
	    " AND t.id <= $2 ORDER BY t.id LIMIT $1))"
	    " ORDER BY job_id FOR NO KEY UPDATE SKIP LOCKED",
	/* The first waiting trigger of each job locked ($2), by its key. */
	[STMT_PENDING_HEADS] =
	    "SELECT t.id, t.job_id, t.trigger_id, t.requested_type,"
	    " j.job_id IS NOT NULL, j.state, j.checkpoint_type, j.command,"
	    " j.timeout_s, false, j.flink_url"
	    " FROM jobs j CROSS JOIN LATERAL (SELECT q.id, q.job_id,"
	    "  q.trigger_id, q.requested_type FROM triggers q"
	    "  WHERE q.job_id = j.job_id AND q.status = 'IN_PROGRESS'"
	    "  AND q.claimed_by IS NULL ORDER BY q.id LIMIT 1) AS t"
	    " WHERE j.job_id = ANY ($2::text[]) AND j.state = 'RUNNING'"
	    " AND (j.command IS NOT NULL OR j.flink_url IS NOT NULL)"
	    " AND NOT EXISTS (SELECT 1 FROM triggers c WHERE c.job_id = j.job_id"
	    "  AND c.status = 'IN_PROGRESS' AND c.claimed_by IS NOT NULL)"
	    " ORDER BY t.id LIMIT $1",
};

/*
 * The shared statements (store_sql.c) with this dialect's placeholders:
 * each ?N made $N, once (pthread_once: whichever thread asks first), in
 * an arena of their size.
 */
static char pg_shared_arena[STORE_SQL_SHARED_MAX];
static const char *pg_shared[STMT__MAX];
static pthread_once_t pg_shared_once = PTHREAD_ONCE_INIT;

static void
pg_shared_init(void)
{
	const char *shared;
	size_t used = 0, n;
	char *t, *q;
	int id;

	for (id = 0; id < STMT__MAX; id++) {
		if ((shared = store_sql_shared_text(id)) == NULL ||
		    pg_shared[id] != NULL)
			continue;
		n = strlen(shared) + 1;
		if (used + n > sizeof(pg_shared_arena)) {
			log_error("statement %d: no room for its PostgreSQL "
				  "form (STORE_SQL_SHARED_MAX)",
			    id);
			continue;
		}
		t = memcpy(pg_shared_arena + used, shared, n);
		for (q = t; (q = strchr(q, '?')) != NULL; q++)
			*q = '$';
		pg_shared[id] = t;
		used += n;
	}
}

/* Statement id's text in this dialect, or NULL. */
const char *
pg_sql(enum stmt id)
{
	if (store_pg_sql[id] != NULL)
		return store_pg_sql[id];
	(void)pthread_once(&pg_shared_once, pg_shared_init);
	return pg_shared[id];
}
