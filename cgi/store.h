/*
 * The store: the one seam between the service and its database.  Handlers,
 * runner and checkpointctl speak in these operations and never in SQL, so
 * that either store stands behind the same header: one SQLite file in WAL
 * mode, the embedded default (store_sqlite.c), or a PostgreSQL database
 * shared by many hosts (store_pg.c), chosen by the value of CHECKPOINT_DB
 * (store.c).
 *
 * Every operation leaves no statement active when it returns (an open read
 * would starve WAL checkpoints in a long-lived FastCGI process).  An
 * operation that returns STORE_BUSY changed nothing: the caller may retry.
 */
#ifndef STORE_H
#define STORE_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "checkpoint.h"
#include "ids.h"

struct store;

enum store_rc {
	STORE_OK,
	STORE_NOTFOUND, /* no such row */
	STORE_EXISTS, /* the row is there already */
	STORE_BUSY, /* locked past the busy timeout; retry */
	STORE_UNAVAILABLE, /* cannot open, not a database, I/O error */
	STORE_READONLY, /* reads work, writes are refused; retry is vain */
	STORE_NEWER, /* made by a newer version: refused */
	STORE_MISSING, /* no database there: checkpointctl init makes it */
	STORE_ERROR /* anything else; logged where it happened */
};

struct store_opts {
	const char *path; /* a file, or a postgresql:// URI */
	int sync_normal; /* synchronous=NORMAL instead of FULL */
	int64_t busy_ms; /* total lock wait per statement */
	int64_t cache_kib; /* page cache; 0: SQLite's default */
	/*
	 * Make the database if it is not there (checkpointctl init and
	 * migrate's destination only): any other program that made one
	 * would answer for triggers that no runner will ever see.
	 */
	int create;
	/*
	 * Called after each commit on this connection with the WAL's size
	 * in frames, where the store has a WAL of its own (SQLite's): the
	 * group committer's, whose WAL copier then checkpoints instead of
	 * SQLite's automatic checkpoint in the committing thread.
	 */
	void (*on_commit)(void *arg, int frames);
	void *on_commit_arg;
};

void store_init(void);
/*
 * Whether CHECKPOINT_DB names a PostgreSQL database (a libpq URI), whose
 * password store_redact and store_hide_password hide.
 */
int store_is_uri(const char *db);
/*
 * What a store has beside every store's operations (store_can):
 * batches in flight (store_record_send), status reads in one statement
 * (store_read_statuses), a WAL of its own (store_wal_checkpoint and
 * the rest), a file of this host (whose directory, owner and mode
 * checkpointctl init, setup and doctor see to).  Without them the
 * operations answer that there is nothing to do.  A store reached by
 * round trips has the first two: there a commit costs the same whether
 * it holds one POST or sixteen, and a statement the same for one key or
 * many, so the committer keeps batches in flight (commit.c) and GETs are
 * read together (readers.c); a file read and written in the process pays
 * for neither.
 */
enum store_can {
	STORE_CAN_PIPELINE,
	STORE_CAN_READ_TOGETHER,
	STORE_CAN_WAL,
	STORE_CAN_FILE,
};
int store_can(const struct store *, enum store_can);
/*
 * The same question of the driver that store_open would pick for db,
 * before any store is open (a process chooses its threads' roles at
 * start-up, when the database may not be there yet); 0 for none.
 */
int store_driver_can(const char *db, enum store_can);
/*
 * For a store of STORE_CAN_FILE, the files db is made of: suffixes of
 * its path ("" db itself), NULL-terminated, whose owner and mode
 * checkpointctl sees to; NULL for a store of no file.
 */
const char *const *store_files(const char *db);
/*
 * Whether db is there to be opened without being made: a server's
 * database always (the server will say), a file if it exists (else 0,
 * errno says why).
 */
int store_exists(const char *db);
/* db as it may be shown: a URI's password as "***". */
void store_redact(const char *db, char *out, size_t len);
/*
 * Overwrites a URI's password in place with '*': for an argument the
 * process's title (ps) would show, once a copy of it is kept.
 */
void store_hide_password(char *db);
/*
 * Whether db can name a database at all: -1 and err says why for a URI
 * of another scheme, one libpq cannot parse, or one this build has no
 * driver for.  A mistake of the operator's, which no retry mends: the
 * programs stop at start-up on it (settings_from_env).
 */
int store_check_db(const char *db, char *err, size_t errlen);
enum store_rc store_open(const struct store_opts *, struct store **, char *err,
    size_t errlen);
void store_close(struct store *);
const char *store_kind(const struct store *); /* "sqlite", "postgresql" */
int store_schema_version(const struct store *);
const char *store_rc_name(enum store_rc);
/*
 * The text of the last error logged on this connection ("what: why"), or
 * "": for a program that words its own errors, such as checkpointctl.
 */
