/*
 * The PostgreSQL store behind store.h: one database shared by many hosts,
 * chosen by a postgresql:// (or postgres://) URI in CHECKPOINT_DB.
 *
 * One connection (PGconn) per store; a store is used by one thread at a
 * time, as libpq requires.  Every statement lives in the table below, is
 * prepared on its connection on first use and is referred to by name.
 *
 * Times.  Every time stored or compared (created_ms, completed_ms,
 * claimed_ms, lease_ms, retention, updated_ms, a runner's pass) is taken
 * from the database server's clock (NOW_MS), never from the caller's
 * now_ms: web hosts and runners on several machines must agree on what
 * "expired" means, and one clock is the only way to be sure they do.
 *
 * Concurrency.  Statements run at READ COMMITTED.  Runner rounds run at
 * the same time on several hosts (SQLite's BEGIN IMMEDIATE serialised
 * them), so a round locks the job rows of the triggers it decides, in
 * job id order, before it decides any (STMT_LOCK_JOBS, store.c's
 * lock_round): two rounds never decide triggers of one job at once, and
 * ids stay dense and unique per job.
 *
 * Errors.  SQLSTATEs become store_rc (pg_rc_from): a lost connection is
 * STORE_UNAVAILABLE and marks the store dead, so that every later call
 * fails at once until the caller closes it and opens another (libpq with
 * a multi-host URI and target_session_attrs=read-write then finds the
 * primary after a failover).  A password never reaches a log line or an
 * error text: the server is named by host, port and database.
 *
 * Notifications.  A runner's --watch listens on checkpoint_triggers
 * (store_watch_fd); writers notify after their commit, never inside the
 * transaction of a POST (see pg_pipe_send_notify).
 */
#include <config.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>

#include "clock.h"
#include "failure.h"
#include "log.h"
#include "schema.h"
#include "store_impl.h"
#include "throwable.h"

static const struct store_ops pg_ops;

/* "ckpt": the advisory lock that serialises migrations across hosts. */
#define PG_MIGRATION_LOCK "1668969588"
/* The channel a runner's watch listens on. */
#define PG_CHANNEL "checkpoint_triggers"
/* The committer's pipeline: a NOTIFY at most this often under load. */
#define PG_NOTIFY_EVERY_MS 5
/* A batch refused by a deadlock is sent again this long after. */
#define PG_RETRY_AFTER_MS 100
/* The server's clock in ms, the same all through one statement. */
#define NOW_MS "floor(extract(epoch FROM statement_timestamp()) * 1000)::bigint"
/* Rows a purge deletes per statement, so that no transaction grows long. */
#define PG_PURGE_BATCH 10000
#define PG_QUOTE(x) #x
#define PG_QUOTED(x) PG_QUOTE(x)
#define PG_MAX_PARAMS 24
/* Passwords kept to scrub from messages: as written, and libpq's. */
#define PG_SECRETS 4
/* pg_batch_params's texts, and pg_other_params's (a savepoint's values). */
#define PG_BATCH_BUFS 14
/*
 * A disposal's path as its index (md5, PostgreSQL 0012) finds it: a
 * path may be longer than a btree entry.
 */
#define PG_SAME_PATH "md5(d.savepoint_path) = md5(c.location)"

/* A job's savepoints in its counts and durations, as store_sqlite.c's. */
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
	 * then the batch's own in order) is made already failed ($8, $9,
	 * $10): beside other processes' batches, each may add its own.
	 */
	[STMT_RECORD] =
	    "INSERT INTO triggers AS t (job_id, trigger_id, requested_type,"
	    " created_ms, remote_user, remote_addr, status, failure_class,"
	    " failure_trace, failure_throwable, completed_ms)"
	    " SELECT r.j, r.k, r.y, " NOW_MS ", r.u, r.a,"
	    " CASE WHEN r.f THEN 'COMPLETED' ELSE 'IN_PROGRESS' END,"
	    " CASE WHEN r.f THEN $8 END, CASE WHEN r.f THEN $9 END,"
	    " CASE WHEN r.f THEN $10 END, CASE WHEN r.f THEN " NOW_MS " END"
	    " FROM (SELECT r.*, (SELECT count(*) FROM (SELECT 1 FROM triggers q"
	    "  WHERE q.job_id = r.j AND q.status = 'IN_PROGRESS'"
	    "  AND q.claimed_by IS NULL LIMIT $7::bigint) AS w)"
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
	    " FROM (SELECT $11::bigint > 0 AND (SELECT count(*) FROM (SELECT 1"
	    "  FROM savepoints WHERE job_id = $1 AND status = 'IN_PROGRESS'"
	    "  AND claimed_by IS NULL LIMIT greatest($11::bigint, 0)) AS w)"
	    "  >= $11::bigint AS f) AS q"
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
	    " q AS (SELECT k.*, k.mx > 0 AND (SELECT count(*) FROM (SELECT 1"
	    "  FROM savepoints w WHERE w.job_id = k.job_id"
	    "  AND w.status = 'IN_PROGRESS' AND w.claimed_by IS NULL"
	    "  LIMIT greatest(k.mx, 0)) AS w)"
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
	    " j.flink_url"
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
	/* As store_sqlite.c's. */
	[STMT_RETAIN_DUE] = "SELECT job_id, kind, changes FROM retention"
			    " WHERE due_ms <= $1::bigint ORDER BY job_id, kind",
	[STMT_RETAIN_NEXT] =
	    "UPDATE retention SET due_ms = $4::bigint"
	    " WHERE job_id = $1 AND kind = $2 AND changes = $3::bigint",
	/*
	 * As store_sqlite.c's, the pruning and the forgetting one
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

/* A batch's trigger and its place in the batch, to sort by key. */
struct rec_at {
	const struct trigger_rec *t;
	size_t i;
};

/*
 * What the committer sent in pipeline mode and has not read yet
 * (pg_record_send): a batch, or the NOTIFY sent after one.  A batch's
 * outcome is read into it, at its turn or ahead of it (pg_pipe_retry),
 * and handed over at its turn.
 */
#define PG_PIPE_MAX (2 * STORE_IN_FLIGHT + 1)
struct pg_sent {
	int notify;
	size_t posts; /* the batch's: created[] is by place among them */
	struct rec_at *r; /* its triggers, sorted by key */
	size_t n;
	/* Its other posts: no of statement other, nv values each in ov[]. */
	enum stmt other;
	struct store_val *ov;
	size_t *oi; /* their places */
	size_t no;
	int nv;
	int read; /* rc and created are its outcome */
	int deadlock; /* a deadlock's loser: tried again at its turn */
	enum store_rc rc;
	int *created; /* a batch's, by place: the posts that created */
};

struct pg {
	struct store base; /* first: the handle store.c hands out */
	PGconn *conn;
	unsigned char prepared[STMT__MAX];
	/* The parameters a statement's SQL leaves unused, once looked at. */
	uint32_t unused[STMT__MAX];
	unsigned char scanned[STMT__MAX];
	int dead; /* the connection is lost: fail fast until closed */
	int wants_primary; /* target_session_attrs asks for a writable host */
	int listening; /* LISTEN done on this connection */
	int sync_cancelled; /* a commit was only local (pg_notice) */
	int64_t notifications; /* store_data_version */
	int64_t wait_ms; /* longest wait for an answer before cancelling */
	int64_t busy_ms; /* lock_timeout */
	int sync_normal; /* synchronous_commit = off */
	char secret[PG_SECRETS][256]; /* never printed: the passwords */
	char state[6]; /* the SQLSTATE of the last error ("": none) */
	char where[256]; /* host:port/db, for messages */
	/* The committer's pipeline: entries sent, oldest first. */
	struct pg_sent pipe[PG_PIPE_MAX];
	int pipe_head, npipe, nbatches;
	int notify_owed; /* a batch was sent since the last NOTIFY */
	int64_t notify_ms; /* when the last NOTIFY was sent (monotonic) */
};

