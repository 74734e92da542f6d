/*
 * The runner's round of checkpoint triggers: the range a round takes,
 * the jobs it locks where rounds run beside other hosts', the triggers
 * it completes at once or claims under a lease, their completion, the
 * claims it judges, and the triggers of jobs that cannot run.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "store_impl.h"

/*
 * Completes a pending trigger.  owner is the claim it must carry (NULL: an
 * unclaimed trigger).  STORE_NOTFOUND: it was not pending with that claim
 * any more (another runner resolved it); nothing changed.  A failure's
 * serialized-throwable is made here unless the dialect's SQL makes it;
 * a dialect's statement may answer how many it completed as its row.
 * store_complete_flink's statement (id) takes the failure's
 * serialized-throwable as given (throwable, NULL: made likewise).
 */
static enum store_rc
complete_row(struct store *s, enum stmt id, int64_t row, const char *owner,
    const struct outcome *o, const char *throwable, int64_t now_ms)
{
	struct buf th = { 0 };
	const char *class = o->failure_class, *trace = NULL;
	struct store_rows r;
	int64_t done = 0;

	if (class != NULL)
		trace = o->failure_trace != NULL ? o->failure_trace : "";
	else
		throwable = NULL;
	if (throwable == NULL &&
	    store_failure_throwable(s, class, trace, &th) == -1) {
		buf_free(&th);
		return STORE_ERROR;
	}
	if (throwable == NULL && th.len > 0)
		throwable = buf_str(&th);
	{
		struct store_val v[] = { VAL_INT(row),
			VAL_INT_OR_NULL(o->checkpoint_id,
			    o->checkpoint_id <= 0),
			VAL_TEXT(o->checkpoint_id > 0 ?
				ckpt_type_name(o->type) :
				NULL),
			VAL_TEXT(class == NULL ? o->location : NULL),
			VAL_TEXT(class), VAL_TEXT(trace), VAL_INT(now_ms),
			VAL_TEXT(owner), VAL_TEXT(throwable) };

		if (store_q_query(s, &r, id, v, NVAL(v), "complete trigger") ==
		    STORE_OK)
			done = store_q_next(&r) ? store_q_int(&r, 0) :
						  r.s->ops->changes(&r);
	}
	buf_free(&th);
	if (store_q_end(&r) != STORE_OK)
		return r.rc;
	return done > 0 ? STORE_OK : STORE_NOTFOUND;
}

enum store_rc
store_complete(struct store *s, int64_t row, const char *owner,
    const struct outcome *o, int64_t now_ms)
{
	return complete_row(s, STMT_COMPLETE, row, owner, o, NULL, now_ms);
}

/*
 * Every claimed, still pending trigger, for the caller to judge.  Each
 * dialect reads a lease as the time it has left by the clock it stored
 * it by (SQLite: the caller's now, given; PostgreSQL: the server's),
 * handed over on the caller's clock (CLOCK_REALTIME): the runner's
 * "lease_ms > now" then means "not over by the store's clock", however
 * far the server's clock is from the caller's.
 */
enum store_rc
store_claimed(struct store *s, store_claim_cb cb, void *arg)
{
	int64_t now = clock_ms(CLOCK_REALTIME);
	struct store_val v[] = { VAL_INT(now) };
	struct store_rows r;
	struct claim c;
	const char *owner;

	if (store_q_query(s, &r, STMT_CLAIMED, v, NVAL(v), "read claims") !=
	    STORE_OK)
		return store_q_end(&r);
	while (store_q_next(&r)) {
		memset(&c, 0, sizeof(c));
		c.type = CKPT_FULL;
		store_q_cols(&r, "iddtiiT", &c.row, &c.job, &c.trigger, &owner,
		    &c.lease_ms, &c.checkpoint_id, &c.type);
		snprintf(c.owner, sizeof(c.owner), "%s",
		    owner != NULL ? owner : "");
		c.lease_ms += now;
		if (cb(&c, arg) != 0)
			break;
	}
	return store_q_end(&r);
}

/* --- The runner's round --- */

/*
 * The round's statements name the jobs they may decide (a value left
 * NULL here): a driver whose rounds run beside other hosts' locks the
 * jobs of the round's range, and gives them (PostgreSQL's round locks);
 * SQLite's transactions lock the whole database, and take none.
 */

/*
 * The next round's range: *upto is the last of the next max pending
 * unclaimed triggers after after_row, *count how many there are (0:
 * none).
 */
enum store_rc
store_pending_bound(struct store *s, int64_t after_row, size_t max,
    int64_t *upto, size_t *count)
{
	struct store_val v[] = { VAL_INT(after_row), VAL_INT((int64_t)max) };
	struct store_rows r;

	*upto = after_row;
	*count = 0;
	/* max(id) of no rows is NULL: no range. */
	if (store_q_query(s, &r, STMT_PENDING_BOUND, v, NVAL(v),
		"pending range") == STORE_OK &&
	    store_q_next(&r) && store_q_text(&r, 0) != NULL) {
		*upto = store_q_int(&r, 0);
		*count = (size_t)store_q_int(&r, 1);
	}
	return store_q_end(&r);
}

