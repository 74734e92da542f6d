/*
 * The store's side of the API's POSTs and status reads: a checkpoint
 * trigger, a savepoint or stop and a disposal recorded (one at a time,
 * or a committer's batch in one transaction or one pipelined send), each
 * bounded by its job's queue, and their status answers, alone or read
 * together.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "failure.h"
#include "store_impl.h"
#include "throwable.h"

/* --- The API's two operations --- */

/*
 * A batch sent as the committer sends one, and its outcome waited for:
 * a server's driver sends it down its pipeline (which also wakes the
 * watching runners), a file's records it at once in one transaction.
 */
static enum store_rc
record_batch(struct store *s, const struct trigger_rec *const *t,
    const struct savepoint_rec *const *sp, size_t n, int *created)
{
	enum store_rc rc;

	memset(created, 0, n * sizeof(*created));
	if ((rc = store_record_send(s, t, sp, n)) != STORE_OK)
		return rc;
	return store_record_recv(s, created);
}

/*
 * A new trigger, or a fresh start for one whose result has expired: a
 * batch of one.
 */
enum store_rc
store_record_trigger(struct store *s, const struct trigger_rec *t, int *created)
{
	return record_batch(s, &t, NULL, 1, created);
}

/*
 * A job's queue is bounded as Flink bounds its queued checkpoint
 * requests: a trigger past it is answered 202 as any, and is recorded
 * already failed, with Flink's exception for it.  What is queued stays.
 */
int
store_queue_full_trace(struct buf *b, int64_t max_queued)
{
	return buf_printf(b,
	    "%s: %s\n\tat checkpoint-api (the job has %lld triggers "
	    "waiting: CHECKPOINT_MAX_QUEUED)\n",
	    FAIL_CKPT_CLASS, FAIL_QUEUE_FULL, (long long)max_queued);
}

/*
 * The status answer, rendered by the trigger_status view so that the API
 * and the operator's SQL shell can never disagree.
 */
enum store_rc
store_read_status(struct store *s, const struct id *job,
    const struct id *trigger, int64_t now_ms, int64_t store_ms,
    struct buf *json)
{
	struct store_val v[] = { VAL_TEXT(job->s), VAL_TEXT(trigger->s),
		VAL_INT(now_ms), VAL_INT(store_ms) };

	return store_q_first_text(s, STMT_STATUS, v, NVAL(v), "read status",
	    json);
}

/*
 * The reads of r[] of one kind (savepoint or not) in one statement of
 * the dialect's: the reads' job ids and trigger ids as two arrays
 * (nothing quoted: ids are hex), each row a read's place in them, from
 * 1, and its answer.
 */
static enum store_rc
read_together(struct store *s, struct status_read *const *r, size_t n,
    int savepoint, int64_t store_ms)
{
	struct buf jobs = { 0 }, triggers = { 0 };
	struct store_rows q = { .rc = STORE_OK };
	const char *json;
	size_t i, m = 0, *at;
	int64_t k;
	int bad;

	if ((at = calloc(n, sizeof(*at))) == NULL)
		return s->ops->fail(s, "read statuses", "out of memory");
	bad = buf_adds(&jobs, "{") != 0 || buf_adds(&triggers, "{") != 0;
	for (i = 0; i < n; i++)
		if (r[i]->savepoint == savepoint) {
			bad |= store_id_array_add(&jobs, r[i]->job->s) != 0 ||
			    store_id_array_add(&triggers, r[i]->trigger->s) !=
				0;
			at[m++] = i;
		}
	bad |= buf_adds(&jobs, "}") != 0 || buf_adds(&triggers, "}") != 0;
	if (m > 0 && bad)
		q.rc = s->ops->fail(s, "read statuses", "out of memory");
	else if (m > 0) {
		struct store_val v[] = { VAL_TEXT(buf_str(&jobs)),
			VAL_TEXT(buf_str(&triggers)), VAL_INT(store_ms) };

		if (store_q_query(s, &q,
			savepoint ? STMT_SP_STATUSES : STMT_STATUSES, v,
			savepoint ? 2 : 3, "read statuses") == STORE_OK) {
			for (i = 0; i < m; i++)
				r[at[i]]->rc = STORE_NOTFOUND;
			while (q.rc == STORE_OK && store_q_next(&q)) {
				k = store_q_int(&q, 0);
				if (k < 1 || (size_t)k > m) {
					q.rc = s->ops->fail(s, "read statuses",
					    "a row of no read");
					break;
				}
				/* A NULL answer is empty, as a read alone's. */
				if ((json = store_q_text(&q, 1)) != NULL &&
				    buf_adds(r[at[k - 1]]->json, json) != 0)
					q.rc = s->ops->fail(s, "read statuses",
					    "out of memory");
				else
					r[at[k - 1]]->rc = STORE_OK;
			}
		}
		store_q_end(&q);
	}
	buf_free(&jobs);
	buf_free(&triggers);
	free(at);
	return q.rc;
}

