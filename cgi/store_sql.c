/*
 * The statements the two dialects write alike, each once: the store's
 * one statement table, with SQLite's placeholders (?N), which the
 * PostgreSQL driver reads as its own ($N).  A file of one concern may
 * keep its own part of it beside the functions that run its statements
 * (store_sql_tables: store_jobs.c's).  A driver's table holds only the
 * statements its dialect writes its own way; store_sql_text gives a
 * statement's text, the driver's if it has one.  unit-sql fails on a
 * statement written out twice alike.
 */
#include <config.h>

#include "store_impl.h"

const char *const store_sql_shared[STMT__MAX] = {
	[STMT_COMMIT] = "COMMIT",
	[STMT_ROLLBACK] = "ROLLBACK",
	[STMT_CKPT_GET] =
	    "SELECT checkpoint_id, status, trigger_ms, completed_ms,"
	    " duration_ms, location, failure_class, failure_trace, 0, NULL"
	    " FROM checkpoints WHERE job_id = ?1 AND checkpoint_id = ?2"
	    " UNION ALL " SAVEPOINT_ROWS
	    " WHERE job_id = ?1 AND checkpoint_id = ?2 LIMIT 1",
	/*
	 * The stored triggers and, for those whose results were purged, the
	 * checkpoints they took from the history (schema/0007), as they
	 * were: a listing that does not change when results expire.
	 */
	[STMT_TRIGGER_LIST] = "SELECT " TRIGGER_COLS " FROM"
			      " (SELECT * FROM (SELECT id AS ord, " TRIGGER_COLS
			      " FROM triggers"
			      "  ORDER BY id DESC LIMIT ?2) AS t"
			      " UNION ALL SELECT * FROM (" HISTORY_AS_TRIGGERS
			      "  WHERE " HISTORY_PURGED
			      " ORDER BY trigger_row DESC LIMIT ?2)"
			      "  AS h) AS u"
			      " ORDER BY ord DESC LIMIT ?2",
	[STMT_TRIGGER_LIST_JOB] = "SELECT " TRIGGER_COLS " FROM"
				  " (SELECT id AS ord, " TRIGGER_COLS
				  " FROM triggers"
				  "  WHERE job_id = ?1"
				  " UNION ALL " HISTORY_AS_TRIGGERS
				  " WHERE job_id = ?1"
				  "  AND " HISTORY_PURGED ") AS u"
				  " ORDER BY ord DESC LIMIT ?2",
	/*
	 * A store copied whole (store_export, store_import): every column of
	 * a table, in the order its import binds them, as text, NULL as
	 * NULL.  The triggers are those store_purge would keep.
	 */
	[STMT_EXPORT_JOBS] =
	    "SELECT job_id, name, state, checkpoint_type, command, timeout_s,"
	    " created_ms, updated_ms, savepoint_dir, savepoint_command,"
	    " stop_command, dispose_command, flink_url, bookkeeping_only"
	    " FROM jobs"
	    " ORDER BY job_id",
	[STMT_EXPORT_COUNTERS] =
	    "SELECT job_id, last_id FROM checkpoint_counters ORDER BY job_id",
	[STMT_EXPORT_STATS] =
	    "SELECT job_id, completed, failed, expired, duration_min,"
	    " duration_max, duration_sum, last_completed, completed_trigger_ms,"
	    " completed_ms, completed_location, last_failed, failed_trigger_ms,"
	    " failed_ms, failed_class, failed_trace FROM checkpoint_stats"
	    " ORDER BY job_id",
	[STMT_IMPORT_EMPTY] =
	    "SELECT EXISTS (SELECT 1 FROM jobs) OR EXISTS (SELECT 1 FROM triggers)"
	    " OR EXISTS (SELECT 1 FROM checkpoint_counters)"
	    " OR EXISTS (SELECT 1 FROM checkpoint_stats)"
	    " OR EXISTS (SELECT 1 FROM savepoints)"
	    " OR EXISTS (SELECT 1 FROM savepoint_disposals)"
	    " OR EXISTS (SELECT 1 FROM checkpoint_history)",
	[STMT_IMPORT_JOB] =
	    "INSERT INTO jobs (job_id, name, state, checkpoint_type, command,"
	    " timeout_s, created_ms, updated_ms, savepoint_dir,"
	    " savepoint_command, stop_command, dispose_command, flink_url,"
	    " bookkeeping_only)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
	    " ?11, ?12, ?13, ?14)",
	[STMT_IMPORT_COUNTER] =
	    "INSERT INTO checkpoint_counters (job_id, last_id) VALUES (?1, ?2)",
	[STMT_IMPORT_STATS] =
	    "INSERT INTO checkpoint_stats (job_id, completed, failed, expired,"
	    " duration_min, duration_max, duration_sum, last_completed,"
	    " completed_trigger_ms, completed_ms, completed_location,"
	    " last_failed, failed_trigger_ms, failed_ms, failed_class,"
	    " failed_trace) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
	    " ?11, ?12, ?13, ?14, ?15, ?16)",
	[STMT_IMPORT_SERVICE] =
	    "UPDATE service_metrics SET job_not_found = ?1, pass_ms = ?2,"
	    " pass_advanced = ?3, pass_duration_ms = ?4, schedule_missed = ?5,"
	    " queue_refused = ?6"
	    " WHERE id = 1",
	/* Inserted whole, so the statistics' SQL triggers (on UPDATE OF
	 * status) do not fire: the statistics are imported as they were. */
	[STMT_IMPORT_TRIGGER] =
	    "INSERT INTO triggers (id, job_id, trigger_id, status,"
	    " requested_type, checkpoint_type, checkpoint_id, location,"
	    " failure_class, failure_trace, failure_throwable, claimed_by,"
	    " remote_user, remote_addr, created_ms, completed_ms, claimed_ms,"
	    " lease_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
	    " ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
	/*
	 * The jobs whose kept count of waiting rows (queue_waiting) is not
	 * the real one, and the counts kept at 0: none, or the triggers that
	 * keep them were bypassed.
	 */
	[STMT_QUEUE_DRIFT] =
	    "SELECT (SELECT count(*) FROM (SELECT kind, job_id FROM"
	    " (SELECT 'TRIGGER' AS kind, job_id, 1 AS n FROM triggers"
	    "  WHERE status = 'IN_PROGRESS' AND claimed_by IS NULL"
	    "  UNION ALL SELECT 'SAVEPOINT', job_id, 1 FROM savepoints"
	    "  WHERE status = 'IN_PROGRESS' AND claimed_by IS NULL"
	    "  UNION ALL SELECT kind, job_id, -waiting FROM queue_waiting) AS u"
	    " GROUP BY kind, job_id HAVING sum(n) <> 0) AS d)"
	    " + (SELECT count(*) FROM queue_waiting WHERE waiting <= 0)",
	[STMT_SP_DIR] = "SELECT savepoint_dir FROM jobs"
			" WHERE job_id = ?1 AND savepoint_dir IS NOT NULL",
	[STMT_SP_STATUS] = "SELECT response FROM savepoint_status"
			   " WHERE job_id = ?1 AND trigger_id = ?2",
	[STMT_DISPOSAL_STATUS] =
	    "SELECT response FROM savepoint_disposal_status"
	    " WHERE trigger_id = ?1",
	[STMT_EXPORT_HISTORY] = "SELECT " HISTORY_COPY_COLS
				" FROM checkpoint_history"
				" ORDER BY job_id, checkpoint_id",
	[STMT_IMPORT_HISTORY] =
	    "INSERT INTO checkpoint_history (" HISTORY_COPY_COLS ")"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
	    " ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
	[STMT_IMPORT_SAVEPOINTS] =
	    "INSERT INTO savepoints (" SAVEPOINT_COPY_COLS ")"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
	    " ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22,"
	    " ?23)",
	[STMT_EXPORT_DISPOSALS] = "SELECT " DISPOSAL_COPY_COLS
				  " FROM savepoint_disposals ORDER BY id",
	[STMT_IMPORT_DISPOSALS] =
	    "INSERT INTO savepoint_disposals (" DISPOSAL_COPY_COLS ")"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
	    " ?13, ?14, ?15, ?16)",
	[STMT_EXPORT_SCHEDULES] = "SELECT " SCHEDULE_COPY_COLS
				  " FROM schedules ORDER BY job_id, kind",
	[STMT_IMPORT_SCHEDULES] = "INSERT INTO schedules (" SCHEDULE_COPY_COLS
				  ") VALUES"
				  " (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[STMT_EXPORT_SLOTS] = "SELECT " SLOT_COPY_COLS " FROM schedule_slots"
			      " ORDER BY job_id, kind, slot_ms",
	[STMT_IMPORT_SLOTS] = "INSERT INTO schedule_slots (" SLOT_COPY_COLS
			      ") VALUES"
			      " (?1, ?2, ?3, ?4, ?5, ?6)",
	[STMT_EXPORT_RETENTION] = "SELECT " RETENTION_COPY_COLS
				  " FROM retention ORDER BY job_id, kind",
	[STMT_IMPORT_RETENTION] = "INSERT INTO retention (" RETENTION_COPY_COLS
				  ") VALUES"
				  " (?1, ?2, ?3, ?4, ?5, ?6)",
	[STMT_SCHED_CLEAR] =
	    "DELETE FROM schedules WHERE job_id = ?1 AND kind = ?2",
	[STMT_SCHED_RECORD] =
	    "INSERT INTO triggers (job_id, trigger_id, requested_type,"
	    " created_ms, remote_user) VALUES (?1, ?2, ?3, ?4, ?5)",
	[STMT_SCHED_SLOTS_PRUNE] =
	    "DELETE FROM schedule_slots WHERE job_id = ?1 AND kind = ?2"
	    " AND slot_ms < (SELECT slot_ms FROM schedule_slots"
	    " WHERE job_id = ?1 AND kind = ?2"
	    " ORDER BY slot_ms DESC LIMIT 1 OFFSET 99)",
	[STMT_RETAIN_CLEAR] =
	    "DELETE FROM retention WHERE job_id = ?1 AND kind = ?2",
	[STMT_RETAIN_GET] = "SELECT keep_last, keep_ms FROM retention"
			    " WHERE job_id = ?1 AND kind = ?2",
	[STMT_HISTORY_PRUNED] = "DELETE FROM history_grown",
	[STMT_HISTORY_KEEP_GET] = "SELECT keep FROM history_keep",
	[STMT_SCHED_MISSED_TOTAL] =
	    "SELECT schedule_missed FROM service_metrics WHERE id = 1",
	/* /metrics: disposals in progress, completed, failed. */
	[STMT_DISPOSAL_COUNTS] =
	    "SELECT coalesce(sum(CASE WHEN status = 'IN_PROGRESS' THEN 1"
	    " ELSE 0 END), 0), coalesce(sum(CASE WHEN status = 'COMPLETED'"
	    " AND failure_class IS NULL THEN 1 ELSE 0 END), 0),"
	    " coalesce(sum(CASE WHEN failure_class IS NOT NULL THEN 1"
	    " ELSE 0 END), 0) FROM savepoint_disposals",
	[STMT_CLAIM_RELEASE] =
	    "UPDATE triggers SET claimed_by = NULL, claimed_ms = NULL,"
	    " lease_ms = NULL, checkpoint_type = NULL"
	    " WHERE id = ?1 AND status = 'IN_PROGRESS' AND claimed_by = ?2"
	    " AND checkpoint_id IS NULL",
	/*
	 * A page of the jobs by id after ?1 (keyset over the primary key:
	 * the same few rows read on any page of any fleet), those whose
	 * name or id matches ?2, a LIKE pattern ('%': all of them).
	 */
	[STMT_JOB_PAGE] =
	    "SELECT job_id, name, state, created_ms, updated_ms FROM jobs"
	    " WHERE job_id > ?1 AND (?2 = '%' OR lower(name) LIKE ?2 ESCAPE '!'"
	    " OR job_id LIKE ?2 ESCAPE '!') ORDER BY job_id LIMIT ?3",
	/*
	 * Each job's health, in one row a job: its statistics' row, its
	 * checkpoint schedule, and, joined once each, the queue's triggers
	 * in progress by job (waiting, running) and the slots its schedules
	 * missed: a subquery a job would run three times a job.
	 */
	[STMT_FLEET_JOBS] =
	    "SELECT j.job_id, j.name, j.state, coalesce(s.last_completed, 0),"
	    " coalesce(s.completed_ms, 0), coalesce(s.last_failed, 0),"
	    " coalesce(s.failed_ms, 0), coalesce(w.queued, 0),"
	    " coalesce(w.claimed, 0), coalesce(c.every_ms, 0), c.cron,"
	    " coalesce(c.since_ms, 0), coalesce(c.last_slot_ms, 0),"
	    " coalesce(m.missed, 0)"
	    " FROM jobs j LEFT JOIN checkpoint_stats s ON s.job_id = j.job_id"
	    " LEFT JOIN schedules c ON c.job_id = j.job_id"
	    "  AND c.kind = 'CHECKPOINT'"
	    " LEFT JOIN (SELECT job_id,"
	    "  sum(CASE WHEN claimed_by IS NULL THEN 1 ELSE 0 END) AS queued,"
	    "  sum(CASE WHEN claimed_by IS NULL THEN 0 ELSE 1 END) AS claimed"
	    "  FROM triggers WHERE status = 'IN_PROGRESS' GROUP BY job_id) w"
	    " ON w.job_id = j.job_id"
	    " LEFT JOIN (SELECT job_id, CAST(sum(missed) AS BIGINT) AS missed"
	    "  FROM schedules GROUP BY job_id) m ON m.job_id = j.job_id"
	    " ORDER BY j.job_id",
	[STMT_FLEET_SERVICE] = "SELECT pass_ms, schedule_missed"
			       " FROM service_metrics WHERE id = 1",
};

/*
 * Every table of statements both dialects write alike: this file's, and
 * those a file of one concern keeps beside the functions that run them.
 */
const char *const *const store_sql_tables[] = {
	store_sql_shared,
	store_jobs_sql,
	NULL,
};

const char *
store_sql_shared_text(enum stmt id)
{
	int i;

	for (i = 0; store_sql_tables[i] != NULL; i++)
		if (store_sql_tables[i][id] != NULL)
			return store_sql_tables[i][id];
	return NULL;
}

const char *
store_sql_text(const char *const *own, enum stmt id)
{
	return own[id] != NULL ? own[id] : store_sql_shared_text(id);
}
