/*
 * The SQLite store behind store.h: the embedded default, one file.
 *
 * One connection per process (or per thread), opened after any fork.  Every
 * statement lives in the table below, is prepared once on first use and is
 * referred to by name.  Transactions that may write are BEGIN IMMEDIATE or a
 * single writing statement, so the lock is taken where the busy handler can
 * wait for it; the handler waits in short steps and gives up after busy_ms,
 * which the caller turns into a retryable 503 (checkpoint-api(7), "ERRORS").
 */
#include <config.h>

#include <sys/inotify.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "clock.h"
#include "db_access.h"
#include "log.h"
#include "schema.h"
#include "store_impl.h"
#include "throwable.h"

static const struct store_ops lite_ops;

/* A WAL this large is truncated after a runner's pass (store_housekeeping). */
#define WAL_TRUNCATE_BYTES (4 * 1024 * 1024)
/* "ckpt": marks a database file as ours (PRAGMA application_id). */
#define STORE_APPLICATION_ID 0x636b7074

/*
 * A job's savepoints in its counts and durations, as Flink counts every
 * completed or failed snapshot that took an id: read from their own table,
 * which no purge touches, beside checkpoint_stats.
 */
#define SAVEPOINT_COUNTS \
	"coalesce(sum(status = 'COMPLETED'), 0) AS completed," \
	" coalesce(sum(status = 'FAILED'), 0) AS failed," \
	" coalesce(sum(status = 'IN_PROGRESS'), 0) AS running," \
	" min(CASE WHEN status = 'COMPLETED' THEN duration_ms END) AS dmin," \
	" max(CASE WHEN status = 'COMPLETED' THEN duration_ms END) AS dmax," \
	" coalesce(sum(CASE WHEN status = 'COMPLETED' THEN duration_ms END)," \
	" 0) AS dsum"
/* Of both, NULL if neither: SQLite's two-argument min and max are NULL
 * if either is. */
#define DURATION_MIN \
	"min(coalesce(s.duration_min, p.dmin), coalesce(p.dmin, s.duration_min))"
#define DURATION_MAX \
	"max(coalesce(s.duration_max, p.dmax), coalesce(p.dmax, s.duration_max))"

