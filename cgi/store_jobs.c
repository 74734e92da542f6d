/*
 * Jobs and what is read of them: their rows, their checkpoints as the
 * statistics show them, their triggers as listed, GET /metrics' counts,
 * and a job bound to a Flink JobManager.  The statements of this concern
 * that both dialects write alike are in the table below, beside the
 * functions that run them: adding a read here touches this file,
 * store_impl.h (its name) and store.h (its function).
 */
#include <config.h>

#include <string.h>

#include "store_impl.h"

/*
 * The statements of this concern that both dialects write alike.  A few
 * entries in a table of STMT__MAX, some of them literals joined over
 * lines: clang-tidy takes such a join for a missing comma.
 */
/* NOLINTBEGIN(bugprone-suspicious-missing-comma) */
const char *const store_jobs_sql[STMT__MAX] = {
	[STMT_JOB_KNOWN] = "SELECT state FROM jobs WHERE job_id = ?1",
	[STMT_JOB_RM] = "DELETE FROM jobs WHERE job_id = ?1",
	[STMT_JOB_LIST] =
	    "SELECT o.job_id, o.name, o.state, o.checkpoint_type, o.command,"
	    " o.timeout_s, o.last_checkpoint_id, o.pending,"
	    " CASE WHEN j.bookkeeping_only = 1 THEN 'yes' END"
	    " FROM job_overview o JOIN jobs j ON j.job_id = o.job_id"
	    " ORDER BY o.job_id",
	[STMT_JOB_OVERVIEW] =
	    "SELECT job_id, name, state, created_ms, updated_ms FROM jobs"
	    " ORDER BY job_id",
};
/* NOLINTEND(bugprone-suspicious-missing-comma) */

/* --- Jobs --- */

enum store_rc
store_job_known(struct store *s, const struct id *job)
{
	struct store_val v[] = { VAL_TEXT(job->s) };

	return store_q_one_row(s, STMT_JOB_KNOWN, v, NVAL(v), "look up job",
	    "");
}

enum store_rc
store_job_state(struct store *s, const struct id *job, struct buf *state)
{
	struct store_val v[] = { VAL_TEXT(job->s) };

	return store_q_first_text(s, STMT_JOB_KNOWN, v, NVAL(v), "job state",
	    state);
}

enum store_rc
store_job_add(struct store *s, const struct job *j, int64_t now_ms)
{
	struct store_val v[] = { VAL_TEXT(j->id.s),
		VAL_TEXT(j->name != NULL ? j->name : ""),
		VAL_TEXT(job_state_name(j->state)),
		VAL_TEXT(ckpt_type_name(j->type)), VAL_TEXT(j->command),
		VAL_INT(j->timeout_s), VAL_INT(now_ms) };
	enum store_rc rc;

	/* A job is added, or the result says why not. */
	rc = store_q_run_one(s, STMT_JOB_ADD, v, NVAL(v), "add job");
	return rc == STORE_NOTFOUND ? STORE_ERROR : rc;
}

enum store_rc
store_job_set(struct store *s, const struct job *j, int fields, int64_t now_ms)
{
	struct store_val v[] = { VAL_TEXT(j->id.s), VAL_INT(fields),
		VAL_TEXT(j->name != NULL ? j->name : ""),
		VAL_TEXT(job_state_name(j->state)),
		VAL_TEXT(ckpt_type_name(j->type)), VAL_TEXT(j->command),
		VAL_INT(j->timeout_s), VAL_INT(now_ms) };
	struct store_val sp[] = { VAL_TEXT(j->id.s), VAL_INT(fields),
		VAL_TEXT(j->savepoint_dir), VAL_TEXT(j->savepoint_command),
		VAL_TEXT(j->stop_command), VAL_TEXT(j->dispose_command),
		VAL_INT(now_ms) };
	struct store_val bk[] = { VAL_TEXT(j->id.s),
		VAL_INT(j->bookkeeping != NULL), VAL_INT(now_ms) };
	enum store_rc rc = STORE_OK;

	if ((fields & ~JOB_SET_SAVEPOINT) != 0 &&
	    (rc = store_q_run_one(s, STMT_JOB_SET, v, NVAL(v), "set job")) !=
		STORE_OK)
		return rc;
	if ((fields & JOB_SET_SAVEPOINT & ~JOB_SET_BOOKKEEPING) != 0 &&
	    (rc = store_q_run_one(s, STMT_JOB_SET_SAVEPOINT, sp, NVAL(sp),
		 "set job's savepoints")) != STORE_OK)
		return rc;
	if ((fields & JOB_SET_BOOKKEEPING) != 0)
		rc = store_q_run_one(s, STMT_JOB_BOOKKEEPING_SET, bk, NVAL(bk),
		    "set job's bookkeeping");
	return rc;
}

