/*
 * The runner's savepoints, stops and disposals: the tasks waiting, their
 * claims, renewals and completions, a disposal marking what it removed;
 * and the savepoints as listed.
 */
#include <config.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "failure.h"
#include "store_impl.h"
#include "throwable.h"

/* --- The runner's savepoints and disposals --- */

/*
 * The runner's two kinds of task, savepoints (stops too) and disposals,
 * read and freed alike: the statement of those pending, the size of a
 * task, how a row becomes one, and the strings it owns.
 */
struct task_kind {
	enum stmt pending;
	const char *what;
	size_t size;
	int (*read)(const struct store_rows *, void *);
	size_t owned[3];
};

static int
savepoint_task(const struct store_rows *r, void *task)
{
	struct savepoint_task *e = task;

	return store_q_cols(r, "iddbcbbbbbcibcb", &e->row, &e->job, &e->trigger,
	    &e->stop, &e->target_dir, &e->native, &e->cancel_job, &e->drain,
	    &e->job_known, &e->job_running, &e->command, &e->timeout_s,
	    &e->job_busy, &e->flink_url, &e->bookkeeping);
}

static int
disposal_task(const struct store_rows *r, void *task)
{
	struct disposal_task *e = task;

	e->job_found = store_q_text(r, 3) != NULL;
	return store_q_cols(r, "idcdcici", &e->row, &e->trigger, &e->path,
	    &e->job, &e->command, &e->timeout_s, &e->flink_url, &e->scope);
}

static const struct task_kind savepoint_tasks = { STMT_SP_PENDING,
	"pending savepoints", sizeof(struct savepoint_task), savepoint_task,
	{ offsetof(struct savepoint_task, target_dir),
	    offsetof(struct savepoint_task, command),
	    offsetof(struct savepoint_task, flink_url) } };
static const struct task_kind disposal_tasks = { STMT_DISPOSAL_PENDING,
	"pending disposals", sizeof(struct disposal_task), disposal_task,
	{ offsetof(struct disposal_task, path),
	    offsetof(struct disposal_task, command),
	    offsetof(struct disposal_task, flink_url) } };

static void
tasks_free(const struct task_kind *k, void *t, size_t n)
{
	char **owned;
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < 3; j++) {
			owned = (char **)((char *)t + i * k->size +
			    k->owned[j]);
			free(*owned);
			*owned = NULL;
		}
}

/* Up to max pending tasks of the kind into t; on failure none is kept. */
static enum store_rc
tasks_pending(struct store *s, const struct task_kind *k, void *t, size_t max,
    size_t *n)
{
	struct store_val v[] = { VAL_INT((int64_t)max) };
	struct store_rows r;
	void *e;

	*n = 0;
	if (store_q_query(s, &r, k->pending, v, NVAL(v), k->what) == STORE_OK)
		while (*n < max && store_q_next(&r)) {
			e = (char *)t + (*n)++ * k->size;
			memset(e, 0, k->size);
			if (k->read(&r, e) == -1) {
				r.rc = STORE_ERROR;
				break;
			}
		}
	if (store_q_end(&r) != STORE_OK) {
		tasks_free(k, t, *n);
		*n = 0;
	}
	return r.rc;
}

enum store_rc
store_savepoints_pending(struct store *s, struct savepoint_task *t, size_t max,
    size_t *n)
{
	return tasks_pending(s, &savepoint_tasks, t, max, n);
}

enum store_rc
store_savepoint_claim(struct store *s, int64_t row, const char *owner,
    int64_t checkpoint_id, int64_t now_ms, int64_t lease_ms)
{
	struct store_val v[] = { VAL_INT(row), VAL_TEXT(owner),
		VAL_INT_OR_NULL(checkpoint_id, checkpoint_id <= 0),
		VAL_INT(now_ms), VAL_INT(lease_ms - now_ms) };

	return store_q_run_one(s, STMT_SP_CLAIM, v, NVAL(v), "claim savepoint");
}

void
store_savepoint_tasks_free(struct savepoint_task *t, size_t n)
{
	tasks_free(&savepoint_tasks, t, n);
}

enum store_rc
store_disposals_pending(struct store *s, struct disposal_task *t, size_t max,
    size_t *n)
{
	return tasks_pending(s, &disposal_tasks, t, max, n);
}

void
store_disposal_tasks_free(struct disposal_task *t, size_t n)
{
	tasks_free(&disposal_tasks, t, n);
}

enum store_rc
store_disposal_claim(struct store *s, int64_t row, const char *owner,
    int64_t now_ms, int64_t lease_ms)
{
	struct store_val v[] = { VAL_INT(row), VAL_TEXT(owner), VAL_INT(now_ms),
		VAL_INT(lease_ms - now_ms) };

	return store_q_run_one(s, STMT_DISPOSAL_CLAIM, v, NVAL(v),
	    "claim disposal");
}

/*
 * Completes a claimed savepoint or disposal: v holds its statement's
 * first nv values, the task's own, and room after them for the
 * outcome's (the failure, if any, with its trace and
 * serialized-throwable), the time and the owner.
 */
#define OUTCOME_NVAL 5
static enum store_rc
task_complete(struct store *s, enum stmt id, const char *what,
    struct store_val *v, int nv, const char *owner, const char *class,
    const char *trace, int64_t now_ms)
{
	struct buf th = { 0 };
	enum store_rc rc;

	if (class != NULL && trace == NULL)
		trace = "";
	if (store_failure_throwable(s, class, trace, &th) == -1) {
		buf_free(&th);
		return STORE_ERROR;
	}
	{
		const struct store_val outcome[OUTCOME_NVAL] = {
			VAL_TEXT(class), VAL_TEXT(class != NULL ? trace : NULL),
			VAL_TEXT(th.len > 0 ? buf_str(&th) : NULL),
			VAL_INT(now_ms), VAL_TEXT(owner)
		};

		memcpy(v + nv, outcome, sizeof(outcome));
		rc = store_q_run_one(s, id, v, nv + OUTCOME_NVAL, what);
	}
	buf_free(&th);
	return rc;
}