/*
 * Where the dialect has a statement for several reads, one of each
 * kind; else one by one.
 */
enum store_rc
store_read_statuses(struct store *s, struct status_read *const *r, size_t n,
    int64_t now_ms, int64_t store_ms)
{
	enum store_rc rc;
	size_t i;

	if (store_sql_text(s->ops->sql, STMT_STATUSES) != NULL) {
		if ((rc = read_together(s, r, n, 0, store_ms)) != STORE_OK)
			return rc;
		return read_together(s, r, n, 1, store_ms);
	}
	for (i = 0; i < n; i++) {
		rc = r[i]->savepoint ?
		    store_read_savepoint_status(s, r[i]->job, r[i]->trigger,
			r[i]->json) :
		    store_read_status(s, r[i]->job, r[i]->trigger, now_ms,
			store_ms, r[i]->json);
		if (rc != STORE_OK && rc != STORE_NOTFOUND)
			return rc;
		r[i]->rc = rc;
	}
	return STORE_OK;
}

/* --- Savepoints, stops and disposals --- */

enum store_rc
store_job_savepoint_dir(struct store *s, const struct id *job, struct buf *dir)
{
	struct store_val v[] = { VAL_TEXT(job->s) };

	return store_q_first_text(s, STMT_SP_DIR, v, NVAL(v),
	    "savepoint directory", dir);
}

/*
 * What a post past its job's queue bound is failed with: a trigger with
 * the coordinator's failure (store_queue_full_trace); a savepoint or a
 * stop with it inside the scheduler's CompletionException, as
 * store_savepoint_complete makes every savepoint failure, and its
 * serialized-throwable where the C code makes it.  -1: out of memory.
 */
struct queue_full {
	struct buf trace; /* a trigger's */
	struct buf sp_trace, sp_throwable; /* a savepoint's or a stop's */
};

static int
queue_full_make(struct store *s, int64_t max_queued, struct queue_full *q)
{
	memset(q, 0, sizeof(*q));
	if (store_queue_full_trace(&q->trace, max_queued) == 0 &&
	    throwable_completion(&q->sp_trace, FAIL_CKPT_CLASS,
		buf_str(&q->trace)) == 0 &&
	    store_failure_throwable(s, THROWABLE_COMPLETION_CLASS,
		buf_str(&q->sp_trace), &q->sp_throwable) == 0)
		return 0;
	buf_free(&q->trace);
	buf_free(&q->sp_trace);
	buf_free(&q->sp_throwable);
	return -1;
}

static void
queue_full_free(struct queue_full *q)
{
	buf_free(&q->trace);
	buf_free(&q->sp_trace);
	buf_free(&q->sp_throwable);
}

/*
 * STMT_SP_RECORD's (and STMT_SP_QUEUE's) values for sp: its own, then its
 * job's queue bound and q, what it is failed with past it.
 */
static void
savepoint_vals(const struct savepoint_rec *sp, const struct queue_full *q,
    struct store_val *v)
{
	const struct store_val vals[STORE_POST_NVAL] = { VAL_TEXT(sp->job.s),
		VAL_TEXT(sp->trigger.s),
		VAL_TEXT(sp->stop ? "STOP" : "SAVEPOINT"),
		VAL_TEXT(sp->target_dir),
		VAL_TEXT(sp->native ? "NATIVE" : "CANONICAL"),
		VAL_INT(sp->cancel_job != 0), VAL_INT(sp->drain != 0),
		VAL_TEXT(sp->remote_user), VAL_TEXT(sp->remote_addr),
		VAL_INT(sp->now_ms), VAL_INT(sp->max_queued),
		VAL_TEXT(THROWABLE_COMPLETION_CLASS), VAL_TEXT(q->sp_trace.p),
		VAL_TEXT(q->sp_throwable.p) };

	memcpy(v, vals, sizeof(vals));
}

enum store_rc
store_record_savepoint(struct store *s, const struct savepoint_rec *sp,
    int *created)
{
	struct store_val v[STORE_POST_NVAL];
	struct queue_full q;
	enum store_rc rc;
	int64_t changed = 0;

	*created = 0;
	if (queue_full_make(s, sp->max_queued, &q) == -1)
		return s->ops->fail(s, "record savepoint", "out of memory");
	savepoint_vals(sp, &q, v);
	rc = store_q_run(s, STMT_SP_RECORD, v, STORE_POST_NVAL,
	    "record savepoint", &changed);
	queue_full_free(&q);
	if (rc == STORE_OK)
		*created = changed > 0;
	return rc;
}