const char *store_error(const struct store *);

/* --- The API's two operations (checkpoint-api(7), "ENDPOINTS"). --- */

struct trigger_rec {
	struct id job;
	struct id trigger;
	enum ckpt_type type;
	const char *remote_user; /* may be NULL */
	const char *remote_addr; /* may be NULL */
	int64_t now_ms;
	int64_t store_ms; /* retention; 0: forever */
	int64_t max_queued; /* triggers a job may have waiting (> 0) */
};

enum store_rc store_record_trigger(struct store *, const struct trigger_rec *,
    int *created);
/*
 * Group commit with batches in flight, for the committer on a database
 * server (commit.c, STORE_CAN_PIPELINE): store_record_send sends a batch
 * to be recorded as store_record_posts records one (its own transaction,
 * all or none, a deadlock tried once more) and returns without waiting
 * for it; store_record_recv waits for the oldest batch sent and not yet
 * received, and gives what store_record_posts would have (created[] as
 * long as that batch).  While one batch commits, the next is on its way.
 * At most STORE_IN_FLIGHT batches are sent and not received, and a
 * batch's records stay valid until its store_record_recv.  A batch whose
 * send failed is not received.  Only PostgreSQL has them; SQLite's answer
 * STORE_ERROR.
 */
#define STORE_IN_FLIGHT 2
struct savepoint_rec;
enum store_rc store_record_send(struct store *,
    const struct trigger_rec *const *t, const struct savepoint_rec *const *sp,
    size_t n);
enum store_rc store_record_recv(struct store *, int *created);
enum store_rc store_read_status(struct store *, const struct id *job,
    const struct id *trigger, int64_t now_ms, int64_t store_ms,
    struct buf *json);
/*
 * Several status reads in one statement, for the GETs of several threads
 * at once (readers.c): each read's answer is added to its json, and its
 * rc says STORE_OK or STORE_NOTFOUND.  Any other result is the whole
 * batch's failure, and the reads' rc say nothing.  A read of a savepoint
 * or stop (savepoint) is store_read_savepoint_status's, else
 * store_read_status's; the reads of each kind go in one statement.
 */
struct status_read {
	const struct id *job;
	const struct id *trigger;
	struct buf *json;
	int savepoint;
	enum store_rc rc;
};
enum store_rc store_read_statuses(struct store *, struct status_read *const *,
    size_t n, int64_t now_ms, int64_t store_ms);
enum store_rc store_job_known(struct store *, const struct id *job);
/* The job's state (RUNNING, ...), appended to state; STORE_NOTFOUND. */
enum store_rc store_job_state(struct store *, const struct id *job,
    struct buf *state);

/* --- Jobs (checkpointctl). --- */

struct job {
	struct id id;
	const char *name;
	enum job_state state;
	enum ckpt_type type; /* FULL or INCREMENTAL */
	const char *command; /* NULL: completes at once */
	int64_t timeout_s;
	int64_t last_checkpoint_id; /* listing only */
	int64_t pending; /* listing only */
	int64_t created_ms; /* overview and export only */
	int64_t updated_ms; /* overview and export only */
	const char *flink_url; /* export only; NULL: not bound to Flink */
	/* Savepoints (JOB_SET_SAVEPOINT_*; NULL: none). */
	const char *savepoint_dir;
	const char *savepoint_command;
	const char *stop_command;
	const char *dispose_command;
	/*
	 * "yes": its savepoints and stops run nothing and are recorded as
	 * bookkeeping only (JOB_SET_BOOKKEEPING); NULL: they run its
	 * commands.  Text, as the commands file holds it (commands.h).
	 */
	const char *bookkeeping;
};

/* Which fields of a job store_job_set changes. */
enum {
	JOB_SET_NAME = 1 << 0,
	JOB_SET_STATE = 1 << 1,
	JOB_SET_TYPE = 1 << 2,
	JOB_SET_COMMAND = 1 << 3,
	JOB_SET_TIMEOUT = 1 << 4,
	JOB_SET_SAVEPOINT_DIR = 1 << 5,
	JOB_SET_SAVEPOINT_COMMAND = 1 << 6,
	JOB_SET_STOP_COMMAND = 1 << 7,
	JOB_SET_DISPOSE_COMMAND = 1 << 8,
	JOB_SET_BOOKKEEPING = 1 << 9
};
#define JOB_SET_SAVEPOINT \
	(JOB_SET_SAVEPOINT_DIR | JOB_SET_SAVEPOINT_COMMAND | \
	    JOB_SET_STOP_COMMAND | JOB_SET_DISPOSE_COMMAND | \
	    JOB_SET_BOOKKEEPING)

typedef int (*store_job_cb)(const struct job *, void *);