static void pg_where(struct pg *);
static enum store_rc pg_session(struct pg *);
static void pg_pipe_pop(struct pg *);

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
	size_t used = 0, n;
	char *t, *q;
	int id;

	for (id = 0; id < STMT__MAX; id++) {
		if (store_sql_shared[id] == NULL || pg_shared[id] != NULL)
			continue;
		n = strlen(store_sql_shared[id]) + 1;
		if (used + n > sizeof(pg_shared_arena)) {
			log_error("statement %d: no room for its PostgreSQL "
				  "form (STORE_SQL_SHARED_MAX)",
			    id);
			continue;
		}
		t = memcpy(pg_shared_arena + used, store_sql_shared[id], n);
		for (q = t; (q = strchr(q, '?')) != NULL; q++)
			*q = '$';
		pg_shared[id] = t;
		used += n;
	}
}

/* Statement id's text in this dialect, or NULL. */
static const char *
pg_sql(enum stmt id)
{
	if (store_pg_sql[id] != NULL)
		return store_pg_sql[id];
	(void)pthread_once(&pg_shared_once, pg_shared_init);
	return pg_shared[id];
}

void
store_pg_init(void)
{
	/* libpq is thread-safe when built so (Debian's is): one per conn. */
	if (!PQisthreadsafe())
		log_warn("libpq is not thread-safe; use one FastCGI thread");
}

static int
pg_schema_version(void)
{
	return store_count(schema_pg_migrations);
}

/*
 * Every occurrence of a secret of s in text replaced, in place, by "***"
 * (by as many stars as it has characters, when shorter: text never
 * grows).
 */
static void
pg_scrub(const struct pg *s, char *text)
{
	char *p, *q;
	size_t i, n, stars;

	for (i = 0; i < sizeof(s->secret) / sizeof(s->secret[0]); i++) {
		if ((n = strlen(s->secret[i])) == 0)
			continue;
		stars = n < 3 ? n : 3;
		for (p = text; (q = strstr(p, s->secret[i])) != NULL;
		     p = q + stars) {
			memmove(q + stars, q + n, strlen(q + n) + 1);
			memset(q, '*', stars);
		}
	}
}

/* libpq's message on one line, scrubbed, into out. */
static void
pg_message(const struct pg *s, const char *msg, char *out, size_t len)
{
	size_t n;
	char *p;

	snprintf(out, len, "%s", msg != NULL && *msg != '\0' ? msg : "error");
	n = strlen(out);
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = '\0';
	for (p = out; *p != '\0'; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	pg_scrub(s, out);
}

/* Keeps "what: why" for store_error, and logs it with the server. */
static void
pg_set_error(struct pg *s, const char *what, const char *why, int warn)
{
	char msg[400];

	pg_message(s, why, msg, sizeof(msg));
	snprintf(s->base.error, sizeof(s->base.error), "%s: %s", what, msg);
	if (warn)
		log_warn("%s: %s", s->where, s->base.error);
	else
		log_error("%s: %s", s->where, s->base.error);
}

static enum store_rc
pg_fail(struct store *base, const char *what, const char *why)
{
	pg_set_error((struct pg *)base, what, why, 0);
	return STORE_ERROR;
}

/* The connection is gone: every later call fails at once. */
static enum store_rc
pg_lost(struct pg *s, const char *what, const char *why)
{
	s->dead = 1;
	pg_set_error(s, what, why, 0);
	return STORE_UNAVAILABLE;
}

/*
 * Maps a failed result to the caller's view of it (see the top of the
 * file); the error is logged and kept for store_error.
 */
static enum store_rc
pg_rc_from(struct pg *s, const PGresult *res, const char *what)
{
	/* libpq's "" where res is NULL */
	const char *state, *msg = PQresultErrorMessage(res);

	if (res == NULL || PQstatus(s->conn) == CONNECTION_BAD)
		return pg_lost(s, what,
		    *msg != '\0' ? msg : PQerrorMessage(s->conn));
	state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	if (state == NULL)
		state = "";
	snprintf(s->state, sizeof(s->state), "%s", state);
	/* Only a duplicate key means "already there"; a CHECK is a bug. */
	if (strcmp(state, "23505") == 0)
		return STORE_EXISTS;
	/* Serialization, deadlock, lock or statement timeout: retry. */
	if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0 ||
	    strcmp(state, "55P03") == 0 || strcmp(state, "57014") == 0) {
		pg_set_error(s, what, msg, 1);
		return STORE_BUSY;
	}
	/*
	 * The connection or the server is going (class 08, admin or crash
	 * shutdown, cannot connect now, too many connections): another
	 * connection, perhaps to another host, may do.
	 */
	if (strncmp(state, "08", 2) == 0 || strcmp(state, "57P01") == 0 ||
	    strcmp(state, "57P02") == 0 || strcmp(state, "57P03") == 0 ||
	    strcmp(state, "53300") == 0)
		return pg_lost(s, what, msg);
	/*
	 * A read-only transaction: this is no longer the primary (after a
	 * failover), or the server was set read-only.  The connection is
	 * dropped, so that the next one may find the new primary: where the
	 * URI asks for a writable host it will look for one, and the
	 * request may be retried; otherwise writes are refused until
	 * someone acts, which the answer says.
	 */
	if (strcmp(state, "25006") == 0) {
		pg_lost(s, what, msg);
		return s->wants_primary ? STORE_UNAVAILABLE : STORE_READONLY;
	}
	pg_set_error(s, what, msg, 0);
	/* Disk full, out of memory, I/O error: as SQLite's FULL and IOERR. */
	if (strncmp(state, "53", 2) == 0 || strncmp(state, "58", 2) == 0)
		return STORE_UNAVAILABLE;
	return STORE_ERROR;
}

/*
 * Notices from the server.  A COMMIT whose wait for a synchronous standby
 * was cancelled (statement cancelled, or the standby gone in
 * synchronous_mode_strict) succeeds with only this warning: the
 * transaction is committed locally but may be lost in a failover, so it
 * must not be answered 202 (pg_exec turns it into STORE_UNAVAILABLE).
 */
static void
pg_notice(void *arg, const PGresult *res)
{
	struct pg *s = arg;
	const char *state, *msg, *fn;
	char text[400];

	state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
	fn = PQresultErrorField(res, PG_DIAG_SOURCE_FUNCTION);
	if (state != NULL && strcmp(state, "01000") == 0 &&
	    ((fn != NULL && strcmp(fn, "SyncRepWaitForLSN") == 0) ||
		(msg != NULL &&
		    strstr(msg, "canceling wait for synchronous replication") !=
			NULL)))
		s->sync_cancelled = 1;
	pg_message(s, PQresultErrorMessage(res), text, sizeof(text));
	log_debug("%s: %s", s->where, text);
}

/*
 * The next result of what was sent, waiting at most s->wait_ms: past it
 * the statement is cancelled (a COMMIT waiting for a standby then ends
 * with pg_notice's warning), and if no answer comes after all the
 * connection is given up: the answer of a COMMIT may never come.  NULL
 * with *rc set: lost or given up; NULL with STORE_OK: no more results.
 */
static PGresult *
pg_next(struct pg *s, const char *what, enum store_rc *rc)
{
	PGcancel *cancel;
	struct pollfd pfd;
	char why[256];
	int64_t left, deadline = clock_ms(CLOCK_MONOTONIC) + s->wait_ms;
	int cancelled = 0;

	*rc = STORE_OK;
	while (PQisBusy(s->conn)) {
		left = deadline - clock_ms(CLOCK_MONOTONIC);
		if (left <= 0 && cancelled) {
			*rc = pg_lost(s, what, "no answer from the server");
			return NULL;
		}
		if (left <= 0) {
			cancelled = 1;
			log_warn("%s: %s: no answer in %lld ms; cancelling",
			    s->where, what, (long long)s->wait_ms);
			if ((cancel = PQgetCancel(s->conn)) != NULL) {
				PQcancel(cancel, why, sizeof(why));
				PQfreeCancel(cancel);
			}
			deadline = clock_ms(CLOCK_MONOTONIC) + 5000;
			continue;
		}
		pfd.fd = PQsocket(s->conn);
		pfd.events = POLLIN;
		if (pfd.fd < 0 ||
		    (poll(&pfd, 1, left > 1000 ? 1000 : (int)left) == -1 &&
			errno != EINTR) ||
		    !PQconsumeInput(s->conn)) {
			*rc = pg_lost(s, what, PQerrorMessage(s->conn));
			return NULL;
		}
	}
	return PQgetResult(s->conn);
}