const char *const store_sqlite_sql[STMT__MAX] = {
	[STMT_BEGIN] = "BEGIN IMMEDIATE",
	[STMT_BEGIN_READ] = "BEGIN",
	/*
	 * A new trigger, or a fresh start for one whose result has expired
	 * (checkpoint-api(7), "RETENTION").  A live trigger is left
	 * alone: the same (job, triggerId) starts nothing.  One past the
	 * job's ?8 waiting triggers is made already failed (?9, ?10): the
	 * count stops at ?8, from triggers_queue.
	 */
	[STMT_RECORD] =
	    "INSERT INTO triggers (job_id, trigger_id, requested_type,"
	    " created_ms, remote_user, remote_addr, status, failure_class,"
	    " failure_trace, failure_throwable, completed_ms)"
	    " SELECT ?1, ?2, ?3, ?4, ?5, ?6,"
	    " CASE WHEN f THEN 'COMPLETED' ELSE 'IN_PROGRESS' END,"
	    " CASE WHEN f THEN ?9 END, CASE WHEN f THEN ?10 END,"
	    " CASE WHEN f THEN serialized_throwable(?9, ?10) END,"
	    " CASE WHEN f THEN ?4 END"
	    " FROM (SELECT (SELECT count(*) FROM (SELECT 1 FROM triggers"
	    "  WHERE job_id = ?1 AND status = 'IN_PROGRESS'"
	    "  AND claimed_by IS NULL LIMIT ?8)) >= ?8 AS f) WHERE true"
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
	    " WHERE status = 'COMPLETED' AND ?7 > 0 AND completed_ms <= ?4 - ?7",
	[STMT_STATUS] =
	    "SELECT response FROM trigger_status"
	    " WHERE job_id = ?1 AND trigger_id = ?2"
	    " AND (status = 'IN_PROGRESS' OR ?4 = 0 OR completed_ms > ?3 - ?4)",
	[STMT_JOB_ADD] =
	    "INSERT INTO jobs (job_id, name, state, checkpoint_type, command,"
	    " timeout_s, created_ms, updated_ms)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
	[STMT_JOB_SET] =
	    "UPDATE jobs SET"
	    " name = CASE WHEN ?2 & 1 THEN ?3 ELSE name END,"
	    " state = CASE WHEN ?2 & 2 THEN ?4 ELSE state END,"
	    " checkpoint_type = CASE WHEN ?2 & 4 THEN ?5 ELSE checkpoint_type END,"
	    " command = CASE WHEN ?2 & 8 THEN ?6 ELSE command END,"
	    " timeout_s = CASE WHEN ?2 & 16 THEN ?7 ELSE timeout_s END,"
	    " updated_ms = ?8"
	    " WHERE job_id = ?1",
	/*
	 * The checkpoint statistics (schema/0004): counters kept per job,
	 * and the running ones counted on triggers_claimed (one job's
	 * actions never overlap: at most one).
	 */
	[STMT_CKPT_COUNTS] =
	    "SELECT j.timeout_s, coalesce(s.completed, 0) + p.completed,"
	    " coalesce(s.failed, 0) + p.failed,"
	    " coalesce(" DURATION_MIN ", 0), coalesce(" DURATION_MAX ", 0),"
	    " coalesce(s.duration_sum, 0) + p.dsum,"
	    " (SELECT count(*) FROM triggers t WHERE t.job_id = j.job_id"
	    "  AND t.status = 'IN_PROGRESS' AND t.claimed_by IS NOT NULL)"
	    " + p.running"
	    " FROM jobs j LEFT JOIN checkpoint_stats s ON s.job_id = j.job_id,"
	    " (SELECT " SAVEPOINT_COUNTS " FROM savepoint_checkpoints"
	    "  WHERE job_id = ?1) p"
	    " WHERE j.job_id = ?1",
	[STMT_CKPT_LATEST] =
	    "SELECT last_completed, 'COMPLETED', completed_trigger_ms,"
	    " completed_ms, max(0, completed_ms - completed_trigger_ms),"
	    " completed_location, NULL, NULL, 0, NULL"
	    " FROM checkpoint_stats WHERE job_id = ?1"
	    " AND last_completed IS NOT NULL"
	    " UNION ALL"
	    " SELECT last_failed, 'FAILED', failed_trigger_ms, failed_ms,"
	    " max(0, failed_ms - failed_trigger_ms), NULL, failed_class,"
	    " failed_trace, 0, NULL FROM checkpoint_stats WHERE job_id = ?1"
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
	    "  NULL, NULL, location, failure_class, failure_trace, 0, NULL"
	    "  FROM triggers INDEXED BY triggers_claimed WHERE job_id = ?1"
	    "  AND status = 'IN_PROGRESS' AND claimed_by IS NOT NULL"
	    "  AND checkpoint_id IS NOT NULL"
	    "  ORDER BY checkpoint_id DESC LIMIT ?2) AS r"
	    " UNION ALL SELECT * FROM (SELECT checkpoint_id, status,"
	    "  coalesce(claimed_ms, created_ms), completed_ms,"
	    "  max(0, completed_ms - coalesce(claimed_ms, created_ms)),"
	    "  location, failure_class, failure_trace, 0, NULL"
	    "  FROM checkpoint_history WHERE job_id = ?1"
	    "  ORDER BY checkpoint_id DESC LIMIT ?2) AS h"
	    " UNION ALL SELECT * FROM (" SAVEPOINT_ROWS " WHERE job_id = ?1"
	    "  ORDER BY checkpoint_id DESC LIMIT ?2) AS s) AS u"
	    " ORDER BY 1 DESC LIMIT ?2",
	[STMT_CKPT_DURATIONS] =
	    "SELECT duration_ms FROM (SELECT checkpoint_id, duration_ms"
	    " FROM checkpoints WHERE job_id = ?1 AND status = 'COMPLETED'"
	    " UNION ALL SELECT checkpoint_id, duration_ms"
	    " FROM savepoint_checkpoints"
	    " WHERE job_id = ?1 AND status = 'COMPLETED')"
	    " ORDER BY checkpoint_id DESC LIMIT ?2",
	/*
	 * What GET /jobs/:jobid/triggers lists: the job's waiting triggers
	 * (its queue's and its claim's indexes, never the fleet's queue)
	 * and its newest finished checkpoints (the
	 * history's key, schema/0007), newest first, however long ago
	 * their results expired.  Each half is an index walk of at most the
	 * queue or the limit, however many triggers the job has stored;
	 * sorting every trigger of the job by id (STMT_TRIGGER_LIST_JOB)
	 * grows with the job's stored triggers.  A failure without an id (the
	 * job was not RUNNING) is not among them.
	 */
	[STMT_TRIGGER_RECENT] =
	    "SELECT " TRIGGER_COLS " FROM"
	    " (SELECT id AS ord, " TRIGGER_COLS " FROM triggers"
	    "  INDEXED BY triggers_queue WHERE " QUEUED(
		"?1") " UNION ALL SELECT id AS ord, " TRIGGER_COLS
		      " FROM triggers"
		      "  INDEXED BY triggers_claimed WHERE " CLAIMED(
			  "?1") " UNION ALL SELECT * FROM (" HISTORY_AS_TRIGGERS
				"  WHERE job_id = ?1 ORDER BY checkpoint_id DESC LIMIT ?2) AS h)"
				" AS u ORDER BY ord DESC LIMIT ?2",
	/*
	 * A job's waiting triggers, queued or running, and the oldest's
	 * arrival: walks of the job's queue and its claim, however long
	 * the job's history and the fleet's queue.
	 */
	[STMT_TRIGGER_WAITING] =
	    "SELECT count(*), min(created_ms),"
	    " (SELECT pass_ms FROM service_metrics WHERE id = 1) FROM"
	    " (SELECT created_ms FROM triggers INDEXED BY triggers_queue"
	    "  WHERE " QUEUED(
		"?1") " UNION ALL SELECT created_ms FROM triggers"
		      "  INDEXED BY triggers_claimed WHERE " CLAIMED(
			  "?1") ") AS w",
	[STMT_PURGE] = "DELETE FROM triggers WHERE status = 'COMPLETED'"
		       " AND ?2 > 0 AND completed_ms <= ?1 - ?2",
	/* A savepoint that failed without an id holds nothing to keep. */
	[STMT_SP_PURGE] = "DELETE FROM savepoints WHERE status = 'COMPLETED'"
			  " AND checkpoint_id IS NULL AND location IS NULL"
			  " AND ?2 > 0 AND completed_ms <= ?1 - ?2",
	[STMT_DISPOSAL_PURGE] =
	    "DELETE FROM savepoint_disposals WHERE status = 'COMPLETED'"
	    " AND ?2 > 0 AND completed_ms <= ?1 - ?2",
	/*
	 * The queue in arrival order, with the job's registration and
	 * whether one of its triggers is already claimed (one job's commands
	 * never run at once).
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
	    " AND t.id > ?1 AND t.id <= ?3 ORDER BY t.id LIMIT ?2",
	/* The last row of the next round, and how many rows it holds. */
	[STMT_PENDING_BOUND] =
	    "SELECT max(id), count(*) FROM (SELECT id FROM triggers"
	    " WHERE status = 'IN_PROGRESS' AND claimed_by IS NULL AND id > ?1"
	    " ORDER BY id LIMIT ?2)",
	/*
	 * A round's easy triggers: those of jobs that are not RUNNING (or
	 * not registered) fail, job by job (store_fail_unknown_jobs); those
	 * of RUNNING jobs without a command get the job's next ids in
	 * arrival order.  A failure's serialized-throwable is made by
	 * lite_fn_throwable.
	 */
	[STMT_UNKNOWN_JOBS] =
	    "SELECT DISTINCT job_id FROM triggers"
	    " WHERE id > ?1 AND id <= ?2 AND status = 'IN_PROGRESS'"
	    " AND claimed_by IS NULL AND NOT EXISTS (SELECT 1 FROM jobs j"
	    "  WHERE j.job_id = triggers.job_id AND j.state = 'RUNNING')",
	[STMT_FAIL_UNKNOWN] =
	    "UPDATE triggers SET status = 'COMPLETED', failure_class = ?3,"
	    " failure_trace = ?4,"
	    " failure_throwable = serialized_throwable(?3, ?4),"
	    " completed_ms = ?7"
	    " WHERE job_id = ?6 AND id > ?1 AND id <= ?2"
	    " AND status = 'IN_PROGRESS' AND claimed_by IS NULL"
	    " AND NOT EXISTS (SELECT 1 FROM jobs j"
	    "  WHERE j.job_id = triggers.job_id AND j.state = 'RUNNING')",
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
	    " WHERE t.id > ?1 AND t.id <= ?2 AND t.status = 'IN_PROGRESS'"
	    "  AND t.claimed_by IS NULL)"
	    " UPDATE triggers SET status = 'COMPLETED', checkpoint_id = r.cid,"
	    " checkpoint_type = r.typ, completed_ms = ?3"
	    " FROM r WHERE triggers.id = r.id",
	/* Ids in the range never exceed the counters afterwards. */
	[STMT_COUNTERS_SYNC] =
	    "INSERT INTO checkpoint_counters (job_id, last_id)"
	    " SELECT job_id, max(checkpoint_id) FROM triggers"
	    " WHERE id > ?1 AND id <= ?2 AND checkpoint_id IS NOT NULL"
	    " GROUP BY job_id"
	    " ON CONFLICT (job_id) DO UPDATE"
	    " SET last_id = max(last_id, excluded.last_id)",
	[STMT_NEXT_ID] =
	    "INSERT INTO checkpoint_counters (job_id, last_id) VALUES (?1, 1)"
	    " ON CONFLICT (job_id) DO UPDATE SET last_id = last_id + 1"
	    " RETURNING last_id",
	[STMT_COMPLETE] =
	    "UPDATE triggers SET status = 'COMPLETED',"
	    " checkpoint_id = coalesce(?2, checkpoint_id),"
	    " checkpoint_type = coalesce(?3, checkpoint_type),"
	    " location = ?4, failure_class = ?5, failure_trace = ?6,"
	    " failure_throwable = serialized_throwable(?5, ?6),"
	    " completed_ms = ?7"
	    " WHERE id = ?1 AND status = 'IN_PROGRESS' AND claimed_by IS ?8",
	[STMT_CLAIM] =
	    "UPDATE triggers SET claimed_by = ?2, claimed_ms = ?5,"
	    " lease_ms = ?6, checkpoint_id = ?3, checkpoint_type = ?4"
	    " WHERE id = ?1 AND status = 'IN_PROGRESS' AND claimed_by IS NULL",
	[STMT_CLAIM_RENEW] = "UPDATE triggers SET lease_ms = ?3"
			     " WHERE id = ?1 AND status = 'IN_PROGRESS'"
			     " AND claimed_by = ?2",
	[STMT_CLAIMED] =
	    "SELECT id, job_id, trigger_id, claimed_by, lease_ms,"
	    " checkpoint_id, checkpoint_type FROM triggers"
	    " WHERE status = 'IN_PROGRESS' AND claimed_by IS NOT NULL"
	    " ORDER BY id",
	[STMT_DATA_VERSION] = "PRAGMA data_version",
	[STMT_WAL_CHECKPOINT] = "PRAGMA wal_checkpoint(TRUNCATE)",
	/*
	 * The queue from the pending index, claims from the claimed index
	 * (named: the planner took the pending one, whose scan grows with a
	 * backlog), the counts that survive retention from checkpoint_stats
	 * (0004), summed over a handful of rows (one per job ever run), and
	 * service_metrics (0005).
	 */
	[STMT_METRICS_SERVICE] =
	    "SELECT q.n, q.oldest, (SELECT count(*)"
	    "  FROM triggers INDEXED BY triggers_claimed"
	    "  WHERE status = 'IN_PROGRESS' AND claimed_by IS NOT NULL),"
	    " m.c, m.f - m.x, m.x, s.job_not_found, s.pass_ms, s.pass_advanced,"
	    " s.pass_duration_ms, s.queue_refused + (SELECT count(*)"
	    "  FROM triggers INDEXED BY triggers_refused WHERE " REFUSED ")"
	    " FROM service_metrics s,"
	    " (SELECT count(*) AS n, min(created_ms) AS oldest FROM triggers"
	    "  WHERE status = 'IN_PROGRESS' AND claimed_by IS NULL) q,"
	    " (SELECT total(completed) AS c, total(failed) AS f,"
	    "  total(expired) AS x FROM checkpoint_stats) m"
	    " WHERE s.id = 1",
	/*
	 * Flink's gauges from the very columns GET /jobs/:jobid/checkpoints
	 * reads (STMT_CKPT_COUNTS, STMT_CKPT_LATEST), so the two never
	 * disagree.
	 */
	[STMT_METRICS_JOBS] =
	    "SELECT j.job_id, j.name,"
	    " coalesce(s.completed, 0) + coalesce(p.completed, 0),"
	    " coalesce(s.failed, 0) + coalesce(p.failed, 0),"
	    " (SELECT count(*) FROM triggers t WHERE t.job_id = j.job_id"
	    "  AND t.status = 'IN_PROGRESS' AND t.claimed_by IS NOT NULL)"
	    " + coalesce(p.running, 0),"
	    " coalesce(s.last_completed, -1),"
	    " coalesce(max(0, s.completed_ms - s.completed_trigger_ms), -1)"
	    " FROM jobs j LEFT JOIN checkpoint_stats s ON s.job_id = j.job_id"
	    " LEFT JOIN (SELECT job_id, " SAVEPOINT_COUNTS
	    "  FROM savepoint_checkpoints GROUP BY job_id) p"
	    " ON p.job_id = j.job_id ORDER BY j.job_id",
	/*
	 * A pass that advanced nothing is recorded only once the last record
	 * is every_ms old: each record wakes every watching runner (a
	 * commit), and records that woke each other would never stop.
	 */
	[STMT_RUNNER_PASS] =
	    "UPDATE service_metrics SET pass_ms = ?1, pass_advanced = ?2,"
	    " pass_duration_ms = ?3"
	    " WHERE id = 1 AND (?2 > 0 OR pass_ms <= ?1 - ?4)",
	/* With the refused triggers the export leaves out (expired). */
	[STMT_EXPORT_SERVICE] =
	    "SELECT job_not_found, pass_ms, pass_advanced, pass_duration_ms,"
	    " schedule_missed, queue_refused + (SELECT count(*) FROM triggers"
	    "  INDEXED BY triggers_refused WHERE " REFUSED
	    "  AND ?2 > 0 AND completed_ms <= ?1 - ?2)"
	    " FROM service_metrics WHERE id = 1",
	[STMT_EXPORT_TRIGGERS] =
	    "SELECT id, job_id, trigger_id, status, requested_type,"
	    " checkpoint_type, checkpoint_id, location, failure_class,"
	    " failure_trace, failure_throwable, claimed_by, remote_user,"
	    " remote_addr, created_ms, completed_ms, claimed_ms, lease_ms"
	    " FROM triggers"
	    " WHERE status = 'IN_PROGRESS' OR ?2 = 0 OR completed_ms > ?1 - ?2"
	    " ORDER BY id",
	/* A triggerId seen before starts nothing, whatever became of it. */
	/*
	 * Past the job's ?11 waiting savepoints and stops, one is made
	 * already failed (?12, ?13, ?14: the driver's serialized-throwable,
	 * NULL here), as a trigger past its bound (STMT_RECORD).
	 */
	[STMT_SP_RECORD] =
	    "INSERT INTO savepoints (job_id, trigger_id, kind, target_directory,"
	    " format_type, cancel_job, drain, remote_user, remote_addr,"
	    " created_ms, status, failure_class, failure_trace,"
	    " failure_throwable, completed_ms)"
	    " SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
	    " CASE WHEN f THEN 'COMPLETED' ELSE 'IN_PROGRESS' END,"
	    " CASE WHEN f THEN ?12 END, CASE WHEN f THEN ?13 END,"
	    " CASE WHEN f THEN coalesce(?14, serialized_throwable(?12, ?13))"
	    " END, CASE WHEN f THEN ?10 END"
	    " FROM (SELECT ?11 > 0 AND (SELECT count(*) FROM (SELECT 1"
	    "  FROM savepoints WHERE job_id = ?1 AND status = 'IN_PROGRESS'"
	    "  AND claimed_by IS NULL LIMIT ?11)) >= ?11 AS f) WHERE true"
	    " ON CONFLICT (job_id, trigger_id) DO NOTHING",
	/* Only a failed disposal starts again, under its first id. */
	[STMT_DISPOSAL_RECORD] =
	    "INSERT INTO savepoint_disposals (trigger_id, savepoint_path,"
	    " remote_user, remote_addr, created_ms, reason)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
	    " ON CONFLICT (savepoint_path) DO UPDATE SET"
	    " status = 'IN_PROGRESS', failure_class = NULL,"
	    " failure_trace = NULL, failure_throwable = NULL,"
	    " claimed_by = NULL, claimed_ms = NULL, lease_ms = NULL,"
	    " completed_ms = NULL, attempts = attempts + 1,"
	    " created_ms = excluded.created_ms,"
	    " remote_user = excluded.remote_user,"
	    " remote_addr = excluded.remote_addr, reason = excluded.reason"
	    " WHERE failure_class IS NOT NULL",
	[STMT_DISPOSAL_ID] = "SELECT trigger_id FROM savepoint_disposals"
			     " WHERE savepoint_path = ?1",
	/*
	 * The runner's savepoint work (runner.c, "Savepoints"): pending
	 * rows in arrival order with their job; busy while any command of
	 * the job runs (a checkpoint's or a savepoint's).
	 */
	[STMT_SP_PENDING] =
	    "SELECT s.id, s.job_id, s.trigger_id, s.kind = 'STOP',"
	    " s.target_directory, s.format_type = 'NATIVE', s.cancel_job,"
	    " s.drain, j.job_id IS NOT NULL, coalesce(j.state = 'RUNNING', 0),"
	    " CASE s.kind WHEN 'STOP' THEN j.stop_command"
	    "  ELSE j.savepoint_command END, coalesce(j.timeout_s, 600),"
	    " EXISTS (SELECT 1 FROM triggers t WHERE t.job_id = s.job_id"
	    "  AND t.status = 'IN_PROGRESS' AND t.claimed_by IS NOT NULL)"
	    " OR EXISTS (SELECT 1 FROM savepoints o WHERE o.job_id = s.job_id"
	    "  AND o.status = 'IN_PROGRESS' AND o.claimed_by IS NOT NULL),"
	    " j.flink_url"
	    " FROM savepoints s LEFT JOIN jobs j ON j.job_id = s.job_id"
	    " WHERE s.status = 'IN_PROGRESS' AND s.claimed_by IS NULL"
	    " ORDER BY s.id LIMIT ?1",
	[STMT_SP_CLAIM] =
	    "UPDATE savepoints SET claimed_by = ?2, claimed_ms = ?4,"
	    " lease_ms = ?4 + ?5, checkpoint_id = ?3"
	    " WHERE id = ?1 AND status = 'IN_PROGRESS' AND claimed_by IS NULL",
	[STMT_SP_COMPLETE] =
	    "UPDATE savepoints SET status = 'COMPLETED',"
	    " checkpoint_id = coalesce(?2, checkpoint_id), location = ?3,"
	    " failure_class = ?4, failure_trace = ?5,"
	    " failure_throwable = serialized_throwable(?4, ?5),"
	    " completed_ms = ?7, claimed_by = NULL, claimed_ms = NULL,"
	    " lease_ms = NULL"
	    " WHERE id = ?1 AND status = 'IN_PROGRESS' AND claimed_by IS ?8",
	[STMT_SP_END_JOB] = "UPDATE jobs SET state = ?2, updated_ms = ?3"
			    " WHERE job_id = ?1 AND state = 'RUNNING'",
	/* A claim, and whether its lease is over. */
	[STMT_SP_CLAIMS] =
	    "SELECT id, job_id, trigger_id, claimed_by, lease_ms <= ?1"
	    " FROM savepoints"
	    " WHERE status = 'IN_PROGRESS' AND claimed_by IS NOT NULL",
	[STMT_SP_RENEW] = "UPDATE savepoints SET lease_ms = ?3"
			  " WHERE id = ?1 AND status = 'IN_PROGRESS'"
			  " AND claimed_by = ?2",
	/*
	 * A disposal's command is that of the job whose savepoint has the
	 * path as its location.
	 */
	[STMT_DISPOSAL_PENDING] =
	    "SELECT d.id, d.trigger_id, d.savepoint_path, d.owner,"
	    " j.dispose_command, coalesce(j.timeout_s, 600), j.flink_url,"
	    " " DISPOSAL_SCOPE
	    /* Whose snapshot: a savepoint's job, else a checkpoint's. */
	    " FROM (SELECT *, coalesce((SELECT job_id FROM savepoints"
	    "  WHERE location = savepoint_path ORDER BY id DESC LIMIT 1),"
	    "  (SELECT job_id FROM checkpoint_history"
	    "  WHERE location = savepoint_path LIMIT 1)) AS owner,"
	    "  (SELECT max(id) FROM savepoints WHERE location = savepoint_path)"
	    "  AS sp FROM savepoint_disposals"
	    "  WHERE status = 'IN_PROGRESS' AND claimed_by IS NULL) AS d"
	    " LEFT JOIN savepoints s ON s.id = d.sp"
	    " LEFT JOIN jobs j ON j.job_id = d.owner"
	    " ORDER BY d.id LIMIT ?1",
	[STMT_DISPOSAL_CLAIM] =
	    "UPDATE savepoint_disposals SET claimed_by = ?2, claimed_ms = ?3,"
	    " lease_ms = ?3 + ?4"
	    " WHERE id = ?1 AND status = 'IN_PROGRESS' AND claimed_by IS NULL",
	[STMT_DISPOSAL_COMPLETE] =
	    "UPDATE savepoint_disposals SET status = 'COMPLETED',"
	    " failure_class = ?2, failure_trace = ?3,"
	    " failure_throwable = serialized_throwable(?2, ?3),"
	    " completed_ms = ?5, claimed_by = NULL, claimed_ms = NULL,"
	    " lease_ms = NULL"
	    " WHERE id = ?1 AND status = 'IN_PROGRESS' AND claimed_by IS ?6",
	[STMT_DISPOSAL_MARK_HISTORY] =
	    "UPDATE checkpoint_history SET disposed_ms = ?2"
	    " WHERE location = ?1 AND disposed_ms IS NULL",
	[STMT_DISPOSAL_MARK] = "UPDATE savepoints SET disposed_ms = ?2"
			       " WHERE location = ?1 AND disposed_ms IS NULL",
	[STMT_DISPOSAL_CLAIMS] =
	    "SELECT id, '', trigger_id, claimed_by, lease_ms <= ?1"
	    " FROM savepoint_disposals"
	    " WHERE status = 'IN_PROGRESS' AND claimed_by IS NOT NULL",
	[STMT_DISPOSAL_RENEW] = "UPDATE savepoint_disposals SET lease_ms = ?3"
				" WHERE id = ?1 AND status = 'IN_PROGRESS'"
				" AND claimed_by = ?2",
	[STMT_JOB_SET_SAVEPOINT] =
	    "UPDATE jobs SET"
	    " savepoint_dir = CASE WHEN ?2 & 32 THEN ?3 ELSE savepoint_dir END,"
	    " savepoint_command = CASE WHEN ?2 & 64 THEN ?4"
	    "  ELSE savepoint_command END,"
	    " stop_command = CASE WHEN ?2 & 128 THEN ?5 ELSE stop_command END,"
	    " dispose_command = CASE WHEN ?2 & 256 THEN ?6"
	    "  ELSE dispose_command END,"
	    " updated_ms = ?7 WHERE job_id = ?1",
	/* latest.savepoint: the job's completed savepoint of highest id. */
	[STMT_SP_LATEST] = SAVEPOINT_ROWS
	" WHERE job_id = ?1 AND status = 'COMPLETED'"
	" ORDER BY checkpoint_id DESC LIMIT 1",
	/* Every savepoint of a job (NULL: of all), newest first. */
	[STMT_SP_LIST] =
	    "SELECT job_id, trigger_id, kind, status, checkpoint_id,"
	    " target_directory, format_type, cancel_job, drain, location,"
	    " failure_class, failure_trace, created_ms, claimed_ms,"
	    " completed_ms, disposed_ms, remote_user, remote_addr, kept_ms"
	    " FROM savepoints WHERE " JOB_RANGE("job_id",
		"?1") " ORDER BY id DESC",
	/*
	 * The history's retention (store_history_prune): below a job's
	 * newest ?2 ids, a walk of the key from the counters' rows (one
	 * per job), however long the history; and what ended ?3 ago.
	 */
	[STMT_HISTORY_PRUNE_KEEP] =
	    "DELETE FROM checkpoint_history WHERE rowid IN"
	    " (SELECT h.rowid FROM checkpoint_counters c"
	    " JOIN checkpoint_history h ON h.job_id = c.job_id"
	    " AND h.checkpoint_id <= c.last_id - ?2 WHERE ?2 > 0)",
	[STMT_HISTORY_PRUNE_AGE] = "DELETE FROM checkpoint_history"
				   " WHERE ?3 > 0 AND completed_ms <= ?1 - ?3",
	/*
	 * By the same rule, the records of savepoints that no longer exist
	 * (disposed of, or failed), but the job's latest and a kept one.
	 */
	[STMT_SP_PRUNE] =
	    "DELETE FROM savepoints WHERE id IN (SELECT p.id FROM savepoints p"
	    " LEFT JOIN checkpoint_counters c ON c.job_id = p.job_id"
	    " WHERE p.status = 'COMPLETED' AND p.kept_ms IS NULL"
	    " AND (p.disposed_ms IS NOT NULL OR p.location IS NULL)"
	    " AND ((?2 > 0 AND p.checkpoint_id <= c.last_id - ?2)"
	    "  OR (?3 > 0 AND p.completed_ms <= ?1 - ?3))"
	    " AND p.id IS NOT (SELECT l.id FROM savepoints l"
	    "  WHERE l.job_id = p.job_id AND l.status = 'COMPLETED'"
	    "  ORDER BY l.checkpoint_id DESC LIMIT 1))",
	/* Tables copied whole (store_impl.h's *_COPY_COLS). */
	[STMT_EXPORT_SAVEPOINTS] = "SELECT " SAVEPOINT_COPY_COLS
				   " FROM savepoints ORDER BY id",
	/*
	 * Jobs bound to a Flink JobManager (schema/0008): Flink's id
	 * replaces the claim's none, Flink's serialized-throwable is kept as
	 * sent, and the job's counter follows Flink's ids, never down.
	 */
	[STMT_JOB_FLINK_SET] = "UPDATE jobs SET flink_url = ?2, updated_ms = ?3"
			       " WHERE job_id = ?1",
	[STMT_FLINK_COMPLETE] =
	    "UPDATE triggers SET status = 'COMPLETED',"
	    " checkpoint_id = ?2, checkpoint_type = coalesce(?3, checkpoint_type),"
	    " location = ?4, failure_class = ?5, failure_trace = ?6,"
	    " failure_throwable = coalesce(?9, serialized_throwable(?5, ?6)),"
	    " completed_ms = ?7"
	    " WHERE id = ?1 AND status = 'IN_PROGRESS' AND claimed_by IS ?8",
	/* Schedules: a rule set afresh starts at its since_ms. */
	[STMT_SCHED_SET] =
	    "INSERT INTO schedules (job_id, kind, every_ms, cron, since_ms,"
	    " last_slot_ms, set_by)"
	    " SELECT job_id, ?2, ?3, ?4, ?5, ?5, ?6 FROM jobs WHERE job_id = ?1"
	    " ON CONFLICT (job_id, kind) DO UPDATE SET every_ms ="
	    " excluded.every_ms, cron = excluded.cron, since_ms ="
	    " excluded.since_ms, last_slot_ms = excluded.last_slot_ms,"
	    " set_by = excluded.set_by",
	[STMT_SCHED_LIST] =
	    "SELECT s.job_id, s.kind, s.every_ms, s.cron, s.since_ms,"
	    " s.last_slot_ms, s.set_by, j.state, j.savepoint_dir, s.missed"
	    " FROM schedules s JOIN jobs j ON j.job_id = s.job_id"
	    " WHERE " JOB_RANGE("s.job_id", "?1") " ORDER BY s.job_id, s.kind",
	/*
	 * Only the rule that was read, and only forward: one runner wins;
	 * the slots it passed over counted missed (?5).
	 */
	[STMT_SCHED_ADVANCE] =
	    "UPDATE schedules SET last_slot_ms = ?3, missed = missed + ?5"
	    " WHERE job_id = ?1"
	    " AND kind = ?2 AND since_ms = ?4 AND last_slot_ms < ?3",
	/* Whether the job has one of kind ?2 still in progress. */
	[STMT_SCHED_BUSY] =
	    "SELECT CASE WHEN ?2 = 'SAVEPOINT' THEN EXISTS (SELECT 1"
	    " FROM savepoints WHERE job_id = ?1 AND status = 'IN_PROGRESS')"
	    " ELSE EXISTS (SELECT 1 FROM triggers WHERE job_id = ?1"
	    " AND status = 'IN_PROGRESS') END",
	[STMT_SCHED_SLOT] =
	    "INSERT INTO schedule_slots (job_id, kind, slot_ms, fired_ms,"
	    " trigger_id, skipped) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	/* Retention (schema/0012, retention.h): ?2 is the kind. */
	[STMT_RETAIN_SET] =
	    "INSERT INTO retention (job_id, kind, keep_last, keep_ms, set_by,"
	    " set_ms) SELECT job_id, ?2, ?3, ?4, ?5, ?6 FROM jobs"
	    " WHERE job_id = ?1"
	    " ON CONFLICT (job_id, kind) DO UPDATE SET"
	    " keep_last = excluded.keep_last, keep_ms = excluded.keep_ms,"
	    " set_by = excluded.set_by, set_ms = excluded.set_ms,"
	    " due_ms = 0, changes = changes + 1",
	/* A completed savepoint, by trigger id or checkpoint id. */
	[STMT_SP_KEEP] = "UPDATE savepoints SET kept_ms = ?4 WHERE job_id = ?1"
			 " AND (trigger_id = ?2 OR checkpoint_id = ?3)"
			 " AND status = 'COMPLETED' AND location IS NOT NULL",
	/*
	 * Of every job with a policy, read from the policies (CROSS JOIN:
	 * in that order, SQLite), then each one's job by its key: no
	 * policy, nothing read; of one job, by the job's key, an equality
	 * that even a generic plan takes for one job's rows.
	 */
	[STMT_RETAIN_CANDIDATES] = RETAIN_CANDIDATES("CROSS JOIN", "NULL",
	    "?1 IS NULL", "d.savepoint_path = c.location"),
	[STMT_RETAIN_CANDIDATES_JOB] = RETAIN_CANDIDATES("CROSS JOIN", "NULL",
	    "r.job_id = ?1", "d.savepoint_path = c.location"),
	/*
	 * The policies due by ?1 (schema/0015), by their index (named: the
	 * planner would walk every policy in the key's order rather than
	 * sort the few due), and when one is next due unless its job's
	 * snapshots changed since it was read (?3).
	 */
	[STMT_RETAIN_DUE] = "SELECT job_id, kind, changes FROM retention"
			    " INDEXED BY retention_due"
			    " WHERE due_ms <= ?1 ORDER BY job_id, kind",
	[STMT_RETAIN_NEXT] =
	    "UPDATE retention SET due_ms = ?4"
	    " WHERE job_id = ?1 AND kind = ?2 AND changes = ?3",
	/*
	 * The history's retention by count, of the jobs whose counter grew
	 * since they were last pruned (history_grown; CROSS JOIN: from them,
	 * never a walk of the whole history's key), then forgotten, in
	 * one transaction (store_history_prune); all of them forgotten,
	 * after every job was pruned; the count they were pruned by.
	 */
	[STMT_HISTORY_PRUNE_GROWN] =
	    "DELETE FROM checkpoint_history WHERE rowid IN"
	    " (SELECT h.rowid FROM history_grown g"
	    " CROSS JOIN checkpoint_counters c ON c.job_id = g.job_id"
	    " CROSS JOIN checkpoint_history h ON h.job_id = g.job_id"
	    " AND h.checkpoint_id <= c.last_id - ?2 WHERE ?2 > 0)",
	[STMT_HISTORY_GROWN_MARK] = "DELETE FROM history_grown",
	[STMT_HISTORY_KEEP_SET] =
	    "INSERT INTO history_keep (one, keep) VALUES (1, ?2)"
	    " ON CONFLICT (one) DO UPDATE SET keep = excluded.keep",
	[STMT_SCHED_MISSED_ADD] = "UPDATE service_metrics"
				  " SET schedule_missed = schedule_missed + ?1"
				  " WHERE id = 1",
	[STMT_COUNTER_FOLLOW] =
	    "INSERT INTO checkpoint_counters (job_id, last_id)"
	    " SELECT job_id, ?2 FROM triggers WHERE id = ?1"
	    " ON CONFLICT (job_id) DO UPDATE"
	    " SET last_id = max(last_id, excluded.last_id)",
	/*
	 * The first waiting trigger of each job whose command (or
	 * JobManager) is free, up to the round's last row (?3): the queue
	 * read in arrival order by its index (named: the planner would
	 * rather walk every job), until ?1 are found.  What it passes over
	 * is what waits behind the commands running (triggers the round's
	 * range has not resolved are left to it), not the fleet: a job's
	 * own queue is probed once a row, by triggers_queue.
	 */
	[STMT_PENDING_HEADS] =
	    "SELECT t.id, t.job_id, t.trigger_id, t.requested_type,"
	    " 1, j.state, j.checkpoint_type, j.command, j.timeout_s, 0,"
	    " j.flink_url"
	    " FROM triggers t INDEXED BY triggers_pending"
	    " CROSS JOIN jobs j ON j.job_id = t.job_id"
	    " WHERE t.status = 'IN_PROGRESS' AND t.claimed_by IS NULL"
	    " AND t.id <= ?3 AND j.state = 'RUNNING'"
	    " AND (j.command IS NOT NULL OR j.flink_url IS NOT NULL)"
	    " AND NOT EXISTS (SELECT 1 FROM triggers e WHERE e.job_id = t.job_id"
	    "  AND e.status = 'IN_PROGRESS' AND e.claimed_by IS NULL"
	    "  AND e.id < t.id)"
	    " AND NOT EXISTS (SELECT 1 FROM triggers c WHERE c.job_id = t.job_id"
	    "  AND c.status = 'IN_PROGRESS' AND c.claimed_by IS NOT NULL)"
	    " ORDER BY t.id LIMIT ?1",
};