enum store_rc store_job_add(struct store *, const struct job *, int64_t now_ms);
/* Changes fields; the JOB_SET_SAVEPOINT ones too, in the same call. */
enum store_rc store_job_set(struct store *, const struct job *, int fields,
    int64_t now_ms);
enum store_rc store_job_rm(struct store *, const struct id *);
enum store_rc store_job_list(struct store *, store_job_cb, void *);
/* Id, name, state and times of every job, by id: cheaper than a listing. */
enum store_rc store_job_overview(struct store *, store_job_cb, void *);

/*
 * --- The fleet, a page at a time (store_fleet.c). ---
 *
 * The overview's jobs by id after after ("": from the first) whose name
 * (lowercased) or id matches like, a LIKE pattern escaped with '!' ("%":
 * every job), at most limit of them: a page's cost is its own rows'.
 */
enum store_rc store_job_page(struct store *, const char *after,
    const char *like, int64_t limit, store_job_cb, void *);

/* One job's health, as the fleet's summary reads it. */
struct fleet_job {
	struct id id;
	const char *name;
	enum job_state state;
	int64_t last_completed, completed_ms; /* 0: none */
	int64_t last_failed, failed_ms; /* 0: none */
	int64_t queued, claimed; /* triggers waiting, running */
	int64_t every_ms; /* the checkpoint schedule's; 0: none or cron */
	const char *cron; /* NULL: none */
	int64_t since_ms, last_slot_ms;
	int64_t missed; /* slots its schedules missed, ever */
};
typedef int (*store_fleet_cb)(const struct fleet_job *, void *);

/*
 * Every job, by id, to cb, in one snapshot with the runner's last pass
 * and the slots missed by every schedule ever.
 */
enum store_rc store_fleet(struct store *, int64_t *pass_ms, int64_t *missed,
    store_fleet_cb, void *);

/* --- Checkpoint statistics (GET /jobs/:jobid/checkpoints...). --- */

/*
 * A job's checkpoint counters.  Completed and failed, and the durations,
 * are kept apart from the triggers, so that retention's purges leave them.
 */
struct ckpt_counts {
	int64_t timeout_s; /* the job's action timeout */
	int64_t in_progress; /* given an id, still running */
	int64_t completed;
	int64_t failed; /* given an id or not */
	int64_t duration_min; /* end-to-end, of completed ones, ms */
	int64_t duration_max;
	int64_t duration_sum;
};

enum ckpt_status { CKPT_IN_PROGRESS, CKPT_COMPLETED, CKPT_FAILED };

/* One stored checkpoint: a trigger that was given an id. */
struct ckpt {
	int64_t id;
	enum ckpt_status status;
	int64_t trigger_ms; /* claimed by the runner, or else recorded */
	int64_t end_ms; /* completed or failed; 0: running */
	int64_t duration_ms; /* end_ms - trigger_ms, at least 0 */
	const char *location; /* completed only; NULL: none printed */
	const char *failure_class; /* failed only */
	const char *failure_trace; /* failed only */
	enum ckpt_kind {
		CKPT_KIND_CHECKPOINT,
		CKPT_KIND_SAVEPOINT,
		CKPT_KIND_STOP /* Flink's SYNC_SAVEPOINT */
	} kind;
	const char *format; /* a savepoint's: CANONICAL or NATIVE */
};

typedef int (*store_ckpt_cb)(const struct ckpt *, void *);

/* STORE_NOTFOUND: the job is not registered. */
enum store_rc store_ckpt_counts(struct store *, const struct id *job,
    struct ckpt_counts *);
/*
 * The job's latest completed checkpoint, then its latest failed one (the
 * highest ids), each if there is one: kept with the counters, so they
 * outlive the purge of their triggers.
 */
/* latest.savepoint's: the job's completed savepoint of highest id. */
enum store_rc store_savepoint_latest(struct store *, const struct id *job,
    store_ckpt_cb, void *);
enum store_rc store_ckpt_latest(struct store *, const struct id *job,
    store_ckpt_cb, void *);
/* The job's newest limit checkpoints, newest first. */
enum store_rc store_ckpt_history(struct store *, const struct id *job,
    int64_t limit, store_ckpt_cb, void *);
/* One checkpoint; STORE_NOTFOUND: not stored. */
enum store_rc store_ckpt_get(struct store *, const struct id *job, int64_t id,
    store_ckpt_cb, void *);
/* End-to-end durations of the newest max completed checkpoints. */
enum store_rc store_ckpt_durations(struct store *, const struct id *job,
    size_t max, int64_t *durations, size_t *n);

/* --- Triggers as operators see them. --- */

