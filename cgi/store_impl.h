/*
 * Behind the seam: what a driver (store_sqlite*.c, store_pg*.c) gives the
 * store's logic (store.c and the store_*.c of each concern); store.c
 * picks a driver by the value of CHECKPOINT_DB and hands its callers a
 * struct store whose first member is the driver's table below.
 *
 * The driver runs statements: each is named by enum stmt; its text is
 * shared (store_sql.c, or the table of its concern's file) where both
 * dialects write it alike, else the driver's own (NULL: the dialect has
 * no such statement).  The store's files write every operation once
 * against the driver's entries, through store_q_* (store.c).  Of the
 * entries only two are one driver's (a file's WAL and identity, NULL in
 * a server's driver).  Nothing but the store's files includes this one.
 */
#ifndef STORE_IMPL_H
#define STORE_IMPL_H

#include "store.h"

/* Every statement of either dialect. */
enum stmt {
	STMT_BEGIN,
	STMT_BEGIN_READ,
	STMT_COMMIT,
	STMT_ROLLBACK,
	STMT_RECORD,
	STMT_STATUS,
	STMT_STATUSES,
	STMT_JOB_KNOWN,
	STMT_JOB_ADD,
	STMT_JOB_SET,
	STMT_JOB_RM,
	STMT_JOB_LIST,
	STMT_JOB_OVERVIEW,
	STMT_CKPT_COUNTS,
	STMT_CKPT_LATEST,
	STMT_CKPT_HISTORY,
	STMT_CKPT_GET,
	STMT_CKPT_DURATIONS,
	STMT_TRIGGER_LIST,
	STMT_TRIGGER_LIST_JOB,
	STMT_TRIGGER_RECENT,
	STMT_TRIGGER_WAITING,
	STMT_PURGE,
	STMT_SP_PURGE,
	STMT_DISPOSAL_PURGE,
	STMT_PENDING,
	STMT_PENDING_BOUND,
	STMT_LOCK_JOBS,
	STMT_UNKNOWN_JOBS,
	STMT_FAIL_UNKNOWN,
	STMT_COMPLETE_PLAIN,
	STMT_COUNTERS_SYNC,
	STMT_NEXT_ID,
	STMT_COMPLETE,
	STMT_CLAIM,
	STMT_CLAIM_RENEW,
	STMT_CLAIMED,
	STMT_DATA_VERSION,
	STMT_WAL_CHECKPOINT,
	STMT_METRICS_SERVICE,
	STMT_METRICS_JOBS,
	STMT_RUNNER_PASS,
	STMT_EXPORT_JOBS,
	STMT_EXPORT_COUNTERS,
	STMT_EXPORT_STATS,
	STMT_EXPORT_SERVICE,
	STMT_EXPORT_TRIGGERS,
	STMT_IMPORT_LOCK,
	STMT_IMPORT_EMPTY,
	STMT_IMPORT_JOB,
	STMT_IMPORT_COUNTER,
	STMT_IMPORT_STATS,
	STMT_IMPORT_SERVICE,
	STMT_IMPORT_TRIGGER,
	STMT_IMPORT_SEQUENCE,
	/* Savepoints, stops and disposals (store_api.c, store_savepoints.c). */
	STMT_SP_DIR,
	STMT_SP_RECORD,
	STMT_SP_QUEUE, /* a database server's committer's; none in SQLite */
	STMT_SP_STATUS,
	STMT_SP_STATUSES,
	STMT_DISPOSAL_RECORD,
	STMT_DISPOSAL_ID,
	STMT_DISPOSAL_STATUS,
	STMT_SP_PENDING,
	STMT_SP_CLAIM,
	STMT_SP_COMPLETE,
	STMT_SP_END_JOB,
	STMT_SP_CLAIMS,
	STMT_SP_RENEW,
	STMT_DISPOSAL_PENDING,
	STMT_DISPOSAL_CLAIM,
	STMT_DISPOSAL_COMPLETE,
	STMT_DISPOSAL_MARK,
	STMT_DISPOSAL_MARK_HISTORY,
	STMT_DISPOSAL_CLAIMS,
	STMT_DISPOSAL_RENEW,
	STMT_JOB_SET_SAVEPOINT,
	STMT_SP_LATEST,
	STMT_SP_LIST,
	/* The checkpoint history (schema/0007). */
	STMT_HISTORY_PRUNE_KEEP,
	STMT_HISTORY_PRUNE_AGE,
	STMT_SP_PRUNE,
	STMT_EXPORT_HISTORY,
	STMT_IMPORT_HISTORY,
	/* Tables added since, copied as the rest (store_export). */
	STMT_EXPORT_SAVEPOINTS,
	STMT_IMPORT_SAVEPOINTS,
	STMT_EXPORT_DISPOSALS,
	STMT_IMPORT_DISPOSALS,
	STMT_EXPORT_SCHEDULES,
	STMT_IMPORT_SCHEDULES,
	STMT_EXPORT_SLOTS,
	STMT_IMPORT_SLOTS,
	STMT_EXPORT_RETENTION,
	STMT_IMPORT_RETENTION,
	/* Jobs bound to a Flink JobManager (jobmanager.h). */
	STMT_JOB_FLINK_SET,
	STMT_JOB_BOOKKEEPING_SET,
	STMT_FLINK_COMPLETE,
	STMT_COUNTER_FOLLOW,
	STMT_CLAIM_RELEASE,
	STMT_LOCK_HEADS,
	STMT_PENDING_HEADS,
	/* Schedules (schema/0011, schedule.h). */
	STMT_SCHED_SET,
	STMT_SCHED_CLEAR,
	STMT_SCHED_LIST,
	STMT_SCHED_ADVANCE,
	STMT_SCHED_BUSY,
	STMT_SCHED_RECORD,
	STMT_SCHED_SLOT,
	STMT_SCHED_SLOTS_PRUNE,
	STMT_SCHED_FIRE_CHECKPOINT, /* a driver's own, or none */
	/* Retention (schema/0012, retention.h). */
	STMT_RETAIN_SET,
	STMT_RETAIN_CLEAR,
	STMT_RETAIN_GET,
	STMT_SP_KEEP,
	STMT_RETAIN_CANDIDATES,
	STMT_RETAIN_CANDIDATES_JOB,
	STMT_DISPOSAL_COUNTS,
	/* Retention's policies by when they are due (schema/0015). */
	STMT_RETAIN_DUE,
	STMT_RETAIN_NEXT,
	/* The history pruned by the counters that grew (schema/0015). */
	STMT_HISTORY_PRUNE_GROWN,
	STMT_HISTORY_GROWN_MARK, /* where PRUNE_GROWN does not mark */
	STMT_HISTORY_PRUNED,
	STMT_HISTORY_KEEP_GET,
	STMT_HISTORY_KEEP_SET,
	/* The slots missed of every schedule ever (schema/0015). */
	STMT_SCHED_MISSED_ADD,
	STMT_SCHED_MISSED_TOTAL,
	STMT_QUEUE_DRIFT,
	/* The fleet's lists, a page at a time, and its health (store_fleet.c). */
	STMT_JOB_PAGE,
	STMT_FLEET_JOBS,
	STMT_FLEET_SERVICE,
	STMT__MAX
};