struct lite {
	struct store base; /* first: the handle store.c hands out */
	sqlite3 *db;
	sqlite3_stmt *stmt[STMT__MAX];
	int64_t busy_ms;
	struct timespec busy_start;
	void (*on_commit)(void *, int); /* store_on_commit */
	void *on_commit_arg;
	char path[4096];
	int replaced; /* store_replaced said so, and logged it */
	int64_t replaced_checked_ms; /* when store_replaced last looked */
	int watch; /* store_watch_fd's inotify descriptor, or -1 */
};

/*
 * Process-wide SQLite settings, before the first connection (and before
 * any thread uses SQLite).  Memory statistics off, as SQLite recommends
 * (SQLITE_DEFAULT_MEMSTATUS=0): with them, every allocation of every
 * connection takes one process-wide mutex: off, a GET does less and the
 * threads' connections do not contend.
 */
void
store_sqlite_init(void)
{
	(void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

static int
lite_schema_version(void)
{
	return store_count(schema_migrations);
}

/*
 * SQLite's default handler sleeps up to 100 ms between tries, which left
 * several writer processes' POSTs waiting long after the lock was free,
 * and some failed with SQLITE_BUSY all the same
 * (scripts/bench.d/results.md).  Here: sleeps of 0.25 to 2 ms, with a
 * little jitter so that waiters do not retry in step, until busy_ms have
 * passed since this lock wait began.
 */
static int
lite_busy_handler(void *arg, int count)
{
	struct lite *s = arg;
	struct timespec now, ts;
	int64_t waited, step_us;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (count == 0)
		s->busy_start = now;
	waited = (now.tv_sec - s->busy_start.tv_sec) * 1000 +
	    (now.tv_nsec - s->busy_start.tv_nsec) / 1000000;
	if (waited >= s->busy_ms)
		return 0;
	step_us = 250 * (1 + (count < 7 ? count : 7));
	step_us += now.tv_nsec % 250;
	ts.tv_sec = 0;
	ts.tv_nsec = step_us * 1000;
	nanosleep(&ts, NULL);
	return 1;
}

/*
 * SQL serialized_throwable(class, trace): failureCause's
 * "serialized-throwable" of a failure (throwable.c), NULL for a NULL
 * class (no failure).  Registered on every connection, so that whatever
 * stores a failure stores its stream in the same statement, and the
 * migration that added the column could fill it in for the failures
 * already there.
 */
static void
lite_fn_throwable(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct buf b = { 0 };
	const char *class, *trace;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	class = (const char *)sqlite3_value_text(argv[0]);
	trace = (const char *)sqlite3_value_text(argv[1]);
	if (class == NULL ||
	    throwable_base64(&b, class, (size_t)sqlite3_value_bytes(argv[0]),
		trace != NULL ? trace : "",
		trace != NULL ? (size_t)sqlite3_value_bytes(argv[1]) : 0) ==
		-1) {
		buf_free(&b);
		sqlite3_result_error_nomem(ctx);
		return;
	}
	/* SQLite frees the text when it is done with it. */
	sqlite3_result_text64(ctx, b.p, b.len, free, SQLITE_UTF8);
}

/* Logs an error of what s was doing, and keeps its text for store_error. */
static enum store_rc
lite_fail(struct store *base, const char *what, const char *why)
{
	struct lite *s = (struct lite *)base;

	snprintf(s->base.error, sizeof(s->base.error), "%s: %s", what, why);
	log_error("%s: %s", s->path, s->base.error);
	return STORE_ERROR;
}

/*
 * Appends to err why path cannot be opened or written (db_access.h), and
 * says which: a write refused is STORE_READONLY, which retrying cannot
 * mend; anything else stays rc.
 */
static enum store_rc
lite_explain(const char *path, enum store_rc rc, char *err, size_t errlen)
{
	char why[PATH_MAX + 256];
	size_t n;

	switch (db_access_check(path, why, sizeof(why))) {
	case DB_ACCESS_UNWRITABLE:
		rc = STORE_READONLY;
		break;
	case DB_ACCESS_UNREADABLE:
		break;
	default:
		return rc;
	}
	if ((n = strlen(err)) < errlen)
		snprintf(err + n, errlen - n, " (%s)", why);
	return rc;
}

/*
 * An open or a write refused (SQLite's CANTOPEN, READONLY, PERM): logged
 * with the path, the user and the cause, so that the operator knows what
 * to change.  SQLite opens a file it may not write read-only, so a
 * READONLY is a write refused even where the file's modes do not say why
 * (a file replaced under it).
 */
static enum store_rc
lite_refused(struct lite *s, int rc, const char *what)
{
	enum store_rc out;

	snprintf(s->base.error, sizeof(s->base.error), "%s: %s", what,
	    sqlite3_errmsg(s->db));
	out = lite_explain(s->path,
	    (rc & 0xff) == SQLITE_READONLY ? STORE_READONLY : STORE_UNAVAILABLE,
	    s->base.error, sizeof(s->base.error));
	log_error("%s: %s", s->path, s->base.error);
	return out;
}

/* Maps an SQLite result code to the caller's view of it. */
static enum store_rc
lite_rc_from(struct lite *s, int rc, const char *what)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_DONE:
	case SQLITE_ROW:
		return STORE_OK;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		log_warn("%s: %s: %s", s->path, what, sqlite3_errstr(rc));
		return STORE_BUSY;
	case SQLITE_CONSTRAINT:
		/* Only a duplicate key means "already there"; a CHECK is a bug. */
		if (sqlite3_extended_errcode(s->db) ==
			SQLITE_CONSTRAINT_UNIQUE ||
		    sqlite3_extended_errcode(s->db) ==
			SQLITE_CONSTRAINT_PRIMARYKEY)
			return STORE_EXISTS;
		return lite_fail(&s->base, what, sqlite3_errmsg(s->db));
	case SQLITE_CANTOPEN:
	case SQLITE_READONLY:
	case SQLITE_PERM:
		return lite_refused(s, rc, what);
	case SQLITE_NOTADB:
	case SQLITE_IOERR:
	case SQLITE_CORRUPT:
	case SQLITE_FULL:
		lite_fail(&s->base, what, sqlite3_errmsg(s->db));
		return STORE_UNAVAILABLE;
	default:
		return lite_fail(&s->base, what, sqlite3_errmsg(s->db));
	}
}