/*
 * In (after, upto]: completes every pending trigger of a RUNNING job
 * without a command (of the jobs the round locked, where rounds lock),
 * handing out each job's next ids in arrival order and moving its
 * counter past them, in the dialect's second statement if it has one;
 * *n is how many.  The caller holds the transaction.
 */
enum store_rc
store_complete_plain(struct store *s, int64_t after, int64_t upto,
    int64_t now_ms, int64_t *n)
{
	struct store_val v[] = { VAL_INT(after), VAL_INT(upto), VAL_INT(now_ms),
		VAL_TEXT(NULL) };
	struct store_rows r;

	*n = 0;
	if (store_q_query(s, &r, STMT_COMPLETE_PLAIN, v, NVAL(v),
		"complete plain triggers") == STORE_OK)
		*n = store_q_next(&r) ? store_q_int(&r, 0) :
					r.s->ops->changes(&r);
	if (store_q_end(&r) != STORE_OK || *n == 0 ||
	    store_sql_text(s->ops->sql, STMT_COUNTERS_SYNC) == NULL)
		return r.rc;
	return store_q_run(s, STMT_COUNTERS_SYNC, v, 2, "move counters", NULL);
}

static enum store_rc pending_rows(struct store_rows *, size_t, struct pending *,
    size_t *);

/*
 * Up to max pending, unclaimed triggers in (after_row, upto_row] (of
 * the jobs the round locked, where rounds lock), in arrival order.  The
 * caller holds a transaction (store_begin) and frees with
 * store_pending_free.
 */
enum store_rc
store_pending(struct store *s, int64_t after_row, int64_t upto_row, size_t max,
    struct pending *p, size_t *n)
{
	struct store_val v[] = { VAL_INT(after_row), VAL_INT((int64_t)max),
		VAL_INT(upto_row), VAL_TEXT(NULL) };
	struct store_rows r;

	*n = 0;
	if (store_q_query(s, &r, STMT_PENDING, v, NVAL(v),
		"read pending triggers") != STORE_OK)
		return store_q_end(&r);
	return pending_rows(&r, max, p, n);
}

/*
 * The rows of STMT_PENDING or STMT_PENDING_HEADS, up to max, into p;
 * ends r.  On failure none is kept.
 */
static enum store_rc
pending_rows(struct store_rows *r, size_t max, struct pending *p, size_t *n)
{
	struct pending *e;

	while (*n < max && store_q_next(r)) {
		e = &p[(*n)++];
		memset(e, 0, sizeof(*e));
		/* An unknown job's columns are NULL: none read. */
		if (store_q_cols(r, "iddTbSTcibc", &e->row, &e->job,
			&e->trigger, &e->requested, &e->job_known,
			&e->job_state, &e->job_type, &e->command, &e->timeout_s,
			&e->job_busy, &e->flink_url) == -1) {
			r->rc = r->s->ops->fail(r->s, "read pending triggers",
			    "out of memory");
			break;
		}
	}
	if (store_q_end(r) != STORE_OK) {
		store_pending_free(p, *n);
		*n = 0;
	}
	return r->rc;
}

/*
 * The first waiting trigger of each RUNNING job with a command none of
 * whose triggers is claimed, up to max, in arrival order, up to row
 * upto_row: what a round may start, found by reading the queue from its
 * head, whatever the number of jobs.  A driver whose rounds run beside
 * other hosts' locks those jobs first, skipping those another round
 * holds.  The caller holds a transaction (store_begin) and frees with
 * store_pending_free.
 */
enum store_rc
store_pending_heads(struct store *s, size_t max, int64_t upto_row,
    struct pending *p, size_t *n)
{
	struct store_val v[] = { VAL_INT((int64_t)max), VAL_TEXT(NULL),
		VAL_INT(upto_row) };
	struct store_rows r;

	*n = 0;
	if (store_q_query(s, &r, STMT_PENDING_HEADS, v, NVAL(v),
		"read the jobs' next triggers") != STORE_OK)
		return store_q_end(&r);
	return pending_rows(&r, max, p, n);
}

/* The job's next checkpoint id: 1, 2, 3, ...; never the same twice. */
enum store_rc
store_next_checkpoint_id(struct store *s, const struct id *job, int64_t *id)
{
	struct store_val v[] = { VAL_TEXT(job->s) };
	enum store_rc rc;

	rc = store_q_one_row(s, STMT_NEXT_ID, v, NVAL(v), "next checkpoint id",
	    "i", id);
	return rc != STORE_NOTFOUND ?
	    rc :
	    s->ops->fail(s, "next checkpoint id", "no id returned");
}

/*
 * A claim's lease is given both as when it ends on the caller's clock
 * (lease_ms) and as its length (lease_ms - now_ms), for a dialect that
 * ends it by the server's clock.
 */