/*
 * The checkpoint history's SQL that both dialects write alike: a listed
 * trigger's columns (store_jobs.c's trigger_rows reads them in this order);
 * the history's rows as such listings' rows, ord their place in arrival
 * order; the history's rows whose triggers were purged or record
 * another checkpoint since.
 */
#define TRIGGER_COLS \
	"job_id, trigger_id, status, requested_type, checkpoint_type," \
	" checkpoint_id, location, failure_class, failure_trace, claimed_by," \
	" remote_user, remote_addr, created_ms, completed_ms, claimed_ms"
#define HISTORY_AS_TRIGGERS \
	"SELECT trigger_row AS ord, job_id, trigger_id, 'COMPLETED' AS status," \
	" requested_type, checkpoint_type, checkpoint_id, location," \
	" failure_class, failure_trace, claimed_by, remote_user, remote_addr," \
	" created_ms, completed_ms, claimed_ms FROM checkpoint_history"
#define HISTORY_PURGED \
	"NOT EXISTS (SELECT 1 FROM triggers t WHERE t.id = trigger_row" \
	" AND t.checkpoint_id = checkpoint_history.checkpoint_id)"

/*
 * Columns of tables a migration copies row by row, every column as text
 * in this order (a dialect's export may cast, as PostgreSQL's booleans to
 * 0 and 1); each import binds them in the same order.
 */