/* The prepared statement for id, reset and unbound, or NULL (logged). */
static sqlite3_stmt *
stmt_get(struct lite *s, enum stmt id)
{
	const char *sql;
	int rc;

	if (s->stmt[id] != NULL)
		return s->stmt[id];
	if ((sql = store_sql_text(store_sqlite_sql, id)) == NULL) {
		log_error("%s: statement %d has no SQLite form", s->path,
		    (int)id);
		return NULL;
	}
	rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
	    &s->stmt[id], NULL);
	if (rc != SQLITE_OK) {
		log_error("%s: prepare \"%.40s...\": %s", s->path, sql,
		    sqlite3_errmsg(s->db));
		s->stmt[id] = NULL;
	}
	return s->stmt[id];
}

/* Ends a statement's use: no read stays open past an operation. */
static void
stmt_done(sqlite3_stmt *st)
{
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

/* The driver's query: prepared and bound, to be stepped by lite_next. */
static enum store_rc
lite_query(struct store *base, struct store_rows *r, enum stmt id,
    const struct store_val *v, int n, const char *what)
{
	struct lite *s = (struct lite *)base;
	sqlite3_stmt *st;
	int i;

	r->s = base;
	r->what = what;
	r->row = 0;
	r->rc = STORE_OK;
	if ((r->h = st = stmt_get(s, id)) == NULL)
		return r->rc = STORE_ERROR;
	/*
	 * A parameter the statement does not use is left out (SQLITE_RANGE);
	 * NULL text binds SQL NULL.
	 */
	for (i = 0; i < n; i++)
		if (v[i].is_int)
			sqlite3_bind_int64(st, i + 1, v[i].i);
		else
			sqlite3_bind_text(st, i + 1, v[i].s, -1, SQLITE_STATIC);
	return STORE_OK;
}

static int
lite_next(struct store_rows *r)
{
	int rc;

	/* Stepped again after its end, a statement would start over. */
	if (r->rc != STORE_OK || r->row == -1)
		return 0;
	if ((rc = sqlite3_step(r->h)) == SQLITE_ROW)
		return 1;
	r->row = -1;
	r->rc = lite_rc_from((struct lite *)r->s, rc, r->what);
	return 0;
}

static int64_t
lite_col_int(const struct store_rows *r, int i)
{
	return sqlite3_column_int64(r->h, i);
}

static const char *
lite_col_text(const struct store_rows *r, int i)
{
	return (const char *)sqlite3_column_text(r->h, i);
}

static int64_t
lite_changes(const struct store_rows *r)
{
	return sqlite3_changes(((struct lite *)r->s)->db);
}

/*
 * Lets the statement go.  A column that SQLite could not hand over for
 * want of memory read as NULL; the statement keeps that error, and its
 * reset returns it where no step since did: the read fails, so that a
 * row short of a value never passes for a whole one.
 */
static void
lite_end(struct store_rows *r)
{
	int rc;

	if (r->h == NULL)
		return;
	rc = sqlite3_reset(r->h);
	sqlite3_clear_bindings(r->h);
	if (rc != SQLITE_OK && r->rc == STORE_OK)
		r->rc = lite_rc_from((struct lite *)r->s, rc, r->what);
	r->h = NULL;
}

static enum store_rc
lite_exec(struct lite *s, const char *sql, const char *what)
{
	int rc;

	rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	return lite_rc_from(s, rc, what);
}

/* The n integers of sql's first row (0 each where it has none). */
static enum store_rc
lite_ints(struct lite *s, const char *sql, const char *what, int64_t *v, int n)
{
	sqlite3_stmt *st = NULL;
	int rc, i;

	if ((rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL)) == SQLITE_OK)
		rc = sqlite3_step(st);
	for (i = 0; i < n; i++)
		v[i] = rc == SQLITE_ROW ? sqlite3_column_int64(st, i) : 0;
	sqlite3_finalize(st);
	return lite_rc_from(s, rc, what);
}