struct trigger_row {
	struct id job;
	struct id trigger;
	const char *status; /* IN_PROGRESS or COMPLETED */
	const char *requested_type;
	const char *type; /* resolved, or NULL */
	int64_t checkpoint_id; /* 0: none */
	const char *location; /* NULL: none */
	const char *failure_class; /* NULL: no failure */
	const char *failure_trace;
	const char *claimed_by;
	const char *remote_user;
	const char *remote_addr;
	int64_t created_ms;
	int64_t completed_ms; /* 0: not completed */
	int64_t claimed_ms; /* 0: not claimed */
};

typedef int (*store_trigger_cb)(const struct trigger_row *, void *);

enum store_rc store_trigger_list(struct store *, const struct id *job,
    int64_t limit, store_trigger_cb, void *);
/*
 * The job's waiting triggers and its newest checkpoints, newest first, at
 * most limit: a failure that took no checkpoint id is not among them.
 */
enum store_rc store_trigger_recent(struct store *, const struct id *job,
    int64_t limit, store_trigger_cb, void *);
/*
 * The job's IN_PROGRESS triggers and the oldest's created_ms (0: none),
 * and when a runner last recorded a pass (0: never), which tells a queue
 * no runner takes from one waiting for the next pass.
 */
enum store_rc store_trigger_waiting(struct store *, const struct id *job,
    int64_t *n, int64_t *oldest_ms, int64_t *pass_ms);
/*
 * *n: the jobs whose count of waiting rows, kept for the queue bound,
 * differs from the rows that wait (0 unless the store was bypassed).
 */
enum store_rc store_queue_drift(struct store *, int64_t *n);
enum store_rc store_purge(struct store *, int64_t now_ms, int64_t store_ms,
    int64_t *purged);
/*
 * The checkpoint history's own retention, apart from the results':
 * drops each job's finished checkpoints below its newest keep ids and
 * those that ended age_ms ago (each 0: no such bound), and by the same
 * rule the records of savepoints that no longer exist (disposed of, or
 * failed), never the job's latest nor one marked kept.
 */
enum store_rc store_history_prune(struct store *, int64_t now_ms, int64_t keep,
    int64_t age_ms, int64_t *pruned);

/* --- The runner's operations. --- */

/* A pending trigger with what the runner needs to decide its fate. */
struct pending {
	int64_t row;
	struct id job;
	struct id trigger;
	enum ckpt_type requested;
	int job_known;
	enum job_state job_state;
	enum ckpt_type job_type;
	char *command; /* owned; NULL: none */
	int64_t timeout_s;
	int job_busy; /* another trigger of the job is claimed */
	char *flink_url; /* owned; NULL: the job is not bound to Flink */
};

/* How a trigger ended. */
struct outcome {
	int64_t checkpoint_id; /* 0: none consumed */
	enum ckpt_type type; /* resolved type, if an id was given */
	const char *location; /* success only; may be NULL */
	const char *failure_class; /* NULL: success */
	const char *failure_trace;
};

/* A claimed, still pending trigger and its claim: store_claimed's rows. */
struct claim {
	int64_t row;
	struct id job;
	struct id trigger;
	char owner[128];
	int64_t lease_ms;
	int64_t checkpoint_id;
	enum ckpt_type type;
};

typedef int (*store_claim_cb)(const struct claim *, void *);

enum store_rc store_begin(struct store *);
/* One snapshot for several reads; store_rollback ends it. */
enum store_rc store_read_begin(struct store *);
enum store_rc store_commit(struct store *);
void store_rollback(struct store *);
enum store_rc store_pending_bound(struct store *, int64_t after_row, size_t max,
    int64_t *upto, size_t *count);
/*
 * In (after, upto]: fails every pending trigger of a job that is not
 * registered or not RUNNING, with class and a trace made of trace_fmt
 * with %s the job id; *n is how many.  The caller holds the transaction.
 */
enum store_rc store_fail_unknown_jobs(struct store *, int64_t after,
    int64_t upto, const char *class, const char *trace_fmt, int64_t now_ms,
    int64_t *n);
enum store_rc store_complete_plain(struct store *, int64_t after, int64_t upto,
    int64_t now_ms, int64_t *n);
enum store_rc store_pending(struct store *, int64_t after_row, int64_t upto_row,
    size_t max, struct pending *, size_t *n);
void store_pending_free(struct pending *, size_t n);
enum store_rc store_pending_heads(struct store *, size_t max, int64_t upto_row,
    struct pending *, size_t *n);
enum store_rc store_next_checkpoint_id(struct store *, const struct id *job,
    int64_t *id);
enum store_rc store_complete(struct store *, int64_t row, const char *owner,
    const struct outcome *, int64_t now_ms);
enum store_rc store_claim(struct store *, int64_t row, const char *owner,
    int64_t checkpoint_id, enum ckpt_type, int64_t now_ms, int64_t lease_ms);
