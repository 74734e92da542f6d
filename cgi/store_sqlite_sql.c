/*
 * The statements SQLite writes its own way, by name (enum stmt): the
 * rest are the shared ones of store_sql.c.  Times are the caller's
 * now_ms, bound as values.
 */
#include <config.h>

#include "store_impl.h"

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
	 * job's ?8 waiting triggers is made already failed (?9, ?10): their
	 * count is the one kept in queue_waiting, one lookup.
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
	    " FROM (SELECT coalesce((SELECT waiting FROM queue_waiting"
	    "  WHERE kind = 'TRIGGER' AND job_id = ?1), 0) >= ?8 AS f)"
	    " WHERE true"
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
	    "SELECT id, job_id, trigger_id, claimed_by, lease_ms - ?1,"
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
	    " FROM (SELECT ?11 > 0 AND coalesce((SELECT waiting"
	    "  FROM queue_waiting WHERE kind = 'SAVEPOINT' AND job_id = ?1),"
	    "  0) >= ?11 AS f) WHERE true"
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
	    " j.flink_url, coalesce(j.bookkeeping_only, 0)"
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
	/* A job's savepoints and stops bookkeeping only (schema/0017). */
	[STMT_JOB_BOOKKEEPING_SET] = "UPDATE jobs SET bookkeeping_only = ?2,"
				     " updated_ms = ?3 WHERE job_id = ?1",
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