/*
 * A statement's parameters, as text (NULL: SQL NULL).  typed: the
 * statement is prepared with type, so that its SQL may leave a
 * parameter unused (0: the server infers the type from the SQL).
 */
struct params {
	const char *v[PG_MAX_PARAMS];
	char num[PG_MAX_PARAMS][24];
	Oid type[PG_MAX_PARAMS];
	int n, typed;
};

/* A prepared statement's name on the server: s and its number. */
static const char *
stmt_name(enum stmt id, char *name, size_t len)
{
	snprintf(name, len, "s%d", (int)id);
	return name;
}

/* Makes sure statement id is prepared on the connection. */
static enum store_rc
pg_prepare(struct pg *s, enum stmt id, const struct params *p)
{
	PGresult *res;
	enum store_rc rc, failed = STORE_OK;
	char name[16];

	if (s->prepared[id])
		return STORE_OK;
	if (pg_sql(id) == NULL)
		return pg_fail(&s->base, "prepare", "no PostgreSQL form");
	stmt_name(id, name, sizeof(name));
	if (!PQsendPrepare(s->conn, name, pg_sql(id),
		p != NULL && p->typed ? p->n : 0,
		p != NULL && p->typed ? p->type : NULL))
		return pg_rc_from(s, NULL, "prepare");
	while ((res = pg_next(s, "prepare", &rc)) != NULL) {
		if (PQresultStatus(res) != PGRES_COMMAND_OK &&
		    failed == STORE_OK) {
			log_error("%s: prepare \"%.40s...\"", s->where,
			    pg_sql(id));
			failed = pg_rc_from(s, res, "prepare");
		}
		PQclear(res);
	}
	if (rc == STORE_OK && failed == STORE_OK)
		s->prepared[id] = 1;
	return rc != STORE_OK ? rc : failed;
}

/*
 * Statement id's n values as its parameters, into p.  A parameter its SQL
 * leaves unused is typed, since the server cannot infer its type.
 */
static void
pg_params(struct pg *s, enum stmt id, const struct store_val *v, int n,
    struct params *p)
{
	const char *q;
	char *end;
	long k;
	int i;

	if (!s->scanned[id] && pg_sql(id) != NULL) {
		s->unused[id] = (1u << PG_MAX_PARAMS) - 1;
		for (q = pg_sql(id); (q = strchr(q, '$')) != NULL; q++)
			if ((k = strtol(q + 1, &end, 10)) >= 1 &&
			    k <= PG_MAX_PARAMS && end != q + 1)
				s->unused[id] &= ~(1u << (k - 1));
		s->scanned[id] = 1;
	}
	p->typed = 0;
	for (i = 0; i < n && i < PG_MAX_PARAMS; i++) {
		p->v[i] = v[i].s;
		if (v[i].is_int) {
			snprintf(p->num[i], sizeof(p->num[i]), "%lld",
			    (long long)v[i].i);
			p->v[i] = p->num[i];
		}
		p->type[i] = 0;
		if (s->unused[id] & (1u << i)) {
			p->type[i] = v[i].is_int ? 20 /* int8 */ :
						   25 /* text */;
			p->typed = 1;
		}
	}
	p->n = i;
}

/*
 * Whether an idle connection was closed by the server (restarted, failed
 * over, or the connection terminated) while nothing was asked of it: its
 * socket is readable, and reading finds the end.
 */
static int
pg_closed_idle(struct pg *s)
{
	struct pollfd pfd;
	int i;

	if (PQtransactionStatus(s->conn) != PQTRANS_IDLE)
		return 0;
	/*
	 * A server that ends a connection sends its FATAL, then closes: two
	 * reads, the second of which finds the end.
	 */
	for (i = 0; i < 4; i++) {
		if ((pfd.fd = PQsocket(s->conn)) < 0)
			return 1;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 0) <= 0)
			return 0;
		if (!PQconsumeInput(s->conn) ||
		    PQstatus(s->conn) != CONNECTION_OK)
			return 1;
	}
	return 0;
}

static enum store_rc pg_pipe_end(struct pg *);

/*
 * Ready for a statement: not dead, no NOTIFY answer pending.  A
 * connection found closed while idle is made again at once, with its
 * session settings (libpq tries every host of the URI again, so after a
 * failover it finds the new primary): nothing was sent on it, so nothing
 * can have been lost, and the request need not fail.  One that listens is
 * not: the watcher must learn that notifications may have been missed
 * (pg_data_version), and reopens.
 */
static enum store_rc
pg_ready(struct pg *s)
{
	if (s->dead) {
		snprintf(s->base.error, sizeof(s->base.error),
		    "the connection to the server was lost");
		return STORE_UNAVAILABLE;
	}
	/*
	 * The committer's pipeline is left once no batch is in it, its
	 * NOTIFYs read, before a statement of its own.
	 */
	if (PQpipelineStatus(s->conn) != PQ_PIPELINE_OFF) {
		if (s->nbatches > 0) {
			snprintf(s->base.error, sizeof(s->base.error),
			    "a statement while a batch is in the pipeline");
			return STORE_ERROR;
		}
		if (pg_pipe_end(s) != STORE_OK)
			return STORE_UNAVAILABLE;
	}
	if (s->listening || !pg_closed_idle(s))
		return STORE_OK;
	log_warn("%s: the server closed the connection; connecting again",
	    s->where);
	PQreset(s->conn);
	memset(s->prepared, 0, sizeof(s->prepared));
	pg_where(s);
	if (PQstatus(s->conn) != CONNECTION_OK)
		return pg_lost(s, "connect again", PQerrorMessage(s->conn));
	if (pg_session(s) != STORE_OK) {
		s->dead = 1;
		return STORE_UNAVAILABLE;
	}
	return STORE_OK;
}

/*
 * A commit pg_notice saw only local: not a success, though the primary
 * has it (a failover may lose it).
 */
static enum store_rc
pg_sync_cancelled(struct pg *s, const char *what)
{
	pg_set_error(s, what,
	    "the wait for synchronous replication was cancelled: "
	    "committed on the primary only",
	    0);
	return STORE_UNAVAILABLE;
}

/* Sends statement id, prepared, with p's values. */
static int
pg_send(struct pg *s, enum stmt id, const struct params *p)
{
	char name[16];

	return PQsendQueryPrepared(s->conn, stmt_name(id, name, sizeof(name)),
	    p->n, p->v, NULL, NULL, 0);
}

/*
 * Runs statement id with its n values v; *out (if not NULL) gets its
 * result, to be PQclear'ed by the caller, when it succeeded.  A commit
 * that was only local (pg_notice) is STORE_UNAVAILABLE.
 */
static enum store_rc
pg_exec(struct pg *s, enum stmt id, const struct store_val *v, int n,
    const char *what, PGresult **out)
{
	struct params p;
	PGresult *res, *last = NULL;
	enum store_rc rc;
	ExecStatusType st;

	if (out != NULL)
		*out = NULL;
	pg_params(s, id, v, n, &p);
	if ((rc = pg_ready(s)) != STORE_OK ||
	    (rc = pg_prepare(s, id, &p)) != STORE_OK)
		return rc;
	s->sync_cancelled = 0;
	if (!pg_send(s, id, &p))
		return pg_rc_from(s, NULL, what);
	while ((res = pg_next(s, what, &rc)) != NULL) {
		PQclear(last);
		last = res;
	}
	if (rc != STORE_OK) {
		PQclear(last);
		return rc;
	}
	st = last != NULL ? PQresultStatus(last) : PGRES_FATAL_ERROR;
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		rc = pg_rc_from(s, last, what);
		PQclear(last);
		return rc;
	}
	if (s->sync_cancelled) {
		PQclear(last);
		return pg_sync_cancelled(s, what);
	}
	if (out != NULL)
		*out = last;
	else
		PQclear(last);
	return STORE_OK;
}