/*
 * Renews the lease of row's claim, if it is still owner's and pending:
 * lease_ms, on the caller's clock as store_claim's (now_ms its now).
 * STORE_NOTFOUND: no such claim; nothing changed.  A write, so that its
 * commit is made durable as a claim's is (on PostgreSQL, confirmed by a
 * synchronous standby): the runner's proof that a claim it found, whose
 * own commit was in doubt, will outlive a failover.
 */
enum store_rc store_claim_renew(struct store *, int64_t row, const char *owner,
    int64_t now_ms, int64_t lease_ms);
enum store_rc store_claimed(struct store *, store_claim_cb, void *);

/*
 * --- Jobs bound to a Flink JobManager (checkpoint-runner(8), "FLINK
 * JOBMANAGERS"). ---
 */

/* Binds job to the JobManager at url, or unbinds it (url NULL). */
enum store_rc store_job_flink(struct store *, const struct id *job,
    const char *url, int64_t now_ms);
/*
 * Completes a Flink-bound claimed trigger as store_complete does, with
 * Flink's checkpoint id (o->checkpoint_id, 0: none) and its failure's
 * serialized-throwable as Flink sent it (NULL: made from class and trace),
 * and moves the job's counter up to that id, so that the ids the service
 * gives follow Flink's.  The caller holds a transaction (store_begin).
 */
enum store_rc store_complete_flink(struct store *, int64_t row,
    const char *owner, const struct outcome *, const char *throwable,
    int64_t now_ms);
/*
 * Gives back row's claim, if it is still owner's: the trigger waits
 * again for a runner, which asks Flink again under the same triggerId.
 */
enum store_rc store_claim_release(struct store *, int64_t row,
    const char *owner);
enum store_rc store_wal_checkpoint(struct store *, int *busy);
/* Grows when another connection committed something a runner may want. */
enum store_rc store_data_version(struct store *, int64_t *version);
/*
 * A descriptor that becomes readable when store_data_version may have
 * grown (PostgreSQL's notifications, an inotify watch of a SQLite file's
 * directory), the store's to read and close; -1: none, poll.
 */
int store_watch_fd(struct store *);
int store_replaced(struct store *, int64_t max_age_ms);
/*
 * Whether the store's file was replaced or removed since it was opened,
 * asked now and logged nowhere: a store opened again sees the new one.
 */
int store_moved(struct store *);
/* After a runner's pass: what the store's files need (a grown WAL). */
void store_housekeeping(struct store *);
enum store_rc store_wal_checkpoint_passive(struct store *, int *frames,
    int *copied);
enum store_rc store_record_pass(struct store *, int64_t now_ms, int64_t n,
    int64_t duration_ms, int64_t every_ms);

/*
 * --- Metrics (GET /metrics).  Counts never go down: retention purges
 * triggers, not these. ---
 */

/* One registered job, in Flink's terms (its checkpoint statistics). */
struct job_metrics {
	struct id job;
	const char *name;
	int64_t completed; /* checkpoints completed */
	int64_t failed; /* failed after taking an id: declined or expired */
	int64_t in_progress; /* claimed: the job's action is running */
	int64_t last_id; /* last completed checkpoint's id; -1: none */
	int64_t last_duration_ms; /* its trigger to completion; -1: none */
};

/* The service as a whole. */
struct service_metrics {
	int64_t queued; /* recorded, not yet claimed or completed */
	int64_t oldest_queued_ms; /* the oldest one's creation; 0: none */
	int64_t claimed; /* actions running */
	int64_t completed, declined, expired; /* outcomes, all jobs ever */
	int64_t job_not_found; /* failed: job not registered or not RUNNING */
	int64_t pass_ms; /* when a runner's pass was last recorded; 0: never */
	int64_t pass_advanced; /* triggers that pass completed or failed */
	int64_t pass_duration_ms;
	int64_t queue_refused; /* triggers refused by CHECKPOINT_MAX_QUEUED */
};

typedef int (*store_metrics_cb)(const struct job_metrics *, void *);

/* Each job's row to cb, unless cb is NULL. */
enum store_rc store_metrics(struct store *, struct service_metrics *,
    store_metrics_cb, void *);

/*
 * --- Copying a store whole (checkpointctl migrate): what one store exports
 * another imports, table by table and row by row, every column as the
 * text it reads as (NULL as NULL), so that each value is kept as it was,
 * each trigger's row (its place in arrival order) included. ---
 */