#define HISTORY_COPY_COLS \
	"job_id, checkpoint_id, kind, status, trigger_row, trigger_id," \
	" requested_type, checkpoint_type, created_ms, claimed_by, claimed_ms," \
	" completed_ms, location, failure_class, failure_trace," \
	" failure_throwable, remote_user, remote_addr, disposed_ms"
#define SAVEPOINT_COPY_COLS \
	"id, job_id, trigger_id, kind, target_directory, format_type," \
	" cancel_job, drain, status, checkpoint_id, location, failure_class," \
	" failure_trace, failure_throwable, created_ms, claimed_by," \
	" claimed_ms, lease_ms, completed_ms, disposed_ms, remote_user," \
	" remote_addr, kept_ms"
#define DISPOSAL_COPY_COLS \
	"id, trigger_id, savepoint_path, status, failure_class, failure_trace," \
	" failure_throwable, created_ms, claimed_by, claimed_ms, lease_ms," \
	" completed_ms, attempts, remote_user, remote_addr, reason"
#define SCHEDULE_COPY_COLS \
	"job_id, kind, every_ms, cron, since_ms, last_slot_ms, set_by, missed"
#define SLOT_COPY_COLS "job_id, kind, slot_ms, fired_ms, trigger_id, skipped"
#define RETENTION_COPY_COLS "job_id, kind, keep_last, keep_ms, set_by, set_ms"

/*
 * The live snapshots of the jobs with a policy for their kind (the
 * savepoints, and the history's checkpoints with a location), by job and
 * kind, newest first, each with its disposal so far
 * (STMT_RETAIN_CANDIDATES, STMT_RETAIN_CANDIDATES_JOB): JOB the predicate
 * that picks the policies, JOIN the dialect's join that keeps them first
 * (SQLite's CROSS JOIN), NULLINT its NULL of an integer column.
 */
#define RETAIN_CANDIDATES(JOIN, NULLINT, JOB, SAME_PATH) \
	"SELECT c.job_id, c.kind, c.trigger_id, c.checkpoint_id," \
	" c.location, c.completed_ms, c.kept_ms, c.keep_last, c.keep_ms," \
	" d.status, d.failure_class, d.attempts, d.completed_ms" \
	" FROM (SELECT r.job_id, r.kind, p.trigger_id, p.checkpoint_id," \
	"  p.location, p.completed_ms, p.kept_ms, p.id AS seq, r.keep_last," \
	"  r.keep_ms FROM retention r " JOIN " savepoints p" \
	"  ON p.job_id = r.job_id WHERE r.kind = 'SAVEPOINT' AND " JOB \
	"  AND p.status = 'COMPLETED' AND p.failure_class IS NULL" \
	"  AND p.location IS NOT NULL AND p.disposed_ms IS NULL" \
	" UNION ALL SELECT r.job_id, r.kind, h.trigger_id, h.checkpoint_id," \
	"  h.location, h.completed_ms, " NULLINT \
	", h.trigger_row, r.keep_last," \
	"  r.keep_ms FROM retention r " JOIN " checkpoint_history h" \
	"  ON h.job_id = r.job_id WHERE r.kind = 'CHECKPOINT' AND " JOB \
	"  AND h.kind = 'CHECKPOINT' AND h.status = 'COMPLETED'" \
	"  AND h.location IS NOT NULL AND h.location NOT LIKE '<%'" \
	"  AND h.disposed_ms IS NULL) AS c" \
	" LEFT JOIN savepoint_disposals d ON " SAME_PATH \
	" ORDER BY c.job_id, c.kind, c.checkpoint_id DESC NULLS LAST," \
	" c.seq DESC"

/*
 * A job's waiting triggers in two parts, each the predicate of its
 * index: queued (triggers_queue: SQLite 0009, PostgreSQL 0006) and
 * claimed (triggers_claimed), so that one job's are found without the
 * fleet's queue (triggers_pending).
 */