/* An integer column, or a boolean one as 1 or 0 (as SQLite has them). */
static int64_t
col_int(const PGresult *res, int row, int col)
{
	const char *v;

	if (PQgetisnull(res, row, col))
		return 0;
	v = PQgetvalue(res, row, col);
	return v[0] == 't' ? 1 : strtoll(v, NULL, 10);
}

/*
 * The driver's query, run at once: its rows are read from the result.
 * A parameter the SQL leaves unused is given its type when the
 * statement is prepared; the server could not infer it.
 */
static enum store_rc
pg_query(struct store *base, struct store_rows *r, enum stmt id,
    const struct store_val *v, int n, const char *what)
{
	PGresult *res;

	r->s = base;
	r->h = NULL;
	r->row = -1;
	r->what = what;
	if ((r->rc = pg_exec((struct pg *)base, id, v, n, what, &res)) ==
	    STORE_OK)
		r->h = res;
	return r->rc;
}

/*
 * The next result before the pipeline's sync; NULL once the sync is read,
 * or when the connection failed (*rc).
 */
static PGresult *
pg_pipe_next(struct pg *s, const char *what, enum store_rc *rc)
{
	PGresult *res;

	/* Past the NULL that ends each statement's results. */
	do
		res = pg_next(s, what, rc);
	while (res == NULL && *rc == STORE_OK);
	if (res != NULL && PQresultStatus(res) == PGRES_PIPELINE_SYNC) {
		PQclear(res);
		return NULL;
	}
	return res;
}

static int
pg_next_row(struct store_rows *r)
{
	if (r->h == NULL || r->row + 1 >= PQntuples(r->h))
		return 0;
	r->row++;
	return 1;
}

static int64_t
pg_col_int(const struct store_rows *r, int i)
{
	return col_int(r->h, r->row, i);
}

static const char *
pg_col_text(const struct store_rows *r, int i)
{
	return PQgetisnull(r->h, r->row, i) ? NULL :
					      PQgetvalue(r->h, r->row, i);
}

static int64_t
pg_changes(const struct store_rows *r)
{
	return r->h != NULL ? strtoll(PQcmdTuples(r->h), NULL, 10) : 0;
}

static void
pg_end(struct store_rows *r)
{
	PQclear(r->h);
	r->h = NULL;
}

/*
 * Runs sql as it is, outside the statement table: the n integers of its
 * first row in v (0 each where it has none).
 */
static enum store_rc
pg_simple(struct pg *s, const char *sql, const char *what, int64_t *v, int n)
{
	PGresult *res;
	enum store_rc rc = STORE_OK;
	int i;

	res = PQexec(s->conn, sql);
	if (PQresultStatus(res) != PGRES_TUPLES_OK &&
	    (n > 0 || PQresultStatus(res) != PGRES_COMMAND_OK))
		rc = pg_rc_from(s, res, what);
	for (i = 0; i < n && rc == STORE_OK; i++)
		v[i] = PQntuples(res) > 0 && i < PQnfields(res) ?
		    col_int(res, 0, i) :
		    0;
	PQclear(res);
	return rc;
}

/*
 * Whether the first schema of the search_path holds our objects: its
 * version (0: none), or a refusal of a newer or a foreign one, with err
 * set.  Nothing is written.
 */
static enum store_rc
pg_check_ours(struct pg *s, int64_t *version, char *err, size_t errlen)
{
	/* A schema, schema_version, objects; the version, ours. */
	int64_t v[5] = { 0, 0, 0, 0, 0 };
	enum store_rc rc;
	int target = pg_schema_version();

	*version = 0;
	if ((rc = pg_simple(s,
		 "SELECT (current_schema() IS NOT NULL)::int,"
		 " count(*) FILTER (WHERE relname = 'schema_version'"
		 "  AND relkind = 'r'), count(*) FROM pg_class"
		 " WHERE relnamespace ="
		 "  (SELECT oid FROM pg_namespace"
		 "   WHERE nspname = current_schema())",
		 "read the schema version", v, 3)) != STORE_OK ||
	    (v[1] != 0 &&
		(rc = pg_simple(s,
		     "SELECT version, (application = 'checkpoint-api')::int"
		     " FROM schema_version",
		     "read the schema version", v + 3, 2)) != STORE_OK)) {
		snprintf(err, errlen, "%s: %s", s->where, s->base.error);
		return rc;
	}
	if (!v[0]) {
		snprintf(err, errlen,
		    "%s: no schema of the search_path exists "
		    "to hold the tables",
		    s->where);
		return STORE_UNAVAILABLE;
	}
	if (v[1] == 0 && v[2] > 0) {
		snprintf(err, errlen,
		    "%s: not a checkpoint-api database "
		    "(no schema_version, %lld objects in its schema)",
		    s->where, (long long)v[2]);
		return STORE_UNAVAILABLE;
	}
	if (v[1] != 0 && !v[4]) {
		snprintf(err, errlen, "%s: not a checkpoint-api database",
		    s->where);
		return STORE_UNAVAILABLE;
	}
	*version = v[3];
	if (*version > target) {
		snprintf(err, errlen,
		    "%s: schema version %lld is newer than "
		    "this program's %d; upgrade checkpoint-api",
		    s->where, (long long)*version, target);
		return STORE_NEWER;
	}
	return STORE_OK;
}

/*
 * Brings the schema up to date in one transaction, under an advisory
 * lock so that hosts starting at once migrate one after the other (the
 * later ones find it done).  A newer or foreign database is refused and
 * left untouched.
 */
static enum store_rc
pg_migrate(struct pg *s, int create, char *err, size_t errlen)
{
	enum store_rc rc;
	int64_t version, v = 0;
	int target = pg_schema_version(), i;
	char what[32];

	if ((rc = pg_check_ours(s, &version, err, errlen)) != STORE_OK ||
	    version == target)
		return rc;
	/* As a SQLite file that is not there: see store_opts.create. */
	if (version == 0 && !create) {
		snprintf(err, errlen,
		    "%s: no checkpoint-api tables there; checkpointctl init "
		    "makes them",
		    s->where);
		return STORE_MISSING;
	}
	if ((rc = pg_simple(s, "BEGIN", "migrate", NULL, 0)) != STORE_OK ||
	    (rc = pg_simple(s,
		 "SELECT pg_advisory_xact_lock(" PG_MIGRATION_LOCK ")",
		 "lock for migration", NULL, 0)) != STORE_OK) {
		snprintf(err, errlen, "%s: %s", s->where, s->base.error);
		goto fail;
	}
	/* Again under the lock: another host may have migrated. */
	if ((rc = pg_check_ours(s, &version, err, errlen)) != STORE_OK)
		goto fail;
	for (i = (int)version; i < target; i++) {
		snprintf(what, sizeof(what), "migration %d", i + 1);
		if ((rc = pg_simple(s, schema_pg_migrations[i], what, NULL,
			 0)) != STORE_OK) {
			snprintf(err, errlen, "%s: %s", s->where,
			    s->base.error);
			goto fail;
		}
		log_info("%s: applied schema migration %d", s->where, i + 1);
	}
	if ((rc = pg_simple(s, "SELECT version FROM schema_version",
		 "read the schema version", &v, 1)) != STORE_OK ||
	    v != target) {
		snprintf(err, errlen,
		    "%s: the migrations left schema version %lld, not %d",
		    s->where, (long long)v, target);
		rc = rc != STORE_OK ? rc : STORE_ERROR;
		goto fail;
	}
	if ((rc = pg_simple(s, "COMMIT", "migrate", NULL, 0)) != STORE_OK) {
		snprintf(err, errlen, "%s: %s", s->where, s->base.error);
		return rc;
	}
	return STORE_OK;
fail:
	if (!s->dead)
		PQclear(PQexec(s->conn, "ROLLBACK"));
	return rc;
}

/*
 * The session's settings, on a new connection: the lock wait of
 * CHECKPOINT_BUSY_TIMEOUT, and five times that for any statement (a bound
 * on a runaway, above the lock wait so that a wait for a lock says so);
 * CHECKPOINT_SYNC=NORMAL is asynchronous commit (the last commits may be
 * lost in a crash, as with SQLite's NORMAL), else the server's default
 * stays (normally on).
 */