/* The tables copied, in the order they are exported. */
enum store_row_table {
	STORE_ROW_JOB, /* created_ms and updated_ms included */
	STORE_ROW_COUNTER, /* a job's last checkpoint id handed out */
	STORE_ROW_STATS, /* a job's statistics, kept apart from triggers */
	STORE_ROW_SERVICE, /* job_not_found and pass_* only: the rest are
			      counted from the triggers and statistics */
	STORE_ROW_TRIGGER, /* those a purge would keep, in arrival order */
	STORE_ROW_HISTORY, /* by job and checkpoint id */
	STORE_ROW_SAVEPOINT, /* and disposals: with their ids */
	STORE_ROW_DISPOSAL,
	STORE_ROW_SCHEDULE,
	STORE_ROW_SLOT,
	STORE_ROW_RETENTION,
	STORE_ROW__MAX
};
#define STORE_ROW_COLS 24 /* the widest: a savepoint's 23 */

struct row_dump {
	enum store_row_table table;
	int n;
	const char *v[STORE_ROW_COLS]; /* NULL: SQL NULL */
};

/* Nonzero stops the export; strings live until the callback returns. */
typedef int (*store_row_cb)(const struct row_dump *, void *);

/*
 * Every row of the store from one snapshot, table by table, less the
 * triggers whose results have expired (store_ms, as store_purge; 0:
 * none).
 */
enum store_rc store_export(struct store *, int64_t now_ms, int64_t store_ms,
    store_row_cb, void *);
/*
 * Starts the one transaction of an import.  STORE_EXISTS: the store holds
 * a job, trigger, counter or statistics already; nothing was changed and
 * no transaction is left open.
 */
enum store_rc store_import_begin(struct store *);
/* One row, under store_import_begin; store_rollback undoes them all. */
enum store_rc store_import(struct store *, const struct row_dump *);
/* Commits, with the triggers' next id past the last one imported. */
enum store_rc store_import_commit(struct store *);

/* --- Savepoints, stops and disposals (checkpoint-api(7), "SAVEPOINTS") --- */

/* What POST /jobs/:jobid/savepoints or /stop asks for. */
struct savepoint_rec {
	struct id job;
	struct id trigger;
	int stop; /* POST /stop: kind STOP, else SAVEPOINT */
	const char *target_dir; /* never NULL: the request's or the job's */
	int native; /* formatType NATIVE, else CANONICAL */
	int cancel_job; /* savepoint: cancel-job */
	int drain; /* stop: drain */
	const char *remote_user; /* may be NULL */
	const char *remote_addr; /* may be NULL */
	int64_t now_ms;
	/* Past the job's waiting savepoints and stops, it fails (0: none). */
	int64_t max_queued;
};

/*
 * The job's default savepoint directory, appended to dir; STORE_NOTFOUND
 * when the job is unknown or has none.
 */
enum store_rc store_job_savepoint_dir(struct store *, const struct id *job,
    struct buf *dir);
/*
 * Records a savepoint or stop; *created is 0 when (job, trigger) was
 * already recorded, by either, in which case nothing changed.
 */
enum store_rc store_record_savepoint(struct store *,
    const struct savepoint_rec *, int *created);
/*
 * Records a batch in one transaction, each entry a trigger (t[i]) or a
 * savepoint or stop (sp[i]), the other NULL; all are committed, or none.
 * On a database server, as store_record_send and store_record_recv
 * would.
 */
enum store_rc store_record_posts(struct store *,
    const struct trigger_rec *const *t, const struct savepoint_rec *const *sp,
    size_t n, int *created);
/* GET /jobs/:jobid/savepoints/:triggerid's answer; never expires. */
enum store_rc store_read_savepoint_status(struct store *, const struct id *job,
    const struct id *trigger, struct buf *json);
/*
 * Records the disposal of path under trigger, a fresh id, unless the path
 * has one already that did not fail; *out is the disposal's id either
 * way, *created whether anything was started (a new or a retried one).
 */
enum store_rc store_record_disposal(struct store *, const struct id *trigger,
    const char *path, const char *remote_user, const char *remote_addr,
    const char *reason, int64_t now_ms, struct id *out, int *created);
/* GET /savepoint-disposal/:triggerid's answer. */
enum store_rc store_read_disposal_status(struct store *,
    const struct id *trigger, struct buf *json);

/* One savepoint or stop as the store keeps it (listings). */
struct savepoint_row {
	struct id job;
	struct id trigger;
	const char *kind; /* SAVEPOINT, STOP */
	const char *status; /* IN_PROGRESS, COMPLETED */
	int64_t checkpoint_id; /* 0: none */
	const char *target_dir;
	const char *format;
	int cancel_job, drain;
	const char *location, *failure_class, *failure_trace;
	int64_t created_ms, claimed_ms, completed_ms, disposed_ms; /* 0: not */
	const char *remote_user, *remote_addr;
	int64_t
	    kept_ms; /* marked kept (checkpointctl savepoint keep); 0: not */
};
typedef int (*store_savepoint_cb)(const struct savepoint_row *, void *);
/* Every savepoint of job (NULL: of every job), newest first. */
enum store_rc store_savepoint_list(struct store *, const struct id *job,
    store_savepoint_cb, void *);