/*
 * Reads the schema version, the application id and the count of schema
 * objects into v[3], and refuses a database made by a newer version or
 * one that is not ours: it must be left exactly as it was.  Nothing is
 * written.
 */
static enum store_rc
lite_check_ours(struct lite *s, int64_t *v, char *err, size_t errlen)
{
	enum store_rc rc;
	int target = lite_schema_version();

	/* Three statements: cheaper to prepare than one of three pragmas. */
	if ((rc = lite_ints(s, "PRAGMA user_version", "read the schema version",
		 &v[0], 1)) != STORE_OK ||
	    (rc = lite_ints(s, "PRAGMA application_id",
		 "read the schema version", &v[1], 1)) != STORE_OK ||
	    (rc = lite_ints(s, "SELECT count(*) FROM sqlite_schema",
		 "read the schema version", &v[2], 1)) != STORE_OK) {
		snprintf(err, errlen, "%s: %s", s->path, sqlite3_errmsg(s->db));
		return rc;
	}
	if (v[1] != STORE_APPLICATION_ID && (v[1] != 0 || v[2] != 0)) {
		snprintf(err, errlen,
		    "%s: not a checkpoint-api database "
		    "(application_id %lld, %lld schema objects)",
		    s->path, (long long)v[1], (long long)v[2]);
		return STORE_UNAVAILABLE;
	}
	if (v[0] > target) {
		snprintf(err, errlen,
		    "%s: schema version %lld is newer than "
		    "this program's %d; upgrade checkpoint-api",
		    s->path, (long long)v[0], target);
		return STORE_NEWER;
	}
	return STORE_OK;
}