static enum store_rc
pg_session(struct pg *s)
{
	char sql[200];

	/*
	 * Generic plans: every statement here is prepared once, run many
	 * times, and finds its rows by index whatever the values.  Left to
	 * choose, the server planned the array statements (a batch's
	 * upsert, several GETs' reads) again at every run, since knowing the
	 * array's length always made the new plan look cheaper, and the
	 * planning cost more than the read (scripts/bench.d/results.md).
	 * No JIT: a generic plan's estimate over the fleet can pass
	 * jit_above_cost (the history's pruning by count, costed by
	 * statistics of a full list of grown jobs), and the server then
	 * compiled it at each run, for far longer than it ran.
	 */
	snprintf(sql, sizeof(sql),
	    "SET plan_cache_mode = force_generic_plan; SET jit = off;"
	    " SET lock_timeout = %lld; SET statement_timeout = %lld%s",
	    (long long)s->busy_ms, (long long)s->busy_ms * 5,
	    s->sync_normal ? "; SET synchronous_commit = off" : "");
	return pg_simple(s, sql, "session settings", NULL, 0);
}

/*
 * The passwords of a URI, as written (the first PG_SECRETS - 1 of them,
 * found as store_redact finds them) and as libpq reads it: strings no
 * message may show (libpq's own may quote the URI's parts).
 */
static int
pg_secrets(struct pg *s, const char *uri)
{
	PQconninfoOption *opts, *o;
	const char *pw = uri;
	size_t n, k = 0;
	char *err = NULL;

	while (
	    k < PG_SECRETS - 1 && (pw = store_password(uri, pw, &n)) != NULL) {
		if (n > 0 && n < sizeof(s->secret[0]))
			snprintf(s->secret[k++], sizeof(s->secret[0]), "%.*s",
			    (int)n, pw);
		pw += n;
	}
	if ((opts = PQconninfoParse(uri, &err)) != NULL) {
		for (o = opts; o->keyword != NULL; o++)
			if (strcmp(o->keyword, "password") == 0 &&
			    o->val != NULL && *o->val != '\0')
				snprintf(s->secret[PG_SECRETS - 1],
				    sizeof(s->secret[0]), "%s", o->val);
		PQconninfoFree(opts);
	}
	PQfreemem(err);
	return opts != NULL;
}

int
store_pg_parses(const char *uri)
{
	PQconninfoOption *opts;
	char *err = NULL;

	opts = PQconninfoParse(uri, &err);
	PQconninfoFree(opts);
	PQfreemem(err);
	return opts != NULL;
}

/*
 * Whether the connection was asked for a writable host (libpq's
 * target_session_attrs read-write or primary): then a host found
 * read-only is not the primary any more, and the next connection looks
 * for the one that is.
 */
static void
pg_wants_primary(struct pg *s)
{
	PQconninfoOption *o, *opts;

	s->wants_primary = 0;
	if ((opts = PQconninfo(s->conn)) == NULL)
		return;
	for (o = opts; o->keyword != NULL; o++)
		if (strcmp(o->keyword, "target_session_attrs") == 0 &&
		    o->val != NULL)
			s->wants_primary = strcmp(o->val, "read-write") == 0 ||
			    strcmp(o->val, "primary") == 0;
	PQconninfoFree(opts);
}

/*
 * The server as messages name it: the host it is connected to (or tried
 * last), its port and the database, as a URI without user or password.
 */
static void
pg_where(struct pg *s)
{
	const char *host = PQhost(s->conn), *port = PQport(s->conn),
		   *db = PQdb(s->conn);

	if (host == NULL || *host == '\0')
		host = "localhost";
	if (port == NULL || *port == '\0')
		port = "5432";
	if (db == NULL)
		db = "";
	pg_wants_primary(s);
	if (*host == '/')
		snprintf(s->where, sizeof(s->where),
		    "postgresql:///%s?host=%s&port=%s", db, host, port);
	else
		snprintf(s->where, sizeof(s->where), "postgresql://%s:%s/%s",
		    host, port, db);
	pg_scrub(s, s->where);
}

/*
 * What libpq's refusal to connect most likely means, by its words: the
 * operator reads the cause, not only the symptom.
 */
static const struct {
	const char *words, *hint;
} pg_hints[] = {
	{ "no password supplied",
	    "is there a pgpass for this user (PGPASSFILE, else the "
	    "system user's ~/.pgpass, mode 0600, with a line for this "
	    "host, port, database and user)?" },
	{ "password authentication failed",
	    "the password is not this role's, or there is no such role: "
	    "are the user and the password (its pgpass line) right?" },
	{ "does not exist",
	    "is the name right (a typo in the URI's user or database)?" },
	{ "no pg_hba.conf entry",
	    "the server's pg_hba.conf lets this user not connect to this "
	    "database from here" },
	{ "Peer authentication failed",
	    "peer authentication takes the system user as the role: "
	    "connect over TCP (postgresql://user@127.0.0.1/...) with a "
	    "pgpass instead" },
	{ "Connection refused",
	    "is the server running, and listening on this host and port?" },
	{ "No such file or directory",
	    "is the server running (its socket is not there)?" },
	{ "could not translate host name", "is the host name right?" },
	{ "timeout expired",
	    "the server did not answer in time: is it up, and reachable?" },
};

/* msg and its likely cause, if one is known, into out. */
static void
pg_hint(const char *msg, char *out, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(pg_hints) / sizeof(pg_hints[0]); i++)
		if (strstr(msg, pg_hints[i].words) != NULL) {
			snprintf(out, len, "%s: %s", msg, pg_hints[i].hint);
			return;
		}
	snprintf(out, len, "%s", msg);
}

/*
 * A refused connection names the user too: the URI's user is a part the
 * operator may have mistyped (never the password).
 */
static void
pg_connect_error(struct pg *s, char *err, size_t errlen)
{
	char msg[400], hinted[700], who[300];
	const char *user = PQuser(s->conn), *at = strstr(s->where, "://");

	pg_message(s, PQerrorMessage(s->conn), msg, sizeof(msg));
	pg_hint(msg, hinted, sizeof(hinted));
	if (user != NULL && *user != '\0' && at != NULL) {
		snprintf(who, sizeof(who), "%.*s%s@%s",
		    (int)(at + 3 - s->where), s->where, user, at + 3);
		pg_scrub(s, who);
	} else
		snprintf(who, sizeof(who), "%s", s->where);
	snprintf(err, errlen, "%s: %s", who, hinted);
}

static const char *
program_name(void)
{
#ifdef __GLIBC__
	return program_invocation_short_name;
#else
	return "checkpoint-api";
#endif
}

/*
 * Connects and migrates.  On failure *out is NULL and err says why,
 * naming the server by host, port and database, never by the URI (which
 * may hold a password): for logs, never for clients.
 */
enum store_rc
store_pg_open(const struct store_opts *o, struct store **out, char *err,
    size_t errlen)
{
	/*
	 * Ours first, the URI's after: what the URI says wins.  A dead
	 * primary costs seconds (connect_timeout), and a vanished one is
	 * noticed by keepalives and tcp_user_timeout rather than by TCP's
	 * quarter of an hour of retries.
	 */
	const char *keys[] = { "fallback_application_name", "connect_timeout",
		"keepalives_idle", "keepalives_interval", "keepalives_count",
		"tcp_user_timeout", "dbname", NULL };
	const char *vals[] = { program_name(), "5", "30", "10", "3", "30000",
		o->path, NULL };
	struct pg *s;
	enum store_rc rc;
	int parsed;

	*out = NULL;
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return STORE_ERROR;
	}
	s->base.ops = &pg_ops;
	parsed = pg_secrets(s, o->path);
	s->busy_ms = o->busy_ms > 0 ? o->busy_ms : 2000;
	s->sync_normal = o->sync_normal;
	/* Statements get five times the lock wait (pg_session), then a
	 * cancel. */
	s->wait_ms = s->busy_ms * 5 + 1000;
	if ((s->conn = PQconnectdbParams(keys, vals, 1)) == NULL) {
		snprintf(err, errlen, "out of memory");
		rc = STORE_ERROR;
		goto fail;
	}
	pg_where(s);
	/* Not even parsed: no server to name, so the URI, its password out. */
	if (!parsed) {
		store_redact(o->path, s->where, sizeof(s->where));
		pg_scrub(s, s->where);
	}
	if (PQstatus(s->conn) != CONNECTION_OK) {
		pg_connect_error(s, err, errlen);
		rc = STORE_UNAVAILABLE;
		goto fail;
	}
	PQsetNoticeReceiver(s->conn, pg_notice, s);
	if ((rc = pg_session(s)) != STORE_OK) {
		snprintf(err, errlen, "%s: %s", s->where, s->base.error);
		goto fail;
	}
	if ((rc = pg_migrate(s, o->create, err, errlen)) != STORE_OK)
		goto fail;
	s->base.error[0] = '\0';
	*out = &s->base;
	return STORE_OK;