enum store_rc
store_job_rm(struct store *s, const struct id *job)
{
	struct store_val v[] = { VAL_TEXT(job->s) };

	return store_q_run_one(s, STMT_JOB_RM, v, NVAL(v), "remove job");
}

/*
 * Jobs (job_id, name, state first) to cb: the listing's columns
 * follow, or the overview's.
 */
static enum store_rc
jobs(struct store *s, enum stmt id, store_job_cb cb, void *arg)
{
	struct store_rows r;
	struct job j;

	if (store_q_query(s, &r, id, NULL, 0, "list jobs") != STORE_OK)
		return store_q_end(&r);
	while (store_q_next(&r)) {
		memset(&j, 0, sizeof(j));
		if (id == STMT_JOB_OVERVIEW)
			store_q_cols(&r, "dtSii", &j.id, &j.name, &j.state,
			    &j.created_ms, &j.updated_ms);
		else
			store_q_cols(&r, "dtSTtiiit", &j.id, &j.name, &j.state,
			    &j.type, &j.command, &j.timeout_s,
			    &j.last_checkpoint_id, &j.pending, &j.bookkeeping);
		if (cb(&j, arg) != 0)
			break;
	}
	return store_q_end(&r);
}

enum store_rc
store_job_list(struct store *s, store_job_cb cb, void *arg)
{
	return jobs(s, STMT_JOB_LIST, cb, arg);
}

enum store_rc
store_job_overview(struct store *s, store_job_cb cb, void *arg)
{
	return jobs(s, STMT_JOB_OVERVIEW, cb, arg);
}

/* --- Checkpoints --- */

enum store_rc
store_ckpt_counts(struct store *s, const struct id *job, struct ckpt_counts *c)
{
	struct store_val v[] = { VAL_TEXT(job->s) };

	memset(c, 0, sizeof(*c));
	return store_q_one_row(s, STMT_CKPT_COUNTS, v, NVAL(v),
	    "checkpoint counts", "iiiiiii", &c->timeout_s, &c->completed,
	    &c->failed, &c->duration_min, &c->duration_max, &c->duration_sum,
	    &c->in_progress);
}

static enum ckpt_status
ckpt_status(const char *status)
{
	if (status != NULL && strcmp(status, "COMPLETED") == 0)
		return CKPT_COMPLETED;
	if (status != NULL && strcmp(status, "FAILED") == 0)
		return CKPT_FAILED;
	return CKPT_IN_PROGRESS;
}

/*
 * Rows of the checkpoints view to cb: STORE_NOTFOUND if there were none
 * and notfound says so.
 */