#define QUEUED(p) \
	"status = 'IN_PROGRESS' AND claimed_by IS NULL AND job_id = " p
#define CLAIMED(p) \
	"status = 'IN_PROGRESS' AND claimed_by IS NOT NULL AND job_id = " p

/*
 * The rows of job ?1, or of every job when it is NULL (p is the dialect's
 * ?1 or $1): a range of the job's key, which an index serves, where
 * "?1 IS NULL OR job_id = ?1" is served by none and reads the fleet's
 * rows for one job.  Job ids are lowercase hex (the schema's CHECK), so
 * all of them lie between '' and 'g'.
 */
#define JOB_RANGE(col, p) \
	col " >= coalesce(" p ", '') AND " col " <= coalesce(" p ", 'g')"

/*
 * A trigger refused by the queue bound (store_queue_full_trace): the
 * predicate of the index triggers_refused (SQLite 0013, PostgreSQL 0010),
 * word for word, so that the count of those still stored uses it.
 */
#define REFUSED \
	"status = 'COMPLETED' AND failure_trace LIKE" \
	" 'org.apache.flink.runtime.checkpoint.CheckpointException:" \
	" The maximum number of queued checkpoint requests exceeded%'"

/*
 * What a client's disposal may not touch (struct disposal_task's scope):
 * of a pending disposal d and the savepoint s at its path (NULL: none),
 * 0 where it may go on, else why not: 1 no savepoint is there (a
 * checkpoint's location, at most), 2 the savepoint is marked kept, 3 it
 * is its job's newest that exists.  A disposal that retention asked for
 * (d.reason) decided by its own rules, which keep the newest and the
 * kept too.
 */
#define DISPOSAL_SCOPE \
	"CASE WHEN d.reason IS NOT NULL THEN 0 WHEN s.id IS NULL THEN 1" \
	" WHEN s.kept_ms IS NOT NULL THEN 2" \
	" WHEN NOT EXISTS (SELECT 1 FROM savepoints n" \
	"  WHERE n.job_id = s.job_id AND n.id > s.id" \
	"  AND n.location IS NOT NULL AND n.disposed_ms IS NULL) THEN 3" \
	" ELSE 0 END"

/*
 * A statement's parameter: an integer, or text (NULL text: SQL NULL).
 * Both dialects get the same list, in the same order; a dialect's SQL
 * may leave one unused (PostgreSQL's times come from the server clock,
 * not from the caller's now_ms).
 */
struct store_val {
	int is_int;
	int64_t i;
	const char *s;
};
#define VAL_TEXT(v) \
	{ \
		0, 0, (v) \
	}
#define VAL_INT(v) \
	{ \
		1, (v), NULL \
	}

/*
 * The rows of one statement being read, between the driver's query and
 * end: h is the driver's handle (a prepared statement being stepped, a
 * result), row the one the columns read.  rc is the first error.
 */
struct store_rows {
	struct store *s;
	void *h;
	int row;
	const char *what;
	enum store_rc rc;
};

/*
 * How a file's WAL is copied into the database (store_ops'
 * wal_checkpoint, its two places a and b): TRUNCATE all of it, the WAL
 * then truncated (a: readers kept it from finishing); PASSIVE what it can
 * without waiting for readers or writers (a the WAL's frames, b those in
 * the database); GROWN as TRUNCATE, once the WAL has grown large (after a
 * runner's pass).
 */
enum store_wal {
	STORE_WAL_TRUNCATE,
	STORE_WAL_PASSIVE,
	STORE_WAL_GROWN,
};

/*
 * The values of a trigger as STMT_RECORD records one, and room for those
 * of any post (a savepoint's, STMT_SP_RECORD's, are the most).
 */
#define STORE_TRIGGER_NVAL 10
#define STORE_POST_NVAL 14

struct store_ops {
	const char *name; /* "sqlite", "postgresql" */
	/*
	 * A file driver's: the files a database is made of, as suffixes of
	 * its path ("" the file itself), NULL-terminated (store_files).
	 */
	const char *const *files;

