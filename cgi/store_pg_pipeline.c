/*
 * The PostgreSQL driver's pipeline: the group committer's batches of
 * POSTs sent in pipeline mode, several in flight (STORE_IN_FLIGHT), each
 * one statement of arrays, its outcome read at its turn; the NOTIFY that
 * wakes the watching runners sent after a batch, never inside it; and a
 * batch a deadlock refused sent again.
 */
#include <config.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "failure.h"
#include "log.h"
#include "store_pg_impl.h"
#include "throwable.h"

/* The committer's pipeline: a NOTIFY at most this often under load. */
#define PG_NOTIFY_EVERY_MS 5
/* A batch refused by a deadlock is sent again this long after. */
#define PG_RETRY_AFTER_MS 100
/* pg_batch_params's texts, and pg_other_params's (a savepoint's values). */
#define PG_BATCH_BUFS 14

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
void
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
enum store_rc
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

enum store_rc
pg_record_send(struct store *base, const struct trigger_rec *const *t,
    const struct store_val *v, int nv, size_t n)
{
	/* The savepoints' statement of arrays. */
	const enum stmt other = STMT_SP_QUEUE;
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

enum store_rc
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