/* The runner's side (runner.c, "Savepoints and disposals"). */
struct savepoint_task {
	int64_t row;
	struct id job;
	struct id trigger;
	int stop, native, cancel_job, drain;
	char *target_dir; /* owned */
	int job_known, job_running;
	char *command; /* owned; NULL: the job has none */
	int64_t timeout_s;
	int job_busy; /* a command of the job runs */
	char *flink_url; /* owned; the job's JobManager, NULL: not bound */
	int bookkeeping; /* the job's savepoints and stops run nothing */
};
struct disposal_task {
	int64_t row;
	struct id trigger;
	char *path; /* owned */
	int job_found; /* a savepoint of a job is at path */
	struct id job;
	char *command; /* owned; NULL: none */
	int64_t timeout_s;
	char *flink_url; /* owned; the job's JobManager, NULL: not bound */
	/*
	 * A client's disposal out of its scope: 0 none; DISPOSAL_NO_SAVEPOINT
	 * (a checkpoint's location), DISPOSAL_KEPT, DISPOSAL_NEWEST.
	 */
	int64_t scope;
};
enum { DISPOSAL_NO_SAVEPOINT = 1, DISPOSAL_KEPT, DISPOSAL_NEWEST };
/* A claim of either table, and whether its lease is over. */
struct op_claim {
	int64_t row;
	struct id job; /* empty for a disposal */
	struct id trigger;
	const char *owner;
	int expired;
};
typedef int (*store_op_claim_cb)(const struct op_claim *, void *);

/* Up to max pending, unclaimed savepoints and stops, oldest first. */
enum store_rc store_savepoints_pending(struct store *, struct savepoint_task *,
    size_t max, size_t *n);
void store_savepoint_tasks_free(struct savepoint_task *, size_t n);
enum store_rc store_savepoint_claim(struct store *, int64_t row,
    const char *owner, int64_t checkpoint_id, int64_t now_ms, int64_t lease_ms);
/*
 * Completes a savepoint claimed by owner (NULL: unclaimed) with a
 * location or a failure; checkpoint_id 0 keeps the one claimed.
 * STORE_NOTFOUND: not pending, or not owner's.
 */
enum store_rc store_savepoint_complete(struct store *, int64_t row,
    const char *owner, int64_t checkpoint_id, const char *location,
    const char *failure_class, const char *failure_trace, int64_t now_ms);
/* A RUNNING job ends in state (FINISHED after a stop, CANCELED). */
enum store_rc store_savepoint_end_job(struct store *, const struct id *job,
    const char *state, int64_t now_ms);
enum store_rc store_disposals_pending(struct store *, struct disposal_task *,
    size_t max, size_t *n);
void store_disposal_tasks_free(struct disposal_task *, size_t n);
enum store_rc store_disposal_claim(struct store *, int64_t row,
    const char *owner, int64_t now_ms, int64_t lease_ms);
/* Completes a disposal; on success every savepoint at path is disposed. */
enum store_rc store_disposal_complete(struct store *, int64_t row,
    const char *owner, const char *path, const char *failure_class,
    const char *failure_trace, int64_t now_ms);
/* Every claim of savepoints (disposals 0) or disposals (1). */
enum store_rc store_op_claims(struct store *, int disposals, int64_t now_ms,
    store_op_claim_cb, void *);
/*
 * Renews the lease of a savepoint's (disposals 0) or a disposal's claim
 * of owner, as store_claim_renew a trigger's; STORE_NOTFOUND: not owner's.
 */
enum store_rc store_op_renew(struct store *, int disposals, int64_t row,
    const char *owner, int64_t now_ms, int64_t lease_ms);

/*
 * --- Schedules (schema/0011; schedule.h has the arithmetic) ---
 *
 * Sets a job's schedule of kind (CHECKPOINT, SAVEPOINT): every_ms > 0 or
 * a cron expression, counted from now_ms; neither clears it.
 * STORE_NOTFOUND: no such job.
 */
enum store_rc store_schedule_set(struct store *, const struct id *job,
    const char *kind, int64_t every_ms, const char *cron, const char *set_by,
    int64_t now_ms);

/* One schedule with what its job says now. */
struct schedule_row {
	struct id job;
	const char *kind;
	int64_t every_ms; /* 0: cron */
	const char *cron; /* NULL: every_ms */
	int64_t since_ms;
	int64_t last_slot_ms; /* the slot last fired or skipped */
	const char *set_by;
	const char *job_state;
	const char *savepoint_dir; /* the job's default; may be NULL */
	int64_t missed; /* slots not fired before the next was due */
};
typedef int (*store_schedule_cb)(const struct schedule_row *, void *);
/* Every schedule (of job, unless NULL), by job and kind. */
enum store_rc store_schedule_list(struct store *, const struct id *job,
    store_schedule_cb, void *);