/*
 * A savepoint's or a stop's failure is the coordinator's inside the
 * scheduler's CompletionException (throwable_completion), as a
 * JobManager sends it; a failure already whole (a bound JobManager's, an
 * unknown job's) is kept as it is.
 */
enum store_rc
store_savepoint_complete(struct store *s, int64_t row, const char *owner,
    int64_t checkpoint_id, const char *location, const char *failure_class,
    const char *failure_trace, int64_t now_ms)
{
	struct store_val v[3 + OUTCOME_NVAL] = { VAL_INT(row),
		VAL_INT_OR_NULL(checkpoint_id, checkpoint_id <= 0),
		VAL_TEXT(failure_class == NULL ? location : NULL) };
	struct buf wrapped = { 0 };
	enum store_rc rc;

	if (failure_class != NULL &&
	    strcmp(failure_class, FAIL_CKPT_CLASS) == 0) {
		if (throwable_completion(&wrapped, failure_class,
			failure_trace != NULL ? failure_trace : "") == -1) {
			buf_free(&wrapped);
			return s->ops->fail(s, "complete savepoint",
			    "out of memory");
		}
		failure_class = THROWABLE_COMPLETION_CLASS;
		failure_trace = buf_str(&wrapped);
	}
	rc = task_complete(s, STMT_SP_COMPLETE, "complete savepoint", v, 3,
	    owner, failure_class, failure_trace, now_ms);
	buf_free(&wrapped);
	return rc;
}

enum store_rc
store_savepoint_end_job(struct store *s, const struct id *job,
    const char *state, int64_t now_ms)
{
	struct store_val v[] = { VAL_TEXT(job->s), VAL_TEXT(state),
		VAL_INT(now_ms) };

	return store_q_run(s, STMT_SP_END_JOB, v, NVAL(v), "end job", NULL);
}

enum store_rc
store_disposal_complete(struct store *s, int64_t row, const char *owner,
    const char *path, const char *failure_class, const char *failure_trace,
    int64_t now_ms)
{
	struct store_val v[1 + OUTCOME_NVAL] = { VAL_INT(row) };
	struct store_val mark[] = { VAL_TEXT(path), VAL_INT(now_ms) };
	enum store_rc rc;

	rc = task_complete(s, STMT_DISPOSAL_COMPLETE, "complete disposal", v, 1,
	    owner, failure_class, failure_trace, now_ms);
	if (rc == STORE_OK && failure_class == NULL)
		rc = store_q_run(s, STMT_DISPOSAL_MARK, mark, NVAL(mark),
		    "mark disposed", NULL);
	/* A checkpoint's path (retention), marked in the history. */
	if (rc == STORE_OK && failure_class == NULL)
		rc = store_q_run(s, STMT_DISPOSAL_MARK_HISTORY, mark,
		    NVAL(mark), "mark disposed", NULL);
	return rc;
}

enum store_rc
store_op_claims(struct store *s, int disposals, int64_t now_ms,
    store_op_claim_cb cb, void *arg)
{
	struct store_val v[] = { VAL_INT(now_ms) };
	struct store_rows r;
	struct op_claim c;

	if (store_q_query(s, &r,
		disposals ? STMT_DISPOSAL_CLAIMS : STMT_SP_CLAIMS, v, NVAL(v),
		"read claims") == STORE_OK)
		while (store_q_next_row(&r, &c, sizeof(c), "iddtb", &c.row,
		    &c.job, &c.trigger, &c.owner, &c.expired)) {
			if (c.owner != NULL && cb(&c, arg) != 0)
				break;
		}
	return store_q_end(&r);
}

/* Renews a savepoint's (disposals 0) or a disposal's claim of owner. */
enum store_rc
store_op_renew(struct store *s, int disposals, int64_t row, const char *owner,
    int64_t now_ms, int64_t lease_ms)
{
	struct store_val v[] = { VAL_INT(row), VAL_TEXT(owner),
		VAL_INT(lease_ms), VAL_INT(lease_ms - now_ms) };

	return store_q_run_one(s,
	    disposals ? STMT_DISPOSAL_RENEW : STMT_SP_RENEW, v, NVAL(v),
	    "renew claim");
}

enum store_rc
store_savepoint_list(struct store *s, const struct id *job,
    store_savepoint_cb cb, void *arg)
{
	struct store_val v[] = { VAL_TEXT(job != NULL ? job->s : NULL) };
	struct store_rows r;
	struct savepoint_row e;

	if (store_q_query(s, &r, STMT_SP_LIST, v, NVAL(v), "list savepoints") ==
	    STORE_OK)
		while (store_q_next_row(&r, &e, sizeof(e),
			   "ddttittbbtttiiiitti", &e.job, &e.trigger, &e.kind,
			   &e.status, &e.checkpoint_id, &e.target_dir,
			   &e.format, &e.cancel_job, &e.drain, &e.location,
			   &e.failure_class, &e.failure_trace, &e.created_ms,
			   &e.claimed_ms, &e.completed_ms, &e.disposed_ms,
			   &e.remote_user, &e.remote_addr, &e.kept_ms) &&
		    cb(&e, arg) == 0)
			;
	return store_q_end(&r);
}