	/*
	 * Statements.  query runs statement id with n values (or gets it
	 * ready to step), its error in the result; next moves to the next
	 * row (0: none left, or an error, in rows->rc); col_int (0 for
	 * NULL, a boolean as 1 or 0) and col_text (NULL for NULL) read the
	 * row's columns, valid until the next call of next or end; changes
	 * is how many rows the statement wrote (or returned); end lets the
	 * statement go.  fail records (in struct store's error) and logs
	 * an error the driver did not meet itself, and is STORE_ERROR.
	 * sql is the dialect's SQL by statement (NULL: a statement it has
	 * not).
	 */
	enum store_rc (*query)(struct store *, struct store_rows *, enum stmt,
	    const struct store_val *, int, const char *);
	int (*next)(struct store_rows *);
	int64_t (*col_int)(const struct store_rows *, int);
	const char *(*col_text)(const struct store_rows *, int);
	int64_t (*changes)(const struct store_rows *);
	void (*end)(struct store_rows *);
	enum store_rc (*fail)(struct store *, const char *, const char *);
	const char *const *sql;

	/*
	 * The end of a transaction, the connection and its news, as
	 * store.h says of the functions of the same names.  A transaction
	 * begins by the dialect's STMT_BEGIN or STMT_BEGIN_READ, run as any
	 * statement.
	 */
	enum store_rc (*commit)(struct store *);
	void (*rollback)(struct store *);
	enum store_rc (*data_version)(struct store *, int64_t *);
	void (*close)(struct store *);
	/* The dialect's migrations, oldest first: its schema's version is
	 * their count. */
	const char *const *migrations;

	/*
	 * How the dialect differs where the store's logic is written once.
	 * sql_throwable: the SQL makes a failure's serialized-throwable
	 * itself.  purge_batch: the rows a purge's statement deletes at most
	 * (0: all at once).
	 */
	int sql_throwable;
	int64_t purge_batch;
	/*
	 * The committer's batches (store_record_send, store_record_recv):
	 * post i the trigger t[i], or, where that is NULL, a savepoint; v
	 * holds each post's values as the statement of its kind records
	 * one (STMT_RECORD, its first STORE_TRIGGER_NVAL; STMT_SP_RECORD),
	 * nv at v[i * nv].  in_flight: how many batches may be sent and not
	 * yet received.  A server's driver sends a batch down its pipeline
	 * and reads its outcome at record_recv (PostgreSQL sends the
	 * triggers, from t[], as one statement of arrays, in_flight
	 * STORE_IN_FLIGHT); a file's records it at once in one transaction,
	 * a trigger alone in its own statement, and keeps the outcome for
	 * record_recv (in_flight 1).
	 */
	enum store_rc (*record_send)(struct store *,
	    const struct trigger_rec *const *t, const struct store_val *v,
	    int nv, size_t);
	enum store_rc (*record_recv)(struct store *, int *);
	int in_flight;
	/*
	 * A descriptor readable when data_version may have grown: a
	 * server's socket, where its notifications arrive; a watch of a
	 * file's directory.
	 */
	int (*watch_fd)(struct store *);
	/*
	 * A file's (SQLite's), NULL in a server's driver, where store.c
	 * answers that there is nothing to do: its WAL copied into the
	 * database as mode says (enum store_wal), and whether the file at
	 * its path is still the one it opened: store_replaced's answer, or,
	 * quiet, asked afresh and neither logged nor remembered
	 * (store_moved).
	 */
	enum store_rc (
	    *wal_checkpoint)(struct store *, enum store_wal, int *, int *);
	int (*replaced)(struct store *, int64_t max_age_ms, int quiet);
};

struct store {
	const struct store_ops *ops;
	char error[512]; /* the driver's last error, as logged: store_error */
};

/*
 * What every store file reads and runs statements with (store.c), the
 * driver's entries made easy: each means what the driver's entry of the
 * same name does; store_q_cols reads a row's columns into the places
 * that follow kinds, a letter a column (i int64_t *, b and n int *, t
 * const char **, c char **, d struct id *, T enum ckpt_type *, S enum
 * job_state *, - a column passed over: tests/t0110 checks each call's
 * places against them); store_q_next_row moves on and reads a row into
 * a zeroed struct; store_q_run runs a statement through, store_q_run_one
 * wants it to write a row (else STORE_NOTFOUND), store_q_first_text
 * appends its first column, store_q_one_row reads its first row;
 * store_q_settle commits after STORE_OK, else rolls back.
 */