/*
 * Brings the schema, whose v[3] lite_check_ours read, up to date in one
 * transaction, recorded in PRAGMA user_version.  A database of a newer
 * version, or a non-empty database that is not ours, is refused and left
 * untouched.
 */
static enum store_rc
lite_migrate(struct lite *s, int64_t *v, char *err, size_t errlen)
{
	enum store_rc rc;
	int target = lite_schema_version(), i;
	char sql[128];

	if (v[0] == target && v[1] == STORE_APPLICATION_ID)
		return STORE_OK;
	if ((rc = lite_exec(s, "BEGIN IMMEDIATE", "migrate")) != STORE_OK) {
		snprintf(err, errlen, "%s: cannot lock for migration: %s",
		    s->path, sqlite3_errmsg(s->db));
		return rc;
	}
	/* Read again under the lock: another process may have migrated. */
	if ((rc = lite_check_ours(s, v, err, errlen)) != STORE_OK)
		goto fail;
	for (i = (int)v[0]; i < target; i++) {
		if (sqlite3_exec(s->db, schema_migrations[i], NULL, NULL,
			NULL) != SQLITE_OK) {
			snprintf(err, errlen, "%s: migration %d: %s", s->path,
			    i + 1, sqlite3_errmsg(s->db));
			rc = STORE_ERROR;
			goto fail;
		}
		log_info("%s: applied schema migration %d", s->path, i + 1);
	}
	snprintf(sql, sizeof(sql),
	    "PRAGMA application_id = %d; "
	    "PRAGMA user_version = %d",
	    STORE_APPLICATION_ID, target);
	if ((rc = lite_exec(s, sql, "migrate")) != STORE_OK ||
	    (rc = lite_exec(s, "COMMIT", "migrate")) != STORE_OK) {
		snprintf(err, errlen, "%s: migration: %s", s->path,
		    sqlite3_errmsg(s->db));
		goto fail;
	}
	return STORE_OK;
fail:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/*
 * Makes the database file, empty (which SQLite takes for a new database),
 * where there is none, with the mode any program's new file gets: 0666
 * less the umask.  SQLite alone would make it 0644 less the umask, never
 * group-writable, and the other service sharing the setgid directory
 * could then not write it; SQLite gives the -wal and -shm the database's
 * mode.  open(2) applies the umask itself, so nothing here reads it: only
 * umask(2) could, by setting it, and another of the app's threads making
 * a file in between would get the wrong mask.  O_EXCL leaves a file
 * already there, or one another process is making, as it is.  A failure
 * is SQLite's to report: its open meets the same cause and says why.
 * An in-memory database has no file, and a "file:" URI (which SQLite
 * builds may read as one) names its file otherwise: SQLite makes those.
 */
static void
lite_create(const char *path)
{
	int fd;

	if (*path == '\0' || strcmp(path, ":memory:") == 0 ||
	    strncmp(path, "file:", 5) == 0)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd != -1)
		close(fd);
}