/* STMT_RECORD's values for t, and q what it is failed with past it. */
static void
trigger_vals(const struct trigger_rec *t, const struct queue_full *q,
    struct store_val *v)
{
	const struct store_val vals[STORE_TRIGGER_NVAL] = { VAL_TEXT(t->job.s),
		VAL_TEXT(t->trigger.s), VAL_TEXT(ckpt_type_name(t->type)),
		VAL_INT(t->now_ms), VAL_TEXT(t->remote_user),
		VAL_TEXT(t->remote_addr), VAL_INT(t->store_ms),
		VAL_INT(t->max_queued), VAL_TEXT(FAIL_CKPT_CLASS),
		VAL_TEXT(q->trace.p) };

	memcpy(v, vals, sizeof(vals));
}

/*
 * The values of a batch's posts, each as the statement of its kind
 * records one (a trigger t[i]: STMT_RECORD; else the savepoint sp[i]:
 * STMT_SP_RECORD), the i-th at i * STORE_POST_NVAL.
 */
static struct store_val *
posts_vals(const struct trigger_rec *const *t,
    const struct savepoint_rec *const *sp, size_t n, const struct queue_full *q)
{
	struct store_val *v;
	size_t i;

	if ((v = calloc(n * STORE_POST_NVAL, sizeof(*v))) == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if (t[i] != NULL)
			trigger_vals(t[i], q, &v[i * STORE_POST_NVAL]);
		else if (sp != NULL && sp[i] != NULL)
			savepoint_vals(sp[i], q, &v[i * STORE_POST_NVAL]);
	return v;
}

/* The queue bound of a batch's posts: the service's, one for all. */
static int64_t
posts_bound(const struct trigger_rec *const *t,
    const struct savepoint_rec *const *sp, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i] != NULL)
			return t[i]->max_queued;
		else if (sp != NULL && sp[i] != NULL)
			return sp[i]->max_queued;
	return 0;
}

enum store_rc
store_record_send(struct store *s, const struct trigger_rec *const *t,
    const struct savepoint_rec *const *sp, size_t n)
{
	struct store_val *v;
	struct queue_full q;
	enum store_rc rc;

	if (n == 0)
		return STORE_ERROR;
	if (queue_full_make(s, posts_bound(t, sp, n), &q) == -1)
		return s->ops->fail(s, "record triggers", "out of memory");
	if ((v = posts_vals(t, sp, n, &q)) == NULL) {
		queue_full_free(&q);
		return s->ops->fail(s, "record triggers", "out of memory");
	}
	rc = s->ops->record_send(s, t, v, STORE_POST_NVAL, n);
	queue_full_free(&q);
	free(v);
	return rc;
}

enum store_rc
store_record_posts(struct store *s, const struct trigger_rec *const *t,
    const struct savepoint_rec *const *sp, size_t n, int *created)
{
	return record_batch(s, t, sp, n, created);
}

enum store_rc
store_read_savepoint_status(struct store *s, const struct id *job,
    const struct id *trigger, struct buf *json)
{
	struct store_val v[] = { VAL_TEXT(job->s), VAL_TEXT(trigger->s) };

	return store_q_first_text(s, STMT_SP_STATUS, v, NVAL(v),
	    "read savepoint status", json);
}

enum store_rc
store_record_disposal(struct store *s, const struct id *trigger,
    const char *path, const char *remote_user, const char *remote_addr,
    const char *reason, int64_t now_ms, struct id *out, int *created)
{
	struct store_val v[] = { VAL_TEXT(trigger->s), VAL_TEXT(path),
		VAL_TEXT(remote_user), VAL_TEXT(remote_addr), VAL_INT(now_ms),
		VAL_TEXT(reason) };
	struct store_val key[] = { VAL_TEXT(path) };
	enum store_rc rc;
	int64_t changed = 0;

	*created = 0;
	if ((rc = store_begin(s)) != STORE_OK)
		return rc;
	rc = store_q_run(s, STMT_DISPOSAL_RECORD, v, NVAL(v), "record disposal",
	    &changed);
	if (rc == STORE_OK)
		rc = store_q_one_row(s, STMT_DISPOSAL_ID, key, NVAL(key),
		    "disposal id", "d", out);
	if (rc == STORE_NOTFOUND)
		rc = s->ops->fail(s, "record disposal", "its row is missing");
	if (rc == STORE_OK)
		*created = changed > 0;
	return store_q_settle(s, rc);
}

enum store_rc
store_read_disposal_status(struct store *s, const struct id *trigger,
    struct buf *json)
{
	struct store_val v[] = { VAL_TEXT(trigger->s) };

	return store_q_first_text(s, STMT_DISPOSAL_STATUS, v, NVAL(v),
	    "read disposal status", json);
}