/* What a slot becomes when it fires. */
struct schedule_fire {
	int64_t slot_ms;
	int64_t now_ms;
	int64_t store_ms; /* a checkpoint trigger's retention */
	int64_t max_queued;
	struct id trigger; /* a fresh id for it */
	int64_t missed; /* the slots passed over to it (schedule_missed) */
	/* Set by store_schedule_fire: */
	int fired; /* 1 a trigger recorded, 2 the slot skipped, 0 neither */
	const char *skipped; /* why, if skipped */
};
/*
 * Fires n due slots, each of the schedule as rows[i] read it, in one
 * transaction: each schedule moves up to f[i].slot_ms, the slot is
 * recorded, and a trigger (or a savepoint into the job's directory) is
 * recorded with "scheduler" as its caller, unless the job is not RUNNING
 * (or has no directory for a savepoint, or one of the kind is still in
 * progress), when the slot is recorded skipped, with why in f[i].skipped.
 * f[i].fired is 1 for a trigger recorded, 2 for a slot skipped, 0 when
 * another runner fired the slot first or the rule changed since.  All or
 * none: on failure every f[i].fired is 0.  The caller keeps n to a few
 * hundred, so that the transaction stays short (SQLite's holds the
 * database).  Rows listed in order (store_schedule_list) lock in order.
 */
enum store_rc store_schedule_fire(struct store *,
    const struct schedule_row *const *rows, struct schedule_fire *f, size_t n);
#define SCHEDULE_CALLER "scheduler"

/*
 * --- Retention (schema/0012; retention.h decides) ---
 *
 * Sets a job's policy for kind (CHECKPOINT, SAVEPOINT): keep its newest
 * keep_last (0: no such rule) and those younger than keep_ms (0: none);
 * both 0 clears it.  STORE_NOTFOUND: no such job.
 */
enum store_rc store_retention_set(struct store *, const struct id *job,
    const char *kind, int64_t keep_last, int64_t keep_ms, const char *set_by,
    int64_t now_ms);
/* The job's policy for kind; STORE_NOTFOUND: it has none. */
enum store_rc store_retention_get(struct store *, const struct id *job,
    const char *kind, int64_t *keep_last, int64_t *keep_ms);
/*
 * Marks a completed savepoint of job kept (kept_ms > 0) or not (0), named
 * by its trigger id (trigger not NULL) or its checkpoint id.
 * STORE_NOTFOUND: no such completed savepoint.
 */
enum store_rc store_savepoint_keep(struct store *, const struct id *job,
    const struct id *trigger, int64_t checkpoint_id, int64_t kept_ms);

/*
 * One live snapshot (a savepoint, or a checkpoint of the history with a
 * location) of a job with a policy for its kind, and its disposal so far.
 */
struct retention_row {
	struct id job;
	const char *kind; /* CHECKPOINT, SAVEPOINT */
	struct id trigger;
	int64_t checkpoint_id; /* 0: none (a bound job's, unknown) */
	const char *location;
	int64_t completed_ms;
	int64_t kept_ms; /* 0: not kept (a savepoint only) */
	int64_t keep_last, keep_ms; /* the job's policy; 0: no such rule */
	const char *disposal_status; /* NULL: never asked for */
	int disposal_failed;
	int64_t disposal_attempts;
	int64_t disposal_completed_ms;
};
typedef int (*store_retention_cb)(const struct retention_row *, void *);
/* Of every job with a policy (or job's), by job and kind, newest first. */
enum store_rc store_retention_list(struct store *, const struct id *job,
    store_retention_cb, void *);

/*
 * The policies due by now_ms (schema/0015): whose job's snapshots changed
 * since a pass looked, or whose next look's time came.  changes is
 * store_retention_next's.
 */
struct retention_due {
	struct id job;
	const char *kind;
	int64_t changes;
};
typedef int (*store_retention_due_cb)(const struct retention_due *, void *);
enum store_rc store_retention_due(struct store *, int64_t now_ms,
    store_retention_due_cb, void *);
/*
 * When job's policy for kind is next due (INT64_MAX: at its next
 * change), unless its job's snapshots changed since changes was read.
 */
enum store_rc store_retention_next(struct store *, const struct id *job,
    const char *kind, int64_t changes, int64_t due_ms);

#define RETENTION_CALLER "retention"

/* The slots every schedule ever missed, for /metrics. */
enum store_rc store_schedule_missed(struct store *, int64_t *);

/* Disposals by status, for /metrics: in progress, completed, failed. */
enum { DISPOSALS_IN_PROGRESS, DISPOSALS_COMPLETED, DISPOSALS_FAILED };
enum store_rc store_disposal_counts(struct store *, int64_t n[3]);

#endif /* STORE_H */