/*
 * Whether path names a database file that is not there, or is empty (as
 * a mistyped or half-made deployment leaves it): one that only
 * checkpointctl init may make (store_opts.create).  SQLite's own names
 * (":memory:", "file:" URIs) are its to judge.
 */
static int
lite_absent(const char *path)
{
	struct stat sb;
	char wal[PATH_MAX];

	if (strcmp(path, ":memory:") == 0 || strncmp(path, "file:", 5) == 0)
		return 0;
	if (stat(path, &sb) == -1)
		return errno == ENOENT;
	/* Empty with a WAL: the WAL may hold it all. */
	snprintf(wal, sizeof(wal), "%s-wal", path);
	return S_ISREG(sb.st_mode) && sb.st_size == 0 && stat(wal, &sb) == -1 &&
	    errno == ENOENT;
}

/* Makes the file where o->create says so; else one not there is said. */
static enum store_rc
lite_make_or_find(const struct store_opts *o, char *err, size_t errlen)
{
	if (o->create)
		lite_create(o->path);
	else if (lite_absent(o->path)) {
		snprintf(err, errlen,
		    "%s: no database there; checkpointctl init makes it",
		    o->path);
		return STORE_MISSING;
	}
	return STORE_OK;
}

/*
 * Opens and migrates the database, creating it only where o->create says
 * so.  On failure *out is NULL and err says why, with the path: for logs,
 * never for clients.
 */
enum store_rc
store_sqlite_open(const struct store_opts *o, struct store **out, char *err,
    size_t errlen)
{
	struct lite *s;
	enum store_rc rc;
	int64_t ours[3], wal;
	char sql[128];

	*out = NULL;
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return STORE_ERROR;
	}
	s->base.ops = &lite_ops;
	s->watch = -1;
	snprintf(s->path, sizeof(s->path), "%s", o->path);
	s->busy_ms = o->busy_ms > 0 ? o->busy_ms : 2000;
	if ((rc = lite_make_or_find(o, err, errlen)) != STORE_OK)
		goto fail;
	if (sqlite3_open_v2(o->path, &s->db,
		SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
		    (o->create ? SQLITE_OPEN_CREATE : 0),
		NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", o->path,
		    s->db ? sqlite3_errmsg(s->db) : "cannot open");
		rc = STORE_UNAVAILABLE;
		goto fail;
	}
	sqlite3_extended_result_codes(s->db, 0);
	sqlite3_busy_handler(s->db, lite_busy_handler, s);
	/* Never in a view, a trigger or a CHECK: the sqlite3 shell, which
	 * lacks it, must read every one of them. */
	if (sqlite3_create_function_v2(s->db, "serialized_throwable", 2,
		SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, NULL,
		lite_fn_throwable, NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", o->path, sqlite3_errmsg(s->db));
		rc = STORE_ERROR;
		goto fail;
	}
	if ((rc = lite_check_ours(s, ours, err, errlen)) != STORE_OK)
		goto fail;

	/* journal_mode is persistent: set it only when it is not WAL yet. */
	if ((rc = lite_ints(s,
		 "SELECT journal_mode = 'wal' FROM pragma_journal_mode", "open",
		 &wal, 1)) != STORE_OK) {
		snprintf(err, errlen, "%s: %s", o->path, sqlite3_errmsg(s->db));
		goto fail;
	}
	if (!wal &&
	    (rc = lite_exec(s, "PRAGMA journal_mode = WAL", "journal_mode")) !=
		STORE_OK) {
		snprintf(err, errlen, "%s: cannot enable WAL: %s", o->path,
		    sqlite3_errmsg(s->db));
		goto fail;
	}
	snprintf(sql, sizeof(sql), "PRAGMA synchronous = %s",
	    o->sync_normal ? "NORMAL" : "FULL");
	if ((rc = lite_exec(s, sql, "synchronous")) != STORE_OK) {
		snprintf(err, errlen, "%s: %s", o->path, sqlite3_errmsg(s->db));
		goto fail;
	}
	if (o->cache_kib > 0) {
		snprintf(sql, sizeof(sql), "PRAGMA cache_size = -%lld",
		    (long long)o->cache_kib);
		lite_exec(s, sql, "cache_size");
	}
	if ((rc = lite_migrate(s, ours, err, errlen)) != STORE_OK)
		goto fail;
	/*
	 * A transaction must end even when memory has run out, and a
	 * statement prepared on first use would need some then.
	 */
	if (stmt_get(s, STMT_ROLLBACK) == NULL) {
		snprintf(err, errlen, "%s: %s", o->path, sqlite3_errmsg(s->db));
		rc = STORE_ERROR;
		goto fail;
	}
	*out = &s->base;
	return STORE_OK;
fail:
	/* An open or a write refused, not a bad file: say why. */
	if ((rc == STORE_UNAVAILABLE || rc == STORE_READONLY) &&
	    (s->db == NULL || sqlite3_errcode(s->db) == SQLITE_CANTOPEN ||
		sqlite3_errcode(s->db) == SQLITE_READONLY ||
		sqlite3_errcode(s->db) == SQLITE_PERM))
		rc = lite_explain(o->path, rc, err, errlen);
	store_close(&s->base);
	return rc;
}