fail:
	pg_scrub(s, err);
	store_close(&s->base);
	return rc;
}

static void
pg_close(struct store *base)
{
	struct pg *s = (struct pg *)base;

	if (s == NULL)
		return;
	/* A NOTIFY's answer read, so that it is not cut off. */
	if (s->conn != NULL && s->nbatches == 0)
		pg_pipe_end(s);
	while (s->npipe > 0)
		pg_pipe_pop(s);
	PQfinish(s->conn);
	explicit_bzero(s->secret, sizeof(s->secret));
	free(s);
}

/*
 * v as the next element of the text[] literal in a, begun here when a is
 * empty: quoted, with '"' and '\\' escaped; NULL for a NULL v.
 */
static int
array_add(struct buf *a, const char *v)
{
	const char *c;

	if (buf_adds(a, a->len == 0 ? "{" : ",") != 0)
		return -1;
	if (v == NULL)
		return buf_adds(a, "NULL");
	if (buf_adds(a, "\"") != 0)
		return -1;
	for (c = v; *c != '\0'; c++)
		if (((*c == '"' || *c == '\\') && buf_add(a, "\\", 1) != 0) ||
		    buf_add(a, c, 1) != 0)
			return -1;
	return buf_adds(a, "\"");
}

/* Ends the text[] literal in a (empty: one of no elements). */
static int
array_end(struct buf *a)
{
	return buf_adds(a, a->len == 0 ? "{}" : "}");
}

static void
bufs_free(struct buf *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf_free(&a[i]);
}

static int
rec_key_cmp(const struct trigger_rec *x, const char *job, const char *trigger)
{
	int c;

	if ((c = strcmp(x->job.s, job)) != 0)
		return c;
	return strcmp(x->trigger.s, trigger);
}

static int
rec_cmp(const void *a, const void *b)
{
	const struct rec_at *x = a, *y = b;
	int c;

	if ((c = rec_key_cmp(x->t, y->t->job.s, y->t->trigger.s)) != 0)
		return c;
	return x->i < y->i ? -1 : 1;
}

/*
 * The parameters of STMT_RECORD for the batch r[] (sorted by key): five
 * text[] literals in a[], the store duration, and the failure of a
 * trigger past its job's queue (its trace and serialized-throwable in
 * a[5] and a[6]).  A key the batch holds
 * twice is sent once: its first POST may create the trigger, the later
 * ones never do.  -1: out of memory.
 */
static int
pg_batch_params(struct pg *s, const struct rec_at *r, size_t n, struct buf *a,
    struct params *p)
{
	struct store_val v[] = { VAL_TEXT(NULL), VAL_TEXT(NULL), VAL_TEXT(NULL),
		VAL_TEXT(NULL), VAL_TEXT(NULL), VAL_INT(r[0].t->store_ms),
		VAL_INT(r[0].t->max_queued), VAL_TEXT(FAIL_CKPT_CLASS),
		VAL_TEXT(NULL), VAL_TEXT(NULL) };
	const struct trigger_rec *t;
	size_t i;
	int bad = 0;

	for (i = 0; i < n && !bad; i++) {
		t = r[i].t;
		if (i > 0 &&
		    rec_key_cmp(r[i - 1].t, t->job.s, t->trigger.s) == 0)
			continue;
		bad = array_add(&a[0], t->job.s) != 0 ||
		    array_add(&a[1], t->trigger.s) != 0 ||
		    array_add(&a[2], ckpt_type_name(t->type)) != 0 ||
		    array_add(&a[3], t->remote_user) != 0 ||
		    array_add(&a[4], t->remote_addr) != 0;
	}
	for (i = 0; i < 5 && !bad; i++) {
		bad = array_end(&a[i]) != 0;
		v[i].s = buf_str(&a[i]);
	}
	if (bad || store_queue_full_trace(&a[5], r[0].t->max_queued) != 0 ||
	    throwable_base64(&a[6], FAIL_CKPT_CLASS, strlen(FAIL_CKPT_CLASS),
		buf_str(&a[5]), a[5].len) != 0)
		return -1;
	v[8].s = buf_str(&a[5]);
	v[9].s = buf_str(&a[6]);
	pg_params(s, STMT_RECORD, v, 10, p);
	return 0;
}

/*
 * created[] from the rows STMT_RECORD returned for r[]: each is the first
 * of its key in r[].
 */
static void
pg_batch_created(const PGresult *res, const struct rec_at *r, size_t n,
    int *created)
{
	size_t lo, hi, mid;
	int row, c;

	for (row = 0; row < PQntuples(res); row++) {
		for (lo = 0, hi = n; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			c = rec_key_cmp(r[mid].t, PQgetvalue(res, row, 0),
			    PQgetvalue(res, row, 1));
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < n)
			created[r[lo].i] = 1;
	}
}

/*
 * --- The committer's pipeline (store_record_send, store_record_recv) ---
 *
 * libpq's pipeline mode: each batch is STMT_RECORD for its triggers, one
 * STMT_SP_QUEUE for each savepoint or stop, and a sync, one implicit
 * transaction (pg_pipe_send_batch), and now and then a NOTIFY
 * and a sync, another transaction: after a batch once PG_NOTIFY_EVERY_MS
 * have gone since the last, and after the last batch out, so that no
 * batch waits longer than that to wake the runners (one a batch cost
 * POSTs).  The server runs them in order, so a second batch sent while
 * the first commits starts the moment the first ends, and its POSTs'
 * clients need not wait for the first's answers to be on their way: two
 * batches of 8 in flight did more than one of 16 at a time
 * (scripts/bench.d/results.md, "Two batches in flight on one
 * connection").  The entries are read back in the order they were sent.
 * Out of pipeline mode whenever no batch is in it, so that pg_ready can
 * find the connection closed while idle and connect again before the
 * next batch.
 */

static struct pg_sent *
pg_pipe_at(struct pg *s, int k)
{
	return &s->pipe[(s->pipe_head + k) % PG_PIPE_MAX];
}

static void
pg_sent_free(struct pg_sent *e)
{
	free(e->r);
	free(e->ov);
	free(e->oi);
	free(e->created);
	memset(e, 0, sizeof(*e));
}

/* Drops the oldest entry. */
static void
pg_pipe_pop(struct pg *s)
{
	struct pg_sent *e = pg_pipe_at(s, 0);

	if (!e->notify)
		s->nbatches--;
	pg_sent_free(e);
	s->pipe_head = (s->pipe_head + 1) % PG_PIPE_MAX;
	s->npipe--;
}

/*
 * The parameters of a batch's other statement for its count posts, nv
 * values each from v: the j-th an array of the posts' j-th values, in
 * a[j] (PG_BATCH_BUFS at least): texts, as pg_pipe_prepare prepared the
 * statement.  -1: out of memory.
 */
static int
pg_other_params(struct pg *s, enum stmt id, const struct store_val *v, int nv,
    size_t count, struct buf *a, struct params *p)
{
	struct store_val arrays[PG_BATCH_BUFS] = { 0 };
	char num[24];
	const struct store_val *x;
	size_t k;
	int j, bad = nv > PG_BATCH_BUFS;

	for (j = 0; j < nv && !bad; j++) {
		for (k = 0; k < count && !bad; k++) {
			x = &v[k * (size_t)nv + (size_t)j];
			if (x->is_int)
				snprintf(num, sizeof(num), "%lld",
				    (long long)x->i);
			bad = array_add(&a[j], x->is_int ? num : x->s) != 0;
		}
		bad = bad || array_end(&a[j]) != 0;
		arrays[j].s = buf_str(&a[j]);
	}
	pg_params(s, id, arrays, bad ? 0 : nv, p);
	return bad ? -1 : 0;
}