enum store_rc
store_claim(struct store *s, int64_t row, const char *owner,
    int64_t checkpoint_id, enum ckpt_type type, int64_t now_ms,
    int64_t lease_ms)
{
	struct store_val v[] = { VAL_INT(row), VAL_TEXT(owner),
		VAL_INT_OR_NULL(checkpoint_id, checkpoint_id <= 0),
		VAL_TEXT(ckpt_type_name(type)), VAL_INT(now_ms),
		VAL_INT(lease_ms), VAL_INT(lease_ms - now_ms) };

	return store_q_run_one(s, STMT_CLAIM, v, NVAL(v), "claim trigger");
}

enum store_rc
store_claim_renew(struct store *s, int64_t row, const char *owner,
    int64_t now_ms, int64_t lease_ms)
{
	struct store_val v[] = { VAL_INT(row), VAL_TEXT(owner),
		VAL_INT(lease_ms), VAL_INT(lease_ms - now_ms) };

	return store_q_run_one(s, STMT_CLAIM_RENEW, v, NVAL(v), "renew claim");
}

/*
 * fmt with each %s replaced by job and each %% by %, into b (a printf
 * that takes nothing else); -1 when out of memory.
 */
static int
job_trace(struct buf *b, const char *fmt, const char *job)
{
	const char *p;
	int bad = 0;

	buf_reset(b);
	for (p = fmt; *p != '\0' && !bad; p++) {
		if (p[0] == '%' && p[1] == 's')
			bad = buf_adds(b, job) != 0;
		else
			bad = buf_add(b, p, 1) != 0;
		if (p[0] == '%' && (p[1] == 's' || p[1] == '%'))
			p++;
	}
	return bad || buf_adds(b, "") != 0 ? -1 : 0;
}

/*
 * The jobs of the round's triggers that cannot run are read first, then
 * each job's triggers failed with its own trace and serialized-throwable
 * (the same bytes for each of its triggers).  Safe beside another
 * runner's round: it takes no id, and a trigger completed meanwhile fails
 * the statement's recheck of its status.
 */
enum store_rc
store_fail_unknown_jobs(struct store *s, int64_t after, int64_t upto,
    const char *class, const char *trace_fmt, int64_t now_ms, int64_t *n)
{
	struct store_val v[] = { VAL_INT(after), VAL_INT(upto), VAL_TEXT(class),
		VAL_TEXT(NULL), VAL_TEXT(NULL), VAL_TEXT(NULL),
		VAL_INT(now_ms) };
	struct buf trace = { 0 }, th = { 0 };
	struct id *jobs = NULL, *more;
	struct store_rows r;
	enum store_rc rc;
	size_t i, njobs = 0;
	int64_t changed;

	*n = 0;
	if (store_q_query(s, &r, STMT_UNKNOWN_JOBS, v, 2,
		"find unknown jobs") == STORE_OK)
		while (store_q_next(&r)) {
			if ((more = realloc(jobs,
				 (njobs + 1) * sizeof(*jobs))) == NULL) {
				r.rc = s->ops->fail(s, "find unknown jobs",
				    "out of memory");
				break;
			}
			jobs = more;
			store_q_cols(&r, "d", &jobs[njobs++]);
		}
	rc = store_q_end(&r);
	for (i = 0; rc == STORE_OK && i < njobs; i++) {
		buf_reset(&th);
		if (job_trace(&trace, trace_fmt, jobs[i].s) == -1 ||
		    store_failure_throwable(s, class, buf_str(&trace), &th) ==
			-1) {
			rc = s->ops->fail(s, "fail unknown jobs",
			    "out of memory");
			break;
		}
		v[3].s = buf_str(&trace);
		v[4].s = th.len > 0 ? buf_str(&th) : NULL;
		v[5].s = jobs[i].s;
		changed = 0;
		rc = store_q_run(s, STMT_FAIL_UNKNOWN, v, NVAL(v),
		    "fail unknown jobs", &changed);
		*n += changed;
	}
	free(jobs);
	buf_free(&trace);
	buf_free(&th);
	return rc;
}

enum store_rc
store_complete_flink(struct store *s, int64_t row, const char *owner,
    const struct outcome *o, const char *throwable, int64_t now_ms)
{
	struct store_val c[] = { VAL_INT(row), VAL_INT(o->checkpoint_id) };
	struct store_rows r;
	enum store_rc rc;

	if ((rc = complete_row(s, STMT_FLINK_COMPLETE, row, owner, o, throwable,
		 now_ms)) != STORE_OK ||
	    o->checkpoint_id <= 0)
		return rc;
	if (store_q_query(s, &r, STMT_COUNTER_FOLLOW, c, NVAL(c),
		"follow Flink's checkpoint id") == STORE_OK)
		while (store_q_next(&r))
			;
	return store_q_end(&r);
}

enum store_rc
store_claim_release(struct store *s, int64_t row, const char *owner)
{
	struct store_val v[] = { VAL_INT(row), VAL_TEXT(owner) };

	return store_q_run_one(s, STMT_CLAIM_RELEASE, v, NVAL(v),
	    "release claim");
}