static enum store_rc
ckpt_rows(struct store *s, enum stmt id, const struct store_val *v, int n,
    store_ckpt_cb cb, void *arg, int notfound)
{
	struct store_rows r;
	struct ckpt c;
	int64_t rows = 0;

	if (store_q_query(s, &r, id, v, n, "read checkpoints") != STORE_OK)
		return store_q_end(&r);
	while (store_q_next_row(&r, &c, sizeof(c), "i-iiittt-t", &c.id,
	    &c.trigger_ms, &c.end_ms, &c.duration_ms, &c.location,
	    &c.failure_class, &c.failure_trace, &c.format)) {
		c.status = ckpt_status(store_q_text(&r, 1));
		c.kind = (enum ckpt_kind)store_q_int(&r, 8);
		rows++;
		if (cb(&c, arg) != 0)
			break;
	}
	if (store_q_end(&r) != STORE_OK)
		return r.rc;
	return notfound && rows == 0 ? STORE_NOTFOUND : STORE_OK;
}

/* The job's latest completed savepoint, if any. */
enum store_rc
store_savepoint_latest(struct store *s, const struct id *job, store_ckpt_cb cb,
    void *arg)
{
	struct store_val v[] = { VAL_TEXT(job->s) };

	return ckpt_rows(s, STMT_SP_LATEST, v, NVAL(v), cb, arg, 0);
}

enum store_rc
store_ckpt_latest(struct store *s, const struct id *job, store_ckpt_cb cb,
    void *arg)
{
	struct store_val v[] = { VAL_TEXT(job->s) };

	return ckpt_rows(s, STMT_CKPT_LATEST, v, NVAL(v), cb, arg, 0);
}

enum store_rc
store_ckpt_history(struct store *s, const struct id *job, int64_t limit,
    store_ckpt_cb cb, void *arg)
{
	struct store_val v[] = { VAL_TEXT(job->s), VAL_INT(limit) };

	return ckpt_rows(s, STMT_CKPT_HISTORY, v, NVAL(v), cb, arg, 0);
}

enum store_rc
store_ckpt_get(struct store *s, const struct id *job, int64_t id,
    store_ckpt_cb cb, void *arg)
{
	struct store_val v[] = { VAL_TEXT(job->s), VAL_INT(id) };

	return ckpt_rows(s, STMT_CKPT_GET, v, NVAL(v), cb, arg, 1);
}

enum store_rc
store_ckpt_durations(struct store *s, const struct id *job, size_t max,
    int64_t *durations, size_t *n)
{
	struct store_val v[] = { VAL_TEXT(job->s), VAL_INT((int64_t)max) };
	struct store_rows r;

	*n = 0;
	if (store_q_query(s, &r, STMT_CKPT_DURATIONS, v, NVAL(v),
		"read durations") == STORE_OK)
		while (*n < max && store_q_next(&r))
			durations[(*n)++] = store_q_int(&r, 0);
	return store_q_end(&r);
}

/* --- Triggers, as listed --- */

static enum store_rc
trigger_rows(struct store *s, enum stmt id, const struct id *job, int64_t limit,
    store_trigger_cb cb, void *arg)
{
	struct store_val v[] = { VAL_TEXT(job != NULL ? job->s : NULL),
		VAL_INT(limit) };
	struct store_rows r;
	struct trigger_row t;

	if (store_q_query(s, &r, id, v, NVAL(v), "list triggers") != STORE_OK)
		return store_q_end(&r);
	while (
	    store_q_next_row(&r, &t, sizeof(t), "ddtttittttttiii", &t.job,
		&t.trigger, &t.status, &t.requested_type, &t.type,
		&t.checkpoint_id, &t.location, &t.failure_class,
		&t.failure_trace, &t.claimed_by, &t.remote_user, &t.remote_addr,
		&t.created_ms, &t.completed_ms, &t.claimed_ms) &&
	    cb(&t, arg) == 0)
		;
	return store_q_end(&r);
}

enum store_rc
store_trigger_list(struct store *s, const struct id *job, int64_t limit,
    store_trigger_cb cb, void *arg)
{
	return trigger_rows(s,
	    job != NULL ? STMT_TRIGGER_LIST_JOB : STMT_TRIGGER_LIST, job, limit,
	    cb, arg);
}