/*
 * e's batch and a sync, one implicit transaction: STMT_RECORD for its
 * triggers, then its other statement for all its other posts.
 */
static enum store_rc
pg_pipe_send_batch(struct pg *s, const struct pg_sent *e)
{
	struct buf a[PG_BATCH_BUFS] = { 0 };
	struct params p = { .n = 0 };
	int ok = 1;

	if (e->n > 0 && pg_batch_params(s, e->r, e->n, a, &p) != 0)
		ok = -1;
	else if (e->n > 0)
		ok = pg_send(s, STMT_RECORD, &p);
	bufs_free(a, PG_BATCH_BUFS);
	if (e->no > 0 && ok == 1 &&
	    pg_other_params(s, e->other, e->ov, e->nv, e->no, a, &p) != 0)
		ok = -1;
	else if (e->no > 0 && ok == 1)
		ok = pg_send(s, e->other, &p);
	bufs_free(a, PG_BATCH_BUFS);
	if (ok < 0)
		return STORE_ERROR; /* nothing sent */
	if (!ok || !PQpipelineSync(s->conn))
		return pg_lost(s, "record triggers", PQerrorMessage(s->conn));
	return STORE_OK;
}

/*
 * After a batch, the NOTIFY that wakes the watching runners, after the
 * batch's commit: NOTIFY takes a cluster-wide lock at commit, which cut
 * the POSTs' throughput sharply when it was in their transaction.  Its
 * own transaction, not waited for by a standby (losing a wake-up costs a
 * runner at most its idle pass), as one statement and a sync, so that a
 * failure leaves no transaction open.
 */
static void
pg_pipe_send_notify(struct pg *s)
{
	struct pg_sent *e;

	if (s->dead || s->npipe >= PG_PIPE_MAX)
		return;
	if (!PQsendQueryParams(s->conn,
		"SELECT pg_catalog.set_config('synchronous_commit', 'off',"
		" true), pg_catalog.pg_notify('" PG_CHANNEL "', '')",
		0, NULL, NULL, NULL, NULL, 0) ||
	    !PQpipelineSync(s->conn)) {
		pg_lost(s, "notify", PQerrorMessage(s->conn));
		return;
	}
	e = pg_pipe_at(s, s->npipe++);
	memset(e, 0, sizeof(*e));
	e->notify = 1;
	s->notify_owed = 0;
	s->notify_ms = clock_ms(CLOCK_MONOTONIC);
}

/*
 * Reads the results of entry e, the oldest not read, through its sync.
 * A batch's outcome, with its created[] (by r[].i, all 0 until now) set
 * when STORE_OK, all 0 otherwise; a NOTIFY's failure is only logged: the
 * runners' idle pass finds what it would have woken them for.
 */
static enum store_rc
pg_pipe_read(struct pg *s, const struct pg_sent *e)
{
	int *const created = e->created;
	const int notify = e->notify;
	const char *what = notify ? "notify" : "record triggers";
	const size_t results = notify ? 1 : (e->n > 0) + (e->no > 0);
	PGresult *res, *first = NULL;
	enum store_rc rc = STORE_OK, failed = STORE_OK;
	ExecStatusType st;
	size_t k = 0, o;
	int row;

	if (s->dead)
		return STORE_UNAVAILABLE;
	s->sync_cancelled = 0;
	s->state[0] = '\0';
	while ((res = pg_pipe_next(s, what, &rc)) != NULL) {
		st = PQresultStatus(res);
		/* The triggers' rows first, then the other posts'. */
		if (st == PGRES_TUPLES_OK && k < results) {
			if (k++ == 0 && (notify || e->n > 0)) {
				first = res;
				continue;
			}
			for (row = 0; created != NULL && row < PQntuples(res);
			     row++)
				if ((o = strtoull(PQgetvalue(res, row, 0), NULL,
					 10)) >= 1 &&
				    o <= e->no)
					created[e->oi[o - 1]] = 1;
		} else if (failed == STORE_OK)
			failed = pg_rc_from(s,
			    st == PGRES_FATAL_ERROR ? res : NULL, what);
		PQclear(res);
	}
	if (rc == STORE_OK)
		rc = failed;
	if (rc == STORE_OK && k < results)
		rc = pg_lost(s, what, "no result from the server");
	if (rc == STORE_OK && s->sync_cancelled && !notify)
		rc = pg_sync_cancelled(s, what);
	if (rc == STORE_OK && e->n > 0 && created != NULL)
		pg_batch_created(first, e->r, e->n, created);
	if (rc != STORE_OK && created != NULL)
		memset(created, 0, e->posts * sizeof(*created));
	PQclear(first);
	return rc;
}

/* Reads and drops the NOTIFYs before the oldest batch (all, if none). */
static void
pg_pipe_drop_notifies(struct pg *s)
{
	struct pg_sent *e;

	while (s->npipe > 0 && (e = pg_pipe_at(s, 0))->notify) {
		if (!e->read)
			pg_pipe_read(s, e);
		pg_pipe_pop(s);
	}
}

/*
 * Leaves pipeline mode, which wants every entry read: the NOTIFYs after
 * the last batch are read here, a batch in it must have been.
 */
static enum store_rc
pg_pipe_end(struct pg *s)
{
	pg_pipe_drop_notifies(s);
	if (s->dead)
		return STORE_UNAVAILABLE;
	if (PQpipelineStatus(s->conn) != PQ_PIPELINE_OFF &&
	    !PQexitPipelineMode(s->conn))
		return pg_lost(s, "pipeline", PQerrorMessage(s->conn));
	return STORE_OK;
}

/*
 * Reads entry e's outcome into it, unless it has been: its rc, and
 * whether it was the refusal of a deadlock's loser.
 */
static void
pg_pipe_settle(struct pg *s, struct pg_sent *e)
{
	if (e->read)
		return;
	e->rc = pg_pipe_read(s, e);
	e->deadlock = e->rc == STORE_BUSY && strcmp(s->state, "40P01") == 0;
	e->read = 1;
}

/*
 * Reads now every entry from the k-th on that is not read yet, a batch's
 * outcome kept for its turn.
 */
static enum store_rc
pg_pipe_read_ahead(struct pg *s, int k)
{
	for (; k < s->npipe && !s->dead; k++)
		pg_pipe_settle(s, pg_pipe_at(s, k));
	return s->dead ? STORE_UNAVAILABLE : STORE_OK;
}

/*
 * The oldest batch was refused by a deadlock, read at its turn or ahead
 * of it: every entry sent after it is read now, and it is sent again,
 * alone, and read.  Its answer this time is the batch's, deadlock or
 * not: it is tried once more, no more.  The refusal left its created[]
 * all 0.  It waits first: the deadlock's survivor, woken by the locks
 * the refusal let go of, takes them before the batch asks again, where
 * a batch sent at once could race it for them and meet it again.
 */
static enum store_rc
pg_pipe_retry(struct pg *s, const struct pg_sent *e)
{
	enum store_rc rc;

	if ((rc = pg_pipe_read_ahead(s, 1)) != STORE_OK)
		return rc;
	poll(NULL, 0, PG_RETRY_AFTER_MS);
	if ((rc = pg_pipe_send_batch(s, e)) != STORE_OK)
		return rc;
	rc = pg_pipe_read(s, e);
	pg_pipe_send_notify(s);
	return rc;
}

/*
 * The batch's posts in e: t[i], or statement other with the values
 * v[i * nv ...] where t[i] is NULL.  -1: out of memory.
 */
static int
pg_sent_fill(struct pg_sent *e, const struct trigger_rec *const *t,
    enum stmt other, const struct store_val *v, int nv, size_t n)
{
	size_t i;