static void
lite_close(struct store *base)
{
	struct lite *s = (struct lite *)base;
	int i;

	if (s == NULL)
		return;
	for (i = 0; i < STMT__MAX; i++)
		sqlite3_finalize(s->stmt[i]);
	sqlite3_close(s->db);
	if (s->watch != -1)
		close(s->watch);
	free(s);
}

/*
 * Runs statement id, which takes no parameters, once: the first column of
 * a row it returned in *v (when v is not NULL).
 */
static enum store_rc
lite_simple(struct lite *s, enum stmt id, const char *what, int64_t *v)
{
	sqlite3_stmt *st;
	int rc;

	if ((st = stmt_get(s, id)) == NULL)
		return STORE_ERROR;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && v != NULL)
		*v = sqlite3_column_int64(st, 0);
	stmt_done(st);
	return lite_rc_from(s, rc, what);
}

static enum store_rc
lite_commit(struct store *base)
{
	struct lite *s = (struct lite *)base;
	enum store_rc rc;

	if ((rc = lite_simple(s, STMT_COMMIT, "commit", NULL)) != STORE_OK)
		store_rollback(&s->base);
	return rc;
}

static void
lite_rollback(struct store *base)
{
	struct lite *s = (struct lite *)base;
	if (!sqlite3_get_autocommit(s->db))
		lite_simple(s, STMT_ROLLBACK, "rollback", NULL);
}

/* Truncates the WAL; *busy is set when readers kept it from finishing. */
static enum store_rc
lite_wal_checkpoint(struct store *base, int *busy)
{
	int64_t v = 0;
	enum store_rc rc;

	rc = lite_simple((struct lite *)base, STMT_WAL_CHECKPOINT,
	    "wal checkpoint", &v);
	*busy = (int)v;
	return rc;
}

/*
 * Copies what it can of the WAL into the database without waiting for
 * readers or writers (SQLITE_CHECKPOINT_PASSIVE); the next writer then
 * starts the WAL over from its beginning, overwriting instead of growing
 * it.  *frames and *copied are the WAL's frames and those in the database.
 */
static enum store_rc
lite_wal_checkpoint_passive(struct store *base, int *frames, int *copied)
{
	struct lite *s = (struct lite *)base;
	int rc;

	rc = sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_PASSIVE,
	    frames, copied);
	/* Another checkpoint is under way: nothing to say. */
	if (rc == SQLITE_BUSY)
		return STORE_BUSY;
	return lite_rc_from(s, rc, "passive wal checkpoint");
}

/*
 * Calls fn(arg, frames) after each commit on this connection with the
 * WAL's size in frames, instead of checkpointing in the committing thread
 * (SQLite's automatic checkpoint, which it replaces): the group committer
 * leaves that to a thread of its own, off the path of every POST.
 */
static int
lite_wal_hook(void *p, sqlite3 *db, const char *name, int frames)
{
	struct lite *s = p;

	(void)db;
	(void)name;
	s->on_commit(s->on_commit_arg, frames);
	return SQLITE_OK;
}

static void
lite_on_commit(struct store *base, void (*fn)(void *, int), void *arg)
{
	struct lite *s = (struct lite *)base;
	s->on_commit = fn;
	s->on_commit_arg = arg;
	sqlite3_wal_hook(s->db, lite_wal_hook, s);
}

/*
 * Whether the file at the store's path is no longer the one it has open
 * (see lite_replaced), asked afresh and said nowhere: a watching runner
 * then opens the new one.
 */
static int
lite_moved(struct store *base)
{
	struct lite *s = (struct lite *)base;
	int moved = 0;

	return sqlite3_file_control(s->db, "main", SQLITE_FCNTL_HAS_MOVED,
		   &moved) == SQLITE_OK &&
	    moved;
}

/*
 * Whether the file at the store's path is no longer the one it has open:
 * renamed over or removed, as by restoring a backup with mv.  Its writes
 * would then go to a file no other program reads, and be lost; opening
 * the new file beside connections to the old one (this process's, the
 * runner's) is no better, since both would share the -wal file by name.
 * The caller answers 503 instead, until a restart; the log says why,
 * once.  One stat(2), unless the last look was under max_age_ms ago
 * (0: look now).  A commit looks every time, so that no 202 goes to the
 * old file; a read may look less often (a stat is a noticeable part of
 * a GET), since until a commit has seen the new file, the old one holds
 * every trigger answered 202.
 */
static int
lite_replaced(struct store *base, int64_t max_age_ms)
{
	struct lite *s = (struct lite *)base;
	int64_t now;

	if (s->replaced)
		return 1;
	if (max_age_ms > 0) {
		now = clock_ms(CLOCK_MONOTONIC_COARSE);
		if (now - s->replaced_checked_ms < max_age_ms)
			return 0;
		s->replaced_checked_ms = now;
	}
	if (!lite_moved(base))
		return 0;
	log_error("%s: the database file was replaced or removed while open; "
		  "restart to use the new one (restore a backup with sqlite3 "
		  ".restore, which is safe while running)",
	    s->path);
	s->replaced = 1;
	return 1;
}

/* Changes whenever another connection commits (PRAGMA data_version). */
static enum store_rc
lite_data_version(struct store *base, int64_t *version)
{
	struct lite *s = (struct lite *)base;
	char buf[4096];

	/* What the watch reported is in data_version already. */
	while (s->watch != -1 && read(s->watch, buf, sizeof(buf)) > 0)
		;
	return lite_simple(s, STMT_DATA_VERSION, "data_version", version);
}

/*
 * An inotify watch on the database's directory, made on the first call
 * and closed with the store: every commit of another process writes the
 * -wal file there.  -1 if inotify is not to be had; the watcher then
 * polls.  lite_data_version reads what the watch reported.
 */
static int
lite_watch_fd(struct store *base)
{
	struct lite *s = (struct lite *)base;
	char dir[sizeof(s->path)];
	int fd;

	if (s->watch != -1)
		return s->watch;
	snprintf(dir, sizeof(dir), "%s", s->path);
	if ((fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) == -1)
		return -1;
	if (inotify_add_watch(fd, dirname(dir),
		IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE) == -1) {
		close(fd);
		return -1;
	}
	return s->watch = fd;
}

/* Truncates the WAL once it has grown; readers may keep it from that. */
static void
lite_housekeeping(struct store *base)
{
	struct lite *s = (struct lite *)base;
	char wal[sizeof(s->path) + 4];
	struct stat sb;
	int busy;

	if (snprintf(wal, sizeof(wal), "%s-wal", s->path) >= (int)sizeof(wal) ||
	    stat(wal, &sb) == -1 || sb.st_size < WAL_TRUNCATE_BYTES)
		return;
	if (lite_wal_checkpoint(base, &busy) == STORE_OK && !busy)
		log_info("%s: WAL truncated from %lld bytes", s->path,
		    (long long)sb.st_size);
}

/* The database, and the WAL and its index SQLite keeps beside it. */
static const char *const lite_files[] = { "", "-wal", "-shm", NULL };

static const struct store_ops lite_ops = {
	.name = "sqlite",
	.files = lite_files,
	.query = lite_query,
	.next = lite_next,
	.col_int = lite_col_int,
	.col_text = lite_col_text,
	.changes = lite_changes,
	.end = lite_end,
	.fail = lite_fail,
	.sql = store_sqlite_sql,
	.sql_throwable = 1,
	.schema_version = lite_schema_version,
	.close = lite_close,
	.commit = lite_commit,
	.rollback = lite_rollback,
	.wal_checkpoint = lite_wal_checkpoint,
	.data_version = lite_data_version,
	.replaced = lite_replaced,
	.wal_checkpoint_passive = lite_wal_checkpoint_passive,
	.on_commit = lite_on_commit,
	.watch_fd = lite_watch_fd,
	.moved = lite_moved,
	.housekeeping = lite_housekeeping,
};

const struct store_ops *
store_sqlite_ops(void)
{
	return &lite_ops;
}