enum store_rc
store_trigger_recent(struct store *s, const struct id *job, int64_t limit,
    store_trigger_cb cb, void *arg)
{
	return trigger_rows(s, STMT_TRIGGER_RECENT, job, limit, cb, arg);
}

enum store_rc
store_trigger_waiting(struct store *s, const struct id *job, int64_t *n,
    int64_t *oldest_ms, int64_t *pass_ms)
{
	struct store_val v[] = { VAL_TEXT(job->s) };
	enum store_rc rc;

	*n = 0;
	*oldest_ms = 0;
	*pass_ms = 0;
	rc = store_q_one_row(s, STMT_TRIGGER_WAITING, v, NVAL(v),
	    "count waiting triggers", "iii", n, oldest_ms, pass_ms);
	return rc == STORE_NOTFOUND ? STORE_OK : rc;
}

enum store_rc
store_queue_drift(struct store *s, int64_t *n)
{
	*n = 0;
	return store_q_one_row(s, STMT_QUEUE_DRIFT, NULL, 0,
	    "count queue drift", "i", n);
}

/* --- Metrics --- */

/* The service's row of GET /metrics; the caller holds the transaction. */
static enum store_rc
metrics_service(struct store *s, struct service_metrics *m)
{
	enum store_rc rc;

	rc = store_q_one_row(s, STMT_METRICS_SERVICE, NULL, 0, "read metrics",
	    "iiiiiiiiiii", &m->queued, &m->oldest_queued_ms, &m->claimed,
	    &m->completed, &m->declined, &m->expired, &m->job_not_found,
	    &m->pass_ms, &m->pass_advanced, &m->pass_duration_ms,
	    &m->queue_refused);
	/* The row the schema made is gone. */
	return rc != STORE_NOTFOUND ?
	    rc :
	    s->ops->fail(s, "read metrics", "no service_metrics row");
}

/* The jobs' rows of GET /metrics; the caller holds the transaction. */
static enum store_rc
metrics_jobs(struct store *s, store_metrics_cb cb, void *arg)
{
	struct store_rows r;
	struct job_metrics j;

	if (store_q_query(s, &r, STMT_METRICS_JOBS, NULL, 0,
		"read job metrics") != STORE_OK)
		return store_q_end(&r);
	while (store_q_next_row(&r, &j, sizeof(j), "dtiiiii", &j.job, &j.name,
		   &j.completed, &j.failed, &j.in_progress, &j.last_id,
		   &j.last_duration_ms) &&
	    cb(&j, arg) == 0)
		;
	return store_q_end(&r);
}

enum store_rc
store_metrics(struct store *s, struct service_metrics *m, store_metrics_cb cb,
    void *arg)
{
	enum store_rc rc;

	memset(m, 0, sizeof(*m));
	if ((rc = store_read_begin(s)) != STORE_OK)
		return rc;
	/* No cb: the service's figures alone (the fleet's /metrics). */
	if ((rc = metrics_service(s, m)) == STORE_OK && cb != NULL)
		rc = metrics_jobs(s, cb, arg);
	return store_q_settle(s, rc);
}

enum store_rc
store_record_pass(struct store *s, int64_t now_ms, int64_t n,
    int64_t duration_ms, int64_t every_ms)
{
	struct store_val v[] = { VAL_INT(now_ms), VAL_INT(n),
		VAL_INT(duration_ms), VAL_INT(every_ms) };

	return store_q_run(s, STMT_RUNNER_PASS, v, NVAL(v),
	    "record the runner's pass", NULL);
}

/* --- Jobs bound to a Flink JobManager --- */

enum store_rc
store_job_flink(struct store *s, const struct id *job, const char *url,
    int64_t now_ms)
{
	struct store_val v[] = { VAL_TEXT(job->s), VAL_TEXT(url),
		VAL_INT(now_ms) };

	return store_q_run_one(s, STMT_JOB_FLINK_SET, v, NVAL(v),
	    "bind job to Flink");
}