	memset(e, 0, sizeof(*e));
	e->posts = n;
	e->other = other;
	e->nv = nv;
	if ((e->r = calloc(n, sizeof(*e->r))) == NULL ||
	    (e->created = calloc(n, sizeof(*e->created))) == NULL ||
	    (e->oi = calloc(n, sizeof(*e->oi))) == NULL ||
	    (e->ov = calloc(n * (size_t)nv + 1, sizeof(*e->ov))) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if (t[i] != NULL) {
			e->r[e->n].t = t[i];
			e->r[e->n++].i = i;
		} else {
			memcpy(&e->ov[e->no * (size_t)nv], &v[i * (size_t)nv],
			    (size_t)nv * sizeof(*v));
			e->oi[e->no++] = i;
		}
	qsort(e->r, e->n, sizeof(*e->r), rec_cmp);
	return 0;
}

/*
 * The statements a batch sends, prepared: which pipeline mode cannot do,
 * so with batches in flight they are read first, and the mode left.
 * others: the batch has other posts, nv values each.
 */
static enum store_rc
pg_pipe_prepare(struct pg *s, enum stmt other, int others, int nv)
{
	/* The other statement's parameters: arrays, as text literals. */
	static const struct store_val texts[PG_MAX_PARAMS];
	struct params p;
	enum store_rc rc;

	if (s->nbatches == 0) {
		/* Its connection tested, and made again if need be. */
		if ((rc = pg_pipe_end(s)) != STORE_OK ||
		    (rc = pg_ready(s)) != STORE_OK ||
		    (rc = pg_prepare(s, STMT_RECORD, NULL)) != STORE_OK)
			return rc;
	}
	if (others && !s->prepared[other]) {
		pg_params(s, other, texts, nv, &p);
		if ((rc = pg_pipe_read_ahead(s, 0)) != STORE_OK ||
		    (rc = pg_pipe_end(s)) != STORE_OK ||
		    (rc = pg_prepare(s, other, &p)) != STORE_OK)
			return rc;
	}
	if (s->dead)
		return STORE_UNAVAILABLE;
	if (PQpipelineStatus(s->conn) == PQ_PIPELINE_OFF &&
	    !PQenterPipelineMode(s->conn))
		return pg_lost(s, "pipeline", PQerrorMessage(s->conn));
	return STORE_OK;
}

static enum store_rc
pg_record_send(struct store *base, const struct trigger_rec *const *t,
    enum stmt other, const struct store_val *v, int nv, size_t n)
{
	struct pg *s = (struct pg *)base;
	struct pg_sent *e;
	enum store_rc rc;
	size_t i;

	if (n == 0 || s->nbatches >= STORE_IN_FLIGHT)
		return STORE_ERROR;
	for (i = 0; i < n && t[i] != NULL; i++)
		;
	if (i < n && v == NULL)
		return STORE_ERROR;
	if ((rc = pg_pipe_prepare(s, other, i < n, nv)) != STORE_OK)
		return rc;
	e = pg_pipe_at(s, s->npipe);
	if (pg_sent_fill(e, t, other, v, nv, n) != 0 ||
	    (rc = pg_pipe_send_batch(s, e)) != STORE_OK) {
		pg_sent_free(e);
		return rc == STORE_OK ? STORE_ERROR : rc;
	}
	s->npipe++;
	s->nbatches++;
	s->notify_owed = 1;
	if (clock_ms(CLOCK_MONOTONIC) - s->notify_ms >= PG_NOTIFY_EVERY_MS)
		pg_pipe_send_notify(s);
	if (PQflush(s->conn) != 0)
		pg_lost(s, "record triggers", PQerrorMessage(s->conn));
	return STORE_OK;
}

static enum store_rc
pg_record_recv(struct store *base, int *created)
{
	struct pg *s = (struct pg *)base;
	struct pg_sent *e;
	enum store_rc rc;

	pg_pipe_drop_notifies(s);
	if (s->nbatches == 0)
		return STORE_ERROR;
	e = pg_pipe_at(s, 0);
	pg_pipe_settle(s, e);
	rc = e->deadlock ? pg_pipe_retry(s, e) : e->rc;
	/* All 0 but where STORE_OK says a post created (pg_pipe_read). */
	memcpy(created, e->created, e->posts * sizeof(*created));
	pg_pipe_pop(s);
	/* The last batch out: the NOTIFY it is owed, now. */
	if (s->nbatches == 0 && s->notify_owed) {
		pg_pipe_send_notify(s);
		if (!s->dead && PQflush(s->conn) != 0)
			pg_lost(s, "notify", PQerrorMessage(s->conn));
	}
	return rc;
}

static void
pg_rollback(struct store *base)
{
	struct pg *s = (struct pg *)base;

	if (!s->dead && PQtransactionStatus(s->conn) != PQTRANS_IDLE)
		pg_exec(s, STMT_ROLLBACK, NULL, 0, "rollback", NULL);
}

/*
 * A transaction that failed is rolled back, whatever COMMIT would say
 * (PostgreSQL answers COMMIT of a failed transaction with ROLLBACK, and
 * no error).
 */
static enum store_rc
pg_commit(struct store *base)
{
	struct pg *s = (struct pg *)base;
	PGresult *res;
	enum store_rc rc;

	if (s->dead)
		return pg_ready(s);
	if (PQtransactionStatus(s->conn) == PQTRANS_INERROR) {
		pg_rollback(base);
		snprintf(s->base.error, sizeof(s->base.error),
		    "commit: the transaction had failed; rolled back");
		return STORE_ERROR;
	}
	if ((rc = pg_exec(s, STMT_COMMIT, NULL, 0, "commit", &res)) !=
	    STORE_OK) {
		pg_rollback(base);
		return rc;
	}
	if (strcmp(PQcmdStatus(res), "COMMIT") != 0) {
		snprintf(s->base.error, sizeof(s->base.error),
		    "commit: the server rolled back");
		rc = STORE_ERROR;
	}
	PQclear(res);
	return rc;
}

/*
 * Grows with each notification on this connection (after store_watch_fd
 * listened).  A broken connection is STORE_UNAVAILABLE, so that a
 * watching runner opens another.
 */
static enum store_rc
pg_data_version(struct store *base, int64_t *version)
{
	struct pg *s = (struct pg *)base;
	PGnotify *n;
	enum store_rc rc;

	if ((rc = pg_ready(s)) != STORE_OK)
		return rc;
	if (!PQconsumeInput(s->conn) || PQstatus(s->conn) == CONNECTION_BAD)
		return pg_lost(s, "read notifications",
		    PQerrorMessage(s->conn));
	/* A runner's own completions are news to other runners only. */
	while ((n = PQnotifies(s->conn)) != NULL) {
		if (n->be_pid != PQbackendPID(s->conn))
			s->notifications++;
		PQfreemem(n);
	}
	*version = s->notifications;
	return STORE_OK;
}

/*
 * The connection's socket, readable when a notification arrives; LISTEN
 * is sent on the first call (a new connection after a reopen listens
 * again when the watcher asks for its descriptor).
 */
static int
pg_watch_fd(struct store *base)
{
	struct pg *s = (struct pg *)base;

	if (pg_ready(s) != STORE_OK)
		return -1;
	if (!s->listening) {
		if (pg_simple(s, "LISTEN " PG_CHANNEL, "listen", NULL, 0) !=
		    STORE_OK)
			return -1;
		s->listening = 1;
	}
	return PQsocket(s->conn);
}

static const struct store_ops pg_ops = {
	.name = "postgresql",
	.query = pg_query,
	.next = pg_next_row,
	.col_int = pg_col_int,
	.col_text = pg_col_text,
	.changes = pg_changes,
	.end = pg_end,
	.fail = pg_fail,
	.sql = store_pg_sql,
	.server_clock = 1,
	.purge_batch = PG_PURGE_BATCH,
	.schema_version = pg_schema_version,
	.close = pg_close,
	.record_send = pg_record_send,
	.record_recv = pg_record_recv,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.data_version = pg_data_version,
	.watch_fd = pg_watch_fd,
};

const struct store_ops *
store_pg_ops(void)
{
	return &pg_ops;
}