#define NVAL(v) ((int)(sizeof(v) / sizeof((v)[0])))
/* An integer, or NULL for a value the schema never stores (0, -1). */
#define VAL_INT_OR_NULL(v, null) \
	{ \
		!(null), (null) ? 0 : (v), NULL \
	}
enum store_rc store_q_query(struct store *, struct store_rows *, enum stmt,
    const struct store_val *, int, const char *);
int store_q_next(struct store_rows *);
int64_t store_q_int(const struct store_rows *, int);
const char *store_q_text(const struct store_rows *, int);
int store_q_cols(const struct store_rows *, const char *kinds, ...);
int store_q_next_row(struct store_rows *, void *row, size_t size,
    const char *kinds, ...);
enum store_rc store_q_end(struct store_rows *);
enum store_rc store_q_run(struct store *, enum stmt, const struct store_val *,
    int, const char *, int64_t *changes);
enum store_rc store_q_run_one(struct store *, enum stmt,
    const struct store_val *, int, const char *);
enum store_rc store_q_first_text(struct store *, enum stmt,
    const struct store_val *, int, const char *, struct buf *);
enum store_rc store_q_one_row(struct store *, enum stmt,
    const struct store_val *, int, const char *, const char *kinds, ...);
enum store_rc store_q_settle(struct store *, enum store_rc);
/* A failure's serialized-throwable, where the C code makes it. */
int store_failure_throwable(struct store *, const char *class,
    const char *trace, struct buf *);
/* Appends id to an array literal begun with "{" (ids are hex). */
int store_id_array_add(struct buf *, const char *id);

/* The length of a NULL-terminated list: a series of migrations. */
int store_count(const char *const *);
/* A password in a URI, as store_redact finds them (store.c). */
const char *store_password(const char *, const char *, size_t *);

void store_sqlite_init(void);
enum store_rc store_sqlite_open(const struct store_opts *, struct store **,
    char *err, size_t errlen);
/* The driver's table, for what it can do before a store is open. */
const struct store_ops *store_sqlite_ops(void);
#ifdef HAVE_LIBPQ
void store_pg_init(void);
enum store_rc store_pg_open(const struct store_opts *, struct store **,
    char *err, size_t errlen);
const struct store_ops *store_pg_ops(void);
/* Whether libpq can parse uri at all (no server asked). */
int store_pg_parses(const char *uri);
#endif

/*
 * The failure a trigger is recorded with when its job already has
 * max_queued triggers waiting (store_record_trigger); -1: out of memory.
 */
int store_queue_full_trace(struct buf *, int64_t max_queued);

/*
 * A job's savepoints as checkpoints (the savepoint_checkpoints view),
 * with their kind (1 savepoint, 2 stop) and format: the statistics'
 * history and details show both, one id sequence per job, as Flink's.
 */
#define SAVEPOINT_ROWS \
	"SELECT checkpoint_id, status, trigger_ms, completed_ms, duration_ms," \
	" location, failure_class, failure_trace," \
	" CASE kind WHEN 'STOP' THEN 2 ELSE 1 END, format_type" \
	" FROM savepoint_checkpoints"

/*
 * The statements both dialects write alike, once (store_sql.c), and a
 * statement's text: own's (a driver's table) if it has one, else the
 * shared one, else NULL.  Each driver's table is named here so that
 * unit-sql can tell a statement written twice alike.
 */
extern const char *const store_sql_shared[STMT__MAX];
extern const char *const store_jobs_sql[STMT__MAX];
/* Every table of shared statements (NULL-terminated), and id's text. */
extern const char *const *const store_sql_tables[];
const char *store_sql_shared_text(enum stmt);
/* Bytes the shared statements take, NULs included, at the most. */
#define STORE_SQL_SHARED_MAX 32768
extern const char *const store_sqlite_sql[STMT__MAX];
extern const char *const store_pg_sql[STMT__MAX];
const char *store_sql_text(const char *const *own, enum stmt);

#endif /* STORE_IMPL_H */
