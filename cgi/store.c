/*
 * The store's logic, once: store_open picks a driver by the value of
 * CHECKPOINT_DB (a libpq URI: PostgreSQL, store_pg.c; anything else: a
 * SQLite file, store_sqlite.c), and each operation below is written
 * against the driver's few entries (store_impl.h): a statement by name,
 * its values, its rows and their columns, and transactions.  What only
 * one driver has (PostgreSQL's batches in flight, SQLite's WAL) is a
 * capability, asked for by store_can or answered here as nothing to do
 * where a driver has none.  Nothing above store.h knows which driver it
 * talks to.
 */
#include <config.h>

#include <sys/stat.h>

#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "failure.h"
#include "store_impl.h"
#include "throwable.h"

void
store_init(void)
{
	store_sqlite_init();
#ifdef HAVE_LIBPQ
	store_pg_init();
#endif
}

int
store_is_uri(const char *db)
{
	return strncmp(db, "postgresql://", 13) == 0 ||
	    strncmp(db, "postgres://", 11) == 0;
}

int
store_exists(const char *db)
{
	struct stat sb;

	return store_is_uri(db) || stat(db, &sb) == 0;
}

/* "scheme://" of some other kind: a mistake, not a file name. */
static int
store_foreign_uri(const char *db)
{
	const char *p = db;

	if (!isalpha((unsigned char)*p))
		return 0;
	while (
	    isalnum((unsigned char)*p) || *p == '+' || *p == '-' || *p == '.')
		p++;
	return strncmp(p, "://", 3) == 0;
}

/*
 * The next password in db at or after from, a URI's user part's
 * (user:password@) or a password= parameter's: its start, and its length
 * in *len (0 for one written empty).  NULL: none.  Each is found once:
 * from past the last one's end finds the one after.
 */
const char *
store_password(const char *db, const char *from, size_t *len)
{
	const char *auth, *end, *at = NULL, *colon, *p;

	if (!store_is_uri(db) && !store_foreign_uri(db))
		return NULL;
	auth = strstr(db, "://") + 3;
	end = auth + strcspn(auth, "/?");
	for (p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	colon = at != NULL ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
	/* Its colon before from: an empty one would be found for ever. */
	if (colon != NULL && colon >= from) {
		*len = (size_t)(at - colon - 1);
		return colon + 1;
	}
	for (p = from > end ? from : end; (p = strstr(p, "password=")) != NULL;
	     p++)
		if (p[-1] == '?' || p[-1] == '&') {
			*len = strcspn(p + 9, "&");
			return p + 9;
		}
	return NULL;
}

void
store_redact(const char *db, char *out, size_t len)
{
	const char *p = db, *pw;
	size_t n = 0, pwlen;

	while ((pw = store_password(db, p, &pwlen)) != NULL) {
		n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%.*s***",
		    (int)(pw - p), p);
		p = pw + pwlen;
	}
	snprintf(out + (n < len ? n : len), n < len ? len - n : 0, "%s", p);
}

void
store_hide_password(char *db)
{
	const char *pw;
	size_t len;

	for (pw = db; (pw = store_password(db, pw, &len)) != NULL; pw += len)
		memset(db + (pw - db), '*', len);
}

int
store_check_db(const char *db, char *err, size_t errlen)
{
	const char *why = NULL;

	if (store_is_uri(db)) {
#ifdef HAVE_LIBPQ
		if (!store_pg_parses(db))
			why = "not a URI libpq can parse";
#else
		why = "this build has no PostgreSQL store (no libpq)";
#endif
	} else if (store_foreign_uri(db))
		why = "an unsupported scheme: use a file path or postgresql://";
	else if (*db == '\0')
		why = "an empty path";
	if (why == NULL)
		return 0;
	snprintf(err, errlen, "%s", why);
	return -1;
}

enum store_rc
store_open(const struct store_opts *o, struct store **out, char *err,
    size_t errlen)
{
	*out = NULL;
	if (store_is_uri(o->path)) {
#ifdef HAVE_LIBPQ
		return store_pg_open(o, out, err, errlen);
#else
		snprintf(err, errlen,
		    "this build has no PostgreSQL store "
		    "(configure found no libpq)");
		return STORE_UNAVAILABLE;
#endif
	}
	if (store_foreign_uri(o->path)) {
		snprintf(err, errlen,
		    "unsupported database URI scheme: use a file path or "
		    "postgresql://");
		return STORE_UNAVAILABLE;
	}
	return store_sqlite_open(o, out, err, errlen);
}

int
store_count(const char *const *list)
{
	int n = 0;

	while (list[n] != NULL)
		n++;
	return n;
}

const char *
store_kind(const struct store *s)
{
	return s->ops->name;
}

int
store_schema_version(const struct store *s)
{
	return s->ops->schema_version();
}

const char *
store_rc_name(enum store_rc rc)
{
	switch (rc) {
	case STORE_OK:
		return "ok";
	case STORE_NOTFOUND:
		return "not found";
	case STORE_EXISTS:
		return "already exists";
	case STORE_BUSY:
		return "database is locked";
	case STORE_UNAVAILABLE:
		return "database unavailable";
	case STORE_READONLY:
		return "database not writable";
	case STORE_NEWER:
		return "database is from a newer version";
	case STORE_MISSING:
		return "no database: checkpointctl init makes it";
	default:
		return "database error";
	}
}

void
store_pending_free(struct pending *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(p[i].command);
		p[i].command = NULL;
		free(p[i].flink_url);
		p[i].flink_url = NULL;
	}
}

/* Whether a driver has what: see store_can. */
static int
store_ops_can(const struct store_ops *ops, enum store_can what)
{
	switch (what) {
	case STORE_CAN_PIPELINE:
		return ops->record_send != NULL;
	case STORE_CAN_READ_TOGETHER:
		return store_sql_text(ops->sql, STMT_STATUSES) != NULL;
	case STORE_CAN_WAL:
		return ops->wal_checkpoint != NULL;
	case STORE_CAN_FILE:
		return ops->files != NULL;
	default:
		return 0;
	}
}

int
store_can(const struct store *s, enum store_can what)
{
	return store_ops_can(s->ops, what);
}

/* The driver store_open would pick for db; NULL for none built in. */
static const struct store_ops *
driver_of(const char *db)
{
	if (!store_is_uri(db))
		return store_sqlite_ops();
#ifdef HAVE_LIBPQ
	return store_pg_ops();
#else
	return NULL;
#endif
}

int
store_driver_can(const char *db, enum store_can what)
{
	const struct store_ops *ops = driver_of(db);

	return ops != NULL && store_ops_can(ops, what);
}

const char *const *
store_files(const char *db)
{
	const struct store_ops *ops = driver_of(db);

	return ops != NULL ? ops->files : NULL;
}

int
store_watch_fd(struct store *s)
{
	return s->ops->watch_fd != NULL ? s->ops->watch_fd(s) : -1;
}

/* --- The driver's entries, as the operations below use them. --- */

#define NVAL(v) ((int)(sizeof(v) / sizeof((v)[0])))
/* An integer, or NULL for a value the schema never stores (0, -1). */
#define VAL_INT_OR_NULL(v, null) \
	{ \
		!(null), (null) ? 0 : (v), NULL \
	}

static enum store_rc
query(struct store *s, struct store_rows *r, enum stmt id,
    const struct store_val *v, int n, const char *what)
{
	return s->ops->query(s, r, id, v, n, what);
}

static int
next(struct store_rows *r)
{
	return r->s->ops->next(r);
}

static int64_t
col_int(const struct store_rows *r, int i)
{
	return r->s->ops->col_int(r, i);
}

static const char *
col_text(const struct store_rows *r, int i)
{
	return r->s->ops->col_text(r, i);
}

/*
 * Reads the row's columns, from the first, into the places that follow
 * kinds, a letter a column: i an int64_t; b an int, whether the integer
 * is not 0; t a const char * (NULL for NULL, valid until the next row);
 * n an int, whether the column is not NULL;
 * d a struct id; T an enum ckpt_type and S an enum job_state, parsed (a
 * name it does not know leaves the place as it is); c a char * of the
 * caller's own, a copy (NULL for NULL); - a column passed over, without
 * a place.  -1: out of memory for a copy, the places after it unread.
 * The compiler cannot see the letters: tests/t0110 has it check every
 * call's places against them.
 */
static int
vcols(const struct store_rows *r, const char *kinds, va_list ap)
{
	const char *v;
	struct id *id;
	char **copy;
	int i;

	for (i = 0; kinds[i] != '\0'; i++)
		switch (kinds[i]) {
		case 'i':
			*va_arg(ap, int64_t *) = col_int(r, i);
			break;
		case 'b':
			*va_arg(ap, int *) = col_int(r, i) != 0;
			break;
		case 't':
			*va_arg(ap, const char **) = col_text(r, i);
			break;
		case 'n':
			*va_arg(ap, int *) = col_text(r, i) != NULL;
			break;
		case 'd':
			id = va_arg(ap, struct id *);
			if ((v = col_text(r, i)) == NULL ||
			    id_parse_str(v, id) == -1)
				memset(id, 0, sizeof(*id));
			break;
		case 'T':
			ckpt_type_parse(col_text(r, i),
			    va_arg(ap, enum ckpt_type *));
			break;
		case 'S':
			job_state_parse(col_text(r, i),
			    va_arg(ap, enum job_state *));
			break;
		case 'c':
			copy = va_arg(ap, char **);
			*copy = NULL;
			if ((v = col_text(r, i)) != NULL &&
			    (*copy = strdup(v)) == NULL)
				return -1;
			break;
		default: /* '-' */
			break;
		}
	return 0;
}

static int
cols(const struct store_rows *r, const char *kinds, ...)
{
	va_list ap;
	int rc;

	va_start(ap, kinds);
	rc = vcols(r, kinds, ap);
	va_end(ap);
	return rc;
}

/*
 * Moves to the next row and reads it into the struct at row (size
 * bytes, zeroed first) as cols does, without copies: 0 when none is
 * left.
 */
static int
next_row(struct store_rows *r, void *row, size_t size, const char *kinds, ...)
{
	va_list ap;

	if (!next(r))
		return 0;
	memset(row, 0, size);
	va_start(ap, kinds);
	vcols(r, kinds, ap);
	va_end(ap);
	return 1;
}

/* Lets the statement go: the first error met reading it, if any. */
static enum store_rc
end(struct store_rows *r)
{
	r->s->ops->end(r);
	return r->rc;
}

/*
 * Runs a statement through, its rows unread; *changes (if not NULL) is
 * how many rows it wrote.
 */
static enum store_rc
run(struct store *s, enum stmt id, const struct store_val *v, int n,
    const char *what, int64_t *changes)
{
	struct store_rows r;

	if (query(s, &r, id, v, n, what) == STORE_OK) {
		while (next(&r))
			;
		if (changes != NULL)
			*changes = r.s->ops->changes(&r);
	}
	return end(&r);
}

/* A statement that writes one row: STORE_NOTFOUND if it wrote none. */
static enum store_rc
run_one(struct store *s, enum stmt id, const struct store_val *v, int n,
    const char *what)
{
	enum store_rc rc;
	int64_t changed = 0;

	if ((rc = run(s, id, v, n, what, &changed)) != STORE_OK)
		return rc;
	return changed > 0 ? STORE_OK : STORE_NOTFOUND;
}

/* Appends the first column of the statement's one row, if any. */
static enum store_rc
first_text(struct store *s, enum stmt id, const struct store_val *v, int n,
    const char *what, struct buf *out)
{
	struct store_rows r;
	const char *text;
	int found = 0;

	if (query(s, &r, id, v, n, what) == STORE_OK && (found = next(&r)) &&
	    (text = col_text(&r, 0)) != NULL && buf_adds(out, text) != 0)
		r.rc = STORE_ERROR;
	if (end(&r) != STORE_OK)
		return r.rc;
	return found ? STORE_OK : STORE_NOTFOUND;
}

/*
 * Reads the statement's first row as cols does (without copies), the
 * rest passed over: STORE_NOTFOUND if it has none, the places left as
 * they are.
 */
static enum store_rc
one_row(struct store *s, enum stmt id, const struct store_val *v, int n,
    const char *what, const char *kinds, ...)
{
	struct store_rows r;
	va_list ap;
	int found = 0;

	if (query(s, &r, id, v, n, what) == STORE_OK && (found = next(&r))) {
		va_start(ap, kinds);
		if (vcols(&r, kinds, ap) == -1)
			r.rc = s->ops->fail(s, what, "out of memory");
		va_end(ap);
		while (next(&r))
			;
	}
	if (end(&r) != STORE_OK)
		return r.rc;
	return found ? STORE_OK : STORE_NOTFOUND;
}

/*
 * Ends the transaction as rc says: commits it after STORE_OK (the
 * commit's result), or else rolls it back (rc).
 */
static enum store_rc
settle(struct store *s, enum store_rc rc)
{
	if (rc != STORE_OK) {
		store_rollback(s);
		return rc;
	}
	return store_commit(s);
}

/* --- The API's two operations --- */

/*
 * On a database server, a batch sent as the committer sends one, and its
 * outcome waited for: its statements are the pipeline's, and so is its
 * wake-up of the watching runners.
 */
static enum store_rc
record_remote(struct store *s, const struct trigger_rec *const *t,
    const struct savepoint_rec *const *sp, size_t n, int *created)
{
	enum store_rc rc;

	memset(created, 0, n * sizeof(*created));
	if ((rc = store_record_send(s, t, sp, n)) != STORE_OK)
		return rc;
	return store_record_recv(s, created);
}

/*
 * A new trigger, or a fresh start for one whose result has expired; a
 * database server takes it as a batch of one.
 */
enum store_rc
store_record_trigger(struct store *s, const struct trigger_rec *t, int *created)
{
	struct buf trace = { 0 };
	enum store_rc rc;
	int64_t changed = 0;

	if (s->ops->record_send != NULL)
		return record_remote(s, &t, NULL, 1, created);
	*created = 0;
	if (store_queue_full_trace(&trace, t->max_queued) != 0) {
		buf_free(&trace);
		return s->ops->fail(s, "record trigger", "out of memory");
	}
	{
		struct store_val v[] = { VAL_TEXT(t->job.s),
			VAL_TEXT(t->trigger.s),
			VAL_TEXT(ckpt_type_name(t->type)), VAL_INT(t->now_ms),
			VAL_TEXT(t->remote_user), VAL_TEXT(t->remote_addr),
			VAL_INT(t->store_ms), VAL_INT(t->max_queued),
			VAL_TEXT(FAIL_CKPT_CLASS), VAL_TEXT(buf_str(&trace)) };

		rc = run(s, STMT_RECORD, v, NVAL(v), "record trigger",
		    &changed);
	}
	buf_free(&trace);
	if (rc == STORE_OK)
		*created = changed > 0;
	return rc;
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

	return first_text(s, STMT_STATUS, v, NVAL(v), "read status", json);
}

/*
 * A deleting statement run until it deletes less than a batch, where the
 * driver keeps a purge's transactions short; *deleted: how many in all.
 */
static enum store_rc
purge_batches(struct store *s, enum stmt id, const struct store_val *v,
    int nval, const char *what, int64_t *deleted)
{
	enum store_rc rc;
	int64_t n;

	*deleted = 0;
	do {
		n = 0;
		if ((rc = run(s, id, v, nval, what, &n)) != STORE_OK)
			return rc;
		*deleted += n;
	} while (s->ops->purge_batch > 0 && n >= s->ops->purge_batch);
	return STORE_OK;
}

/* Retention of the results. */
enum store_rc
store_purge(struct store *s, int64_t now_ms, int64_t store_ms, int64_t *purged)
{
	struct store_val v[] = { VAL_INT(now_ms), VAL_INT(store_ms) };
	/* The results of each kind that hold nothing the service keeps. */
	const enum stmt by[] = { STMT_PURGE, STMT_SP_PURGE,
		STMT_DISPOSAL_PURGE };
	enum store_rc rc = STORE_OK;
	int64_t n;
	int i;

	*purged = 0;
	for (i = 0; i < NVAL(by) && rc == STORE_OK; i++) {
		rc = purge_batches(s, by[i], v, NVAL(v), "purge", &n);
		*purged += n;
	}
	return rc;
}

/*
 * The history's retention by count: of the jobs whose counter grew since
 * they were last pruned, and marked so, in one transaction; of every job
 * when keep is not the count they were last pruned by (the first time,
 * or the operator changed it).
 */
static enum store_rc
history_prune_keep(struct store *s, const struct store_val *v, int64_t keep,
    int64_t *n)
{
	enum store_rc rc;
	int64_t was = 0;

	*n = 0;
	if (keep <= 0)
		return STORE_OK;
	rc = one_row(s, STMT_HISTORY_KEEP_GET, NULL, 0, "prune the history",
	    "i", &was);
	if (rc != STORE_OK && rc != STORE_NOTFOUND)
		return rc;
	if (was != keep) {
		if ((rc = purge_batches(s, STMT_HISTORY_PRUNE_KEEP, v, 3,
			 "prune the history", n)) == STORE_OK &&
		    (rc = run(s, STMT_HISTORY_PRUNED, v, 3, "prune the history",
			 NULL)) == STORE_OK)
			rc = run(s, STMT_HISTORY_KEEP_SET, v, 3,
			    "prune the history", NULL);
		return rc;
	}
	if ((rc = store_begin(s)) != STORE_OK)
		return rc;
	rc = run(s, STMT_HISTORY_PRUNE_GROWN, v, 3, "prune the history", n);
	if (rc == STORE_OK &&
	    store_sql_text(s->ops->sql, STMT_HISTORY_GROWN_MARK) != NULL)
		rc = run(s, STMT_HISTORY_GROWN_MARK, v, 3, "prune the history",
		    NULL);
	if (rc != STORE_OK) {
		store_rollback(s);
		return rc;
	}
	return store_commit(s);
}

enum store_rc
store_history_prune(struct store *s, int64_t now_ms, int64_t keep,
    int64_t age_ms, int64_t *pruned)
{
	struct store_val v[] = { VAL_INT(now_ms), VAL_INT(keep),
		VAL_INT(age_ms) };
	const enum stmt by[] = { STMT_HISTORY_PRUNE_AGE, STMT_SP_PRUNE };
	enum store_rc rc;
	int64_t n;
	int i;

	rc = history_prune_keep(s, v, keep, pruned);
	for (i = 0; i < NVAL(by) && rc == STORE_OK; i++) {
		rc = purge_batches(s, by[i], v, NVAL(v), "prune the history",
		    &n);
		*pruned += n;
	}
	return rc;
}

/* The serialized-throwable of a failure, where the C code makes it. */
static int
failure_throwable(struct store *s, const char *class, const char *trace,
    struct buf *th)
{
	if (class == NULL || s->ops->sql_throwable)
		return 0;
	return throwable_base64(th, class, strlen(class), trace, strlen(trace));
}

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
	    failure_throwable(s, class, trace, &th) == -1) {
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

		if (query(s, &r, id, v, NVAL(v), "complete trigger") ==
		    STORE_OK)
			done = next(&r) ? col_int(&r, 0) :
					  r.s->ops->changes(&r);
	}
	buf_free(&th);
	if (end(&r) != STORE_OK)
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
 * Every claimed, still pending trigger, for the caller to judge.  A
 * driver on the server's clock reads a lease as the time it has left,
 * handed over on the caller's clock (CLOCK_REALTIME): the runner's
 * "lease_ms > now" then means "not over by the server's clock", however
 * far the two clocks are apart.
 */
enum store_rc
store_claimed(struct store *s, store_claim_cb cb, void *arg)
{
	struct store_rows r;
	struct claim c;
	const char *owner;
	int64_t now = 0;

	if (query(s, &r, STMT_CLAIMED, NULL, 0, "read claims") != STORE_OK)
		return end(&r);
	if (s->ops->server_clock)
		now = clock_ms(CLOCK_REALTIME);
	while (next(&r)) {
		memset(&c, 0, sizeof(c));
		c.type = CKPT_FULL;
		cols(&r, "iddtiiT", &c.row, &c.job, &c.trigger, &owner,
		    &c.lease_ms, &c.checkpoint_id, &c.type);
		snprintf(c.owner, sizeof(c.owner), "%s",
		    owner != NULL ? owner : "");
		c.lease_ms += now;
		if (cb(&c, arg) != 0)
			break;
	}
	return end(&r);
}

/* --- Jobs --- */

enum store_rc
store_job_known(struct store *s, const struct id *job)
{
	struct store_val v[] = { VAL_TEXT(job->s) };

	return one_row(s, STMT_JOB_KNOWN, v, NVAL(v), "look up job", "");
}

enum store_rc
store_job_state(struct store *s, const struct id *job, struct buf *state)
{
	struct store_val v[] = { VAL_TEXT(job->s) };

	return first_text(s, STMT_JOB_KNOWN, v, NVAL(v), "job state", state);
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
	rc = run_one(s, STMT_JOB_ADD, v, NVAL(v), "add job");
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
	enum store_rc rc = STORE_OK;

	if ((fields & ~JOB_SET_SAVEPOINT) != 0 &&
	    (rc = run_one(s, STMT_JOB_SET, v, NVAL(v), "set job")) != STORE_OK)
		return rc;
	if ((fields & JOB_SET_SAVEPOINT) != 0)
		rc = run_one(s, STMT_JOB_SET_SAVEPOINT, sp, NVAL(sp),
		    "set job's savepoints");
	return rc;
}

enum store_rc
store_job_rm(struct store *s, const struct id *job)
{
	struct store_val v[] = { VAL_TEXT(job->s) };

	return run_one(s, STMT_JOB_RM, v, NVAL(v), "remove job");
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

	if (query(s, &r, id, NULL, 0, "list jobs") != STORE_OK)
		return end(&r);
	while (next(&r)) {
		memset(&j, 0, sizeof(j));
		if (id == STMT_JOB_OVERVIEW)
			cols(&r, "dtSii", &j.id, &j.name, &j.state,
			    &j.created_ms, &j.updated_ms);
		else
			cols(&r, "dtSTtiii", &j.id, &j.name, &j.state, &j.type,
			    &j.command, &j.timeout_s, &j.last_checkpoint_id,
			    &j.pending);
		if (cb(&j, arg) != 0)
			break;
	}
	return end(&r);
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
	return one_row(s, STMT_CKPT_COUNTS, v, NVAL(v), "checkpoint counts",
	    "iiiiiii", &c->timeout_s, &c->completed, &c->failed,
	    &c->duration_min, &c->duration_max, &c->duration_sum,
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

	if (query(s, &r, id, v, n, "read checkpoints") != STORE_OK)
		return end(&r);
	while (next_row(&r, &c, sizeof(c), "i-iiittt-t", &c.id, &c.trigger_ms,
	    &c.end_ms, &c.duration_ms, &c.location, &c.failure_class,
	    &c.failure_trace, &c.format)) {
		c.status = ckpt_status(col_text(&r, 1));
		c.kind = (enum ckpt_kind)col_int(&r, 8);
		rows++;
		if (cb(&c, arg) != 0)
			break;
	}
	if (end(&r) != STORE_OK)
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
	if (query(s, &r, STMT_CKPT_DURATIONS, v, NVAL(v), "read durations") ==
	    STORE_OK)
		while (*n < max && next(&r))
			durations[(*n)++] = col_int(&r, 0);
	return end(&r);
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

	if (query(s, &r, id, v, NVAL(v), "list triggers") != STORE_OK)
		return end(&r);
	while (
	    next_row(&r, &t, sizeof(t), "ddtttittttttiii", &t.job, &t.trigger,
		&t.status, &t.requested_type, &t.type, &t.checkpoint_id,
		&t.location, &t.failure_class, &t.failure_trace, &t.claimed_by,
		&t.remote_user, &t.remote_addr, &t.created_ms, &t.completed_ms,
		&t.claimed_ms) &&
	    cb(&t, arg) == 0)
		;
	return end(&r);
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
	rc = one_row(s, STMT_TRIGGER_WAITING, v, NVAL(v),
	    "count waiting triggers", "iii", n, oldest_ms, pass_ms);
	return rc == STORE_NOTFOUND ? STORE_OK : rc;
}

/* --- Metrics --- */

/* The service's row of GET /metrics; the caller holds the transaction. */
static enum store_rc
metrics_service(struct store *s, struct service_metrics *m)
{
	enum store_rc rc;

	rc = one_row(s, STMT_METRICS_SERVICE, NULL, 0, "read metrics",
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

	if (query(s, &r, STMT_METRICS_JOBS, NULL, 0, "read job metrics") !=
	    STORE_OK)
		return end(&r);
	while (next_row(&r, &j, sizeof(j), "dtiiiii", &j.job, &j.name,
		   &j.completed, &j.failed, &j.in_progress, &j.last_id,
		   &j.last_duration_ms) &&
	    cb(&j, arg) == 0)
		;
	return end(&r);
}

enum store_rc
store_metrics(struct store *s, struct service_metrics *m, store_metrics_cb cb,
    void *arg)
{
	enum store_rc rc;

	memset(m, 0, sizeof(*m));
	if ((rc = store_read_begin(s)) != STORE_OK)
		return rc;
	if ((rc = metrics_service(s, m)) == STORE_OK)
		rc = metrics_jobs(s, cb, arg);
	return settle(s, rc);
}

enum store_rc
store_record_pass(struct store *s, int64_t now_ms, int64_t n,
    int64_t duration_ms, int64_t every_ms)
{
	struct store_val v[] = { VAL_INT(now_ms), VAL_INT(n),
		VAL_INT(duration_ms), VAL_INT(every_ms) };

	return run(s, STMT_RUNNER_PASS, v, NVAL(v), "record the runner's pass",
	    NULL);
}

/* --- A store copied whole --- */

/*
 * Each table's statements, its width, and how many of the export's
 * values (now_ms, store_ms) its export takes.
 */
static const struct {
	enum stmt export, import;
	int n, nv;
} row_tables[STORE_ROW__MAX] = {
	[STORE_ROW_JOB] = { STMT_EXPORT_JOBS, STMT_IMPORT_JOB, 13, 0 },
	[STORE_ROW_COUNTER] = { STMT_EXPORT_COUNTERS, STMT_IMPORT_COUNTER, 2,
	    0 },
	[STORE_ROW_STATS] = { STMT_EXPORT_STATS, STMT_IMPORT_STATS, 16, 0 },
	[STORE_ROW_SERVICE] = { STMT_EXPORT_SERVICE, STMT_IMPORT_SERVICE, 6,
	    2 },
	[STORE_ROW_TRIGGER] = { STMT_EXPORT_TRIGGERS, STMT_IMPORT_TRIGGER, 18,
	    2 },
	[STORE_ROW_HISTORY] = { STMT_EXPORT_HISTORY, STMT_IMPORT_HISTORY, 19,
	    0 },
	[STORE_ROW_SAVEPOINT] = { STMT_EXPORT_SAVEPOINTS,
	    STMT_IMPORT_SAVEPOINTS, 23, 0 },
	[STORE_ROW_DISPOSAL] = { STMT_EXPORT_DISPOSALS, STMT_IMPORT_DISPOSALS,
	    16, 0 },
	[STORE_ROW_SCHEDULE] = { STMT_EXPORT_SCHEDULES, STMT_IMPORT_SCHEDULES,
	    8, 0 },
	[STORE_ROW_SLOT] = { STMT_EXPORT_SLOTS, STMT_IMPORT_SLOTS, 6, 0 },
	[STORE_ROW_RETENTION] = { STMT_EXPORT_RETENTION, STMT_IMPORT_RETENTION,
	    6, 0 },
};

/* Every table's rows from one snapshot, until cb says stop. */
enum store_rc
store_export(struct store *s, int64_t now_ms, int64_t store_ms, store_row_cb cb,
    void *arg)
{
	struct store_val v[] = { VAL_INT(now_ms), VAL_INT(store_ms) };
	struct store_rows r;
	struct row_dump row;
	enum store_rc rc;
	int k, i, stop = 0;

	if ((rc = store_read_begin(s)) != STORE_OK)
		return rc;
	for (k = 0; k < STORE_ROW__MAX && !stop && rc == STORE_OK; k++) {
		if (query(s, &r, row_tables[k].export, v, row_tables[k].nv,
			"export") == STORE_OK)
			while (!stop && next(&r)) {
				memset(&row, 0, sizeof(row));
				row.table = (enum store_row_table)k;
				row.n = row_tables[k].n;
				for (i = 0; i < row.n; i++)
					row.v[i] = col_text(&r, i);
				stop = cb(&row, arg) != 0;
			}
		rc = end(&r);
	}
	/* Nothing was written: the read ends either way. */
	store_rollback(s);
	return rc;
}

/*
 * The import's one transaction, the tables locked against other writers
 * first where the dialect needs it; STORE_EXISTS: the database holds
 * something already.
 */
enum store_rc
store_import_begin(struct store *s)
{
	enum store_rc rc;
	int used = 0;

	if ((rc = store_begin(s)) != STORE_OK)
		return rc;
	if (store_sql_text(s->ops->sql, STMT_IMPORT_LOCK) != NULL)
		rc = run(s, STMT_IMPORT_LOCK, NULL, 0, "lock for import", NULL);
	if (rc == STORE_OK)
		rc = one_row(s, STMT_IMPORT_EMPTY, NULL, 0, "import", "b",
		    &used);
	if (rc == STORE_NOTFOUND)
		rc = STORE_OK;
	else if (rc == STORE_OK && used)
		rc = STORE_EXISTS;
	if (rc != STORE_OK)
		store_rollback(s);
	return rc;
}

/* A row as exported, each column bound as the text it was. */
enum store_rc
store_import(struct store *s, const struct row_dump *row)
{
	struct store_val v[STORE_ROW_COLS];
	int i;

	if (row->table < 0 || row->table >= STORE_ROW__MAX ||
	    row->n != row_tables[row->table].n)
		return s->ops->fail(s, "import", "a row of another shape");
	for (i = 0; i < row->n; i++) {
		v[i].is_int = 0;
		v[i].i = 0;
		v[i].s = row->v[i];
	}
	return run(s, row_tables[row->table].import, v, row->n, "import", NULL);
}

/*
 * The commit, after moving the ids' sequence past the ids copied where
 * the dialect keeps one (SQLite's next rowid follows the largest).
 */
enum store_rc
store_import_commit(struct store *s)
{
	enum store_rc rc = STORE_OK;

	if (store_sql_text(s->ops->sql, STMT_IMPORT_SEQUENCE) != NULL)
		rc = run(s, STMT_IMPORT_SEQUENCE, NULL, 0, "import", NULL);
	return settle(s, rc);
}

/* --- The runner's round --- */

/*
 * Appends id to the array literal in b, begun with "{" (the caller adds
 * "}" after the last): nothing quoted, since ids are hex.
 */
static int
id_array_add(struct buf *b, const char *id)
{
	return buf_printf(b, "%s%s", b->len > 1 ? "," : "", id);
}

/*
 * Where runners' rounds run at once on several hosts (the dialect has
 * the statement id), the jobs it locks to the end of the transaction,
 * listed in s->jobs as an array for the round's statements: "{a,b}",
 * nothing quoted (a job id is 32 hex digits by the schema's CHECK).
 * *jobs is NULL where the dialect locks nothing.
 */
static enum store_rc
lock_jobs(struct store *s, enum stmt id, const struct store_val *v, int n,
    const char *what, const char **jobs)
{
	struct store_rows r;
	int bad;

	*jobs = NULL;
	if (store_sql_text(s->ops->sql, id) == NULL)
		return STORE_OK;
	s->locked = 0; /* s->jobs is this statement's now */
	buf_reset(&s->jobs);
	bad = buf_adds(&s->jobs, "{") != 0;
	if (query(s, &r, id, v, n, what) == STORE_OK)
		while (next(&r))
			bad |= id_array_add(&s->jobs, col_text(&r, 0)) != 0;
	if ((bad || buf_adds(&s->jobs, "}") != 0) && r.rc == STORE_OK)
		r.rc = s->ops->fail(s, what, "out of memory");
	if (end(&r) == STORE_OK)
		*jobs = buf_str(&s->jobs);
	return r.rc;
}

/*
 * The jobs of the round's range (after, upto], locked as lock_jobs
 * does: once a transaction, though each of the round's statements asks.
 */
static enum store_rc
lock_round(struct store *s, int64_t after, int64_t upto, const char **jobs)
{
	struct store_val v[] = { VAL_INT(after), VAL_INT(upto) };
	enum store_rc rc;

	if (s->locked && s->locked_after == after && s->locked_upto == upto) {
		*jobs = buf_str(&s->jobs);
		return STORE_OK;
	}
	rc = lock_jobs(s, STMT_LOCK_JOBS, v, NVAL(v), "lock the round's jobs",
	    jobs);
	if (rc == STORE_OK && *jobs != NULL) {
		s->locked = 1;
		s->locked_after = after;
		s->locked_upto = upto;
	}
	return rc;
}

/*
 * The next round's range: *upto is the last of the next max pending
 * unclaimed triggers after after_row, *count how many there are (0:
 * none).  A driver whose rounds run beside other hosts' then locks the
 * range's jobs (lock_round).
 */
enum store_rc
store_pending_bound(struct store *s, int64_t after_row, size_t max,
    int64_t *upto, size_t *count)
{
	struct store_val v[] = { VAL_INT(after_row), VAL_INT((int64_t)max) };
	struct store_rows r;
	const char *jobs;

	*upto = after_row;
	*count = 0;
	/* max(id) of no rows is NULL: no range. */
	if (query(s, &r, STMT_PENDING_BOUND, v, NVAL(v), "pending range") ==
		STORE_OK &&
	    next(&r) && col_text(&r, 0) != NULL) {
		*upto = col_int(&r, 0);
		*count = (size_t)col_int(&r, 1);
	}
	if (end(&r) != STORE_OK || *count == 0)
		return r.rc;
	return lock_round(s, after_row, *upto, &jobs);
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
	struct store_rows r;
	const char *jobs = NULL;
	enum store_rc rc;

	*n = 0;
	if ((rc = lock_round(s, after, upto, &jobs)) != STORE_OK)
		return rc;
	{
		struct store_val v[] = { VAL_INT(after), VAL_INT(upto),
			VAL_INT(now_ms), VAL_TEXT(jobs) };

		if (query(s, &r, STMT_COMPLETE_PLAIN, v, NVAL(v),
			"complete plain triggers") == STORE_OK)
			*n = next(&r) ? col_int(&r, 0) : r.s->ops->changes(&r);
		if (end(&r) != STORE_OK || *n == 0 ||
		    store_sql_text(s->ops->sql, STMT_COUNTERS_SYNC) == NULL)
			return r.rc;
		return run(s, STMT_COUNTERS_SYNC, v, 2, "move counters", NULL);
	}
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
	struct store_rows r;
	const char *jobs = NULL;
	enum store_rc rc;

	*n = 0;
	if ((rc = lock_round(s, after_row, upto_row, &jobs)) != STORE_OK)
		return rc;
	{
		struct store_val v[] = { VAL_INT(after_row),
			VAL_INT((int64_t)max), VAL_INT(upto_row),
			VAL_TEXT(jobs) };

		if (query(s, &r, STMT_PENDING, v, NVAL(v),
			"read pending triggers") != STORE_OK)
			return end(&r);
	}
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

	while (*n < max && next(r)) {
		e = &p[(*n)++];
		memset(e, 0, sizeof(*e));
		/* An unknown job's columns are NULL: none read. */
		if (cols(r, "iddTbSTcibc", &e->row, &e->job, &e->trigger,
			&e->requested, &e->job_known, &e->job_state,
			&e->job_type, &e->command, &e->timeout_s, &e->job_busy,
			&e->flink_url) == -1) {
			r->rc = r->s->ops->fail(r->s, "read pending triggers",
			    "out of memory");
			break;
		}
	}
	if (end(r) != STORE_OK) {
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
	struct store_val lv[] = { VAL_INT((int64_t)max), VAL_INT(upto_row) };
	struct store_rows r;
	const char *jobs = NULL;
	enum store_rc rc;

	*n = 0;
	if ((rc = lock_jobs(s, STMT_LOCK_HEADS, lv, NVAL(lv),
		 "lock the jobs with a command", &jobs)) != STORE_OK)
		return rc;
	{
		struct store_val v[] = { VAL_INT((int64_t)max), VAL_TEXT(jobs),
			VAL_INT(upto_row) };

		if (query(s, &r, STMT_PENDING_HEADS, v, NVAL(v),
			"read the jobs' next triggers") != STORE_OK)
			return end(&r);
	}
	return pending_rows(&r, max, p, n);
}

/* The job's next checkpoint id: 1, 2, 3, ...; never the same twice. */
enum store_rc
store_next_checkpoint_id(struct store *s, const struct id *job, int64_t *id)
{
	struct store_val v[] = { VAL_TEXT(job->s) };
	enum store_rc rc;

	rc = one_row(s, STMT_NEXT_ID, v, NVAL(v), "next checkpoint id", "i",
	    id);
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

	return run_one(s, STMT_CLAIM, v, NVAL(v), "claim trigger");
}

enum store_rc
store_claim_renew(struct store *s, int64_t row, const char *owner,
    int64_t now_ms, int64_t lease_ms)
{
	struct store_val v[] = { VAL_INT(row), VAL_TEXT(owner),
		VAL_INT(lease_ms), VAL_INT(lease_ms - now_ms) };

	return run_one(s, STMT_CLAIM_RENEW, v, NVAL(v), "renew claim");
}

/* --- To the driver: its transactions, its news, its capabilities --- */

void
store_close(struct store *s)
{
	if (s == NULL)
		return;
	buf_free(&s->jobs);
	s->ops->close(s);
}

const char *
store_error(const struct store *s)
{
	return s->error;
}

enum store_rc
store_record_recv(struct store *s, int *created)
{
	if (s->ops->record_recv == NULL)
		return STORE_ERROR;
	return s->ops->record_recv(s, created);
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
			bad |= id_array_add(&jobs, r[i]->job->s) != 0 ||
			    id_array_add(&triggers, r[i]->trigger->s) != 0;
			at[m++] = i;
		}
	bad |= buf_adds(&jobs, "}") != 0 || buf_adds(&triggers, "}") != 0;
	if (m > 0 && bad)
		q.rc = s->ops->fail(s, "read statuses", "out of memory");
	else if (m > 0) {
		struct store_val v[] = { VAL_TEXT(buf_str(&jobs)),
			VAL_TEXT(buf_str(&triggers)), VAL_INT(store_ms) };

		if (query(s, &q, savepoint ? STMT_SP_STATUSES : STMT_STATUSES,
			v, savepoint ? 2 : 3, "read statuses") == STORE_OK) {
			for (i = 0; i < m; i++)
				r[at[i]]->rc = STORE_NOTFOUND;
			while (q.rc == STORE_OK && next(&q)) {
				k = col_int(&q, 0);
				if (k < 1 || (size_t)k > m) {
					q.rc = s->ops->fail(s, "read statuses",
					    "a row of no read");
					break;
				}
				/* A NULL answer is empty, as a read alone's. */
				if ((json = col_text(&q, 1)) != NULL &&
				    buf_adds(r[at[k - 1]]->json, json) != 0)
					q.rc = s->ops->fail(s, "read statuses",
					    "out of memory");
				else
					r[at[k - 1]]->rc = STORE_OK;
			}
		}
		end(&q);
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

/* A transaction's end, or a new one's start, ends the round's locks. */
enum store_rc
store_begin(struct store *s)
{
	s->locked = 0;
	return run(s, STMT_BEGIN, NULL, 0, "begin", NULL);
}

enum store_rc
store_read_begin(struct store *s)
{
	s->locked = 0;
	return run(s, STMT_BEGIN_READ, NULL, 0, "begin read", NULL);
}

enum store_rc
store_commit(struct store *s)
{
	s->locked = 0;
	return s->ops->commit(s);
}

void
store_rollback(struct store *s)
{
	s->locked = 0;
	s->ops->rollback(s);
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
	if (query(s, &r, STMT_UNKNOWN_JOBS, v, 2, "find unknown jobs") ==
	    STORE_OK)
		while (next(&r)) {
			if ((more = realloc(jobs,
				 (njobs + 1) * sizeof(*jobs))) == NULL) {
				r.rc = s->ops->fail(s, "find unknown jobs",
				    "out of memory");
				break;
			}
			jobs = more;
			cols(&r, "d", &jobs[njobs++]);
		}
	rc = end(&r);
	for (i = 0; rc == STORE_OK && i < njobs; i++) {
		buf_reset(&th);
		if (job_trace(&trace, trace_fmt, jobs[i].s) == -1 ||
		    failure_throwable(s, class, buf_str(&trace), &th) == -1) {
			rc = s->ops->fail(s, "fail unknown jobs",
			    "out of memory");
			break;
		}
		v[3].s = buf_str(&trace);
		v[4].s = th.len > 0 ? buf_str(&th) : NULL;
		v[5].s = jobs[i].s;
		changed = 0;
		rc = run(s, STMT_FAIL_UNKNOWN, v, NVAL(v), "fail unknown jobs",
		    &changed);
		*n += changed;
	}
	free(jobs);
	buf_free(&trace);
	buf_free(&th);
	return rc;
}

/* Without a WAL of the store's own (a server keeps its own), none to do. */
enum store_rc
store_wal_checkpoint(struct store *s, int *busy)
{
	*busy = 0;
	if (s->ops->wal_checkpoint == NULL)
		return STORE_OK;
	return s->ops->wal_checkpoint(s, busy);
}

enum store_rc
store_data_version(struct store *s, int64_t *version)
{
	return s->ops->data_version(s, version);
}

/* A database server is never replaced under an open connection. */
int
store_replaced(struct store *s, int64_t max_age_ms)
{
	return s->ops->replaced != NULL && s->ops->replaced(s, max_age_ms);
}

int
store_moved(struct store *s)
{
	return s->ops->moved != NULL && s->ops->moved(s);
}

void
store_housekeeping(struct store *s)
{
	if (s->ops->housekeeping != NULL)
		s->ops->housekeeping(s);
}

enum store_rc
store_wal_checkpoint_passive(struct store *s, int *frames, int *copied)
{
	*frames = 0;
	*copied = 0;
	if (s->ops->wal_checkpoint_passive == NULL)
		return STORE_OK;
	return s->ops->wal_checkpoint_passive(s, frames, copied);
}

/* Without a WAL, no commit is reported: the WAL copier idles. */
void
store_on_commit(struct store *s, void (*fn)(void *, int), void *arg)
{
	if (s->ops->on_commit != NULL)
		s->ops->on_commit(s, fn, arg);
}

/* --- Jobs bound to a Flink JobManager --- */

enum store_rc
store_job_flink(struct store *s, const struct id *job, const char *url,
    int64_t now_ms)
{
	struct store_val v[] = { VAL_TEXT(job->s), VAL_TEXT(url),
		VAL_INT(now_ms) };

	return run_one(s, STMT_JOB_FLINK_SET, v, NVAL(v), "bind job to Flink");
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
	if (query(s, &r, STMT_COUNTER_FOLLOW, c, NVAL(c),
		"follow Flink's checkpoint id") == STORE_OK)
		while (next(&r))
			;
	return end(&r);
}

enum store_rc
store_claim_release(struct store *s, int64_t row, const char *owner)
{
	struct store_val v[] = { VAL_INT(row), VAL_TEXT(owner) };

	return run_one(s, STMT_CLAIM_RELEASE, v, NVAL(v), "release claim");
}

/* --- Savepoints, stops and disposals --- */

enum store_rc
store_job_savepoint_dir(struct store *s, const struct id *job, struct buf *dir)
{
	struct store_val v[] = { VAL_TEXT(job->s) };

	return first_text(s, STMT_SP_DIR, v, NVAL(v), "savepoint directory",
	    dir);
}

/*
 * What a savepoint or a stop past its job's queue bound is failed with,
 * as a trigger (store_queue_full_trace): its trace, and its
 * serialized-throwable where the C code makes it.  -1: out of memory.
 */
struct queue_full {
	struct buf trace, throwable;
};

static int
queue_full_make(struct store *s, int64_t max_queued, struct queue_full *q)
{
	memset(q, 0, sizeof(*q));
	if (store_queue_full_trace(&q->trace, max_queued) == 0 &&
	    failure_throwable(s, FAIL_CKPT_CLASS, buf_str(&q->trace),
		&q->throwable) == 0)
		return 0;
	buf_free(&q->trace);
	buf_free(&q->throwable);
	return -1;
}

static void
queue_full_free(struct queue_full *q)
{
	buf_free(&q->trace);
	buf_free(&q->throwable);
}

/*
 * STMT_SP_RECORD's (and STMT_SP_QUEUE's) values for sp: its own, then its
 * job's queue bound and q, what it is failed with past it.
 */
#define SP_NVAL 14
static void
savepoint_vals(const struct savepoint_rec *sp, const struct queue_full *q,
    struct store_val *v)
{
	const struct store_val vals[SP_NVAL] = { VAL_TEXT(sp->job.s),
		VAL_TEXT(sp->trigger.s),
		VAL_TEXT(sp->stop ? "STOP" : "SAVEPOINT"),
		VAL_TEXT(sp->target_dir),
		VAL_TEXT(sp->native ? "NATIVE" : "CANONICAL"),
		VAL_INT(sp->cancel_job != 0), VAL_INT(sp->drain != 0),
		VAL_TEXT(sp->remote_user), VAL_TEXT(sp->remote_addr),
		VAL_INT(sp->now_ms), VAL_INT(sp->max_queued),
		VAL_TEXT(FAIL_CKPT_CLASS), VAL_TEXT(q->trace.p),
		VAL_TEXT(q->throwable.p) };

	memcpy(v, vals, sizeof(vals));
}

enum store_rc
store_record_savepoint(struct store *s, const struct savepoint_rec *sp,
    int *created)
{
	struct store_val v[SP_NVAL];
	struct queue_full q;
	enum store_rc rc;
	int64_t changed = 0;

	*created = 0;
	if (queue_full_make(s, sp->max_queued, &q) == -1)
		return s->ops->fail(s, "record savepoint", "out of memory");
	savepoint_vals(sp, &q, v);
	rc = run(s, STMT_SP_RECORD, v, SP_NVAL, "record savepoint", &changed);
	queue_full_free(&q);
	if (rc == STORE_OK)
		*created = changed > 0;
	return rc;
}

/*
 * The values of a batch's savepoints, each as STMT_SP_RECORD takes them,
 * the i-th at i * SP_NVAL: what a pipelining driver sends as
 * STMT_SP_QUEUE, one statement for them all.
 */
static struct store_val *
savepoints_vals(const struct savepoint_rec *const *sp, size_t n,
    const struct queue_full *q)
{
	struct store_val *v;
	size_t i;

	if ((v = calloc(n * SP_NVAL, sizeof(*v))) == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if (sp[i] != NULL)
			savepoint_vals(sp[i], q, &v[i * SP_NVAL]);
	return v;
}

/* The queue bound of a batch's savepoints: the service's, one for all. */
static int64_t
savepoints_bound(const struct savepoint_rec *const *sp, size_t n)
{
	size_t i;

	for (i = 0; sp != NULL && i < n; i++)
		if (sp[i] != NULL)
			return sp[i]->max_queued;
	return 0;
}

enum store_rc
store_record_send(struct store *s, const struct trigger_rec *const *t,
    const struct savepoint_rec *const *sp, size_t n)
{
	struct store_val *v = NULL;
	struct queue_full q;
	enum store_rc rc;

	if (s->ops->record_send == NULL || n == 0)
		return STORE_ERROR;
	if (queue_full_make(s, savepoints_bound(sp, n), &q) == -1)
		return s->ops->fail(s, "record triggers", "out of memory");
	if (sp != NULL && (v = savepoints_vals(sp, n, &q)) == NULL) {
		queue_full_free(&q);
		return s->ops->fail(s, "record triggers", "out of memory");
	}
	rc = s->ops->record_send(s, t, STMT_SP_QUEUE, v, SP_NVAL, n);
	queue_full_free(&q);
	free(v);
	return rc;
}

enum store_rc
store_record_posts(struct store *s, const struct trigger_rec *const *t,
    const struct savepoint_rec *const *sp, size_t n, int *created)
{
	enum store_rc rc;
	size_t i;

	if (s->ops->record_send != NULL)
		return record_remote(s, t, sp, n, created);
	/* A trigger alone is a transaction of its own statement. */
	if (n == 1 && sp[0] == NULL)
		return store_record_trigger(s, t[0], &created[0]);
	if ((rc = store_begin(s)) != STORE_OK)
		return rc;
	for (i = 0; i < n && rc == STORE_OK; i++)
		rc = sp[i] != NULL ?
		    store_record_savepoint(s, sp[i], &created[i]) :
		    store_record_trigger(s, t[i], &created[i]);
	if ((rc = settle(s, rc)) != STORE_OK)
		memset(created, 0, n * sizeof(*created));
	return rc;
}

enum store_rc
store_read_savepoint_status(struct store *s, const struct id *job,
    const struct id *trigger, struct buf *json)
{
	struct store_val v[] = { VAL_TEXT(job->s), VAL_TEXT(trigger->s) };

	return first_text(s, STMT_SP_STATUS, v, NVAL(v),
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
	rc = run(s, STMT_DISPOSAL_RECORD, v, NVAL(v), "record disposal",
	    &changed);
	if (rc == STORE_OK)
		rc = one_row(s, STMT_DISPOSAL_ID, key, NVAL(key), "disposal id",
		    "d", out);
	if (rc == STORE_NOTFOUND)
		rc = s->ops->fail(s, "record disposal", "its row is missing");
	if (rc == STORE_OK)
		*created = changed > 0;
	return settle(s, rc);
}

enum store_rc
store_read_disposal_status(struct store *s, const struct id *trigger,
    struct buf *json)
{
	struct store_val v[] = { VAL_TEXT(trigger->s) };

	return first_text(s, STMT_DISPOSAL_STATUS, v, NVAL(v),
	    "read disposal status", json);
}

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

	return cols(r, "iddbcbbbbbcibc", &e->row, &e->job, &e->trigger,
	    &e->stop, &e->target_dir, &e->native, &e->cancel_job, &e->drain,
	    &e->job_known, &e->job_running, &e->command, &e->timeout_s,
	    &e->job_busy, &e->flink_url);
}

static int
disposal_task(const struct store_rows *r, void *task)
{
	struct disposal_task *e = task;

	e->job_found = col_text(r, 3) != NULL;
	return cols(r, "idcdcici", &e->row, &e->trigger, &e->path, &e->job,
	    &e->command, &e->timeout_s, &e->flink_url, &e->scope);
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
	if (query(s, &r, k->pending, v, NVAL(v), k->what) == STORE_OK)
		while (*n < max && next(&r)) {
			e = (char *)t + (*n)++ * k->size;
			memset(e, 0, k->size);
			if (k->read(&r, e) == -1) {
				r.rc = STORE_ERROR;
				break;
			}
		}
	if (end(&r) != STORE_OK) {
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

	return run_one(s, STMT_SP_CLAIM, v, NVAL(v), "claim savepoint");
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

	return run_one(s, STMT_DISPOSAL_CLAIM, v, NVAL(v), "claim disposal");
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
	if (failure_throwable(s, class, trace, &th) == -1) {
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
		rc = run_one(s, id, v, nv + OUTCOME_NVAL, what);
	}
	buf_free(&th);
	return rc;
}

enum store_rc
store_savepoint_complete(struct store *s, int64_t row, const char *owner,
    int64_t checkpoint_id, const char *location, const char *failure_class,
    const char *failure_trace, int64_t now_ms)
{
	struct store_val v[3 + OUTCOME_NVAL] = { VAL_INT(row),
		VAL_INT_OR_NULL(checkpoint_id, checkpoint_id <= 0),
		VAL_TEXT(failure_class == NULL ? location : NULL) };

	return task_complete(s, STMT_SP_COMPLETE, "complete savepoint", v, 3,
	    owner, failure_class, failure_trace, now_ms);
}

enum store_rc
store_savepoint_end_job(struct store *s, const struct id *job,
    const char *state, int64_t now_ms)
{
	struct store_val v[] = { VAL_TEXT(job->s), VAL_TEXT(state),
		VAL_INT(now_ms) };

	return run(s, STMT_SP_END_JOB, v, NVAL(v), "end job", NULL);
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
		rc = run(s, STMT_DISPOSAL_MARK, mark, NVAL(mark),
		    "mark disposed", NULL);
	/* A checkpoint's path (retention), marked in the history. */
	if (rc == STORE_OK && failure_class == NULL)
		rc = run(s, STMT_DISPOSAL_MARK_HISTORY, mark, NVAL(mark),
		    "mark disposed", NULL);
	return rc;
}

enum store_rc
store_op_claims(struct store *s, int disposals, int64_t now_ms,
    store_op_claim_cb cb, void *arg)
{
	struct store_val v[] = { VAL_INT(now_ms) };
	struct store_rows r;
	struct op_claim c;

	if (query(s, &r, disposals ? STMT_DISPOSAL_CLAIMS : STMT_SP_CLAIMS, v,
		NVAL(v), "read claims") == STORE_OK)
		while (next_row(&r, &c, sizeof(c), "iddtb", &c.row, &c.job,
		    &c.trigger, &c.owner, &c.expired)) {
			if (c.owner != NULL && cb(&c, arg) != 0)
				break;
		}
	return end(&r);
}

/* Renews a savepoint's (disposals 0) or a disposal's claim of owner. */
enum store_rc
store_op_renew(struct store *s, int disposals, int64_t row, const char *owner,
    int64_t now_ms, int64_t lease_ms)
{
	struct store_val v[] = { VAL_INT(row), VAL_TEXT(owner),
		VAL_INT(lease_ms), VAL_INT(lease_ms - now_ms) };

	return run_one(s, disposals ? STMT_DISPOSAL_RENEW : STMT_SP_RENEW, v,
	    NVAL(v), "renew claim");
}

enum store_rc
store_savepoint_list(struct store *s, const struct id *job,
    store_savepoint_cb cb, void *arg)
{
	struct store_val v[] = { VAL_TEXT(job != NULL ? job->s : NULL) };
	struct store_rows r;
	struct savepoint_row e;

	if (query(s, &r, STMT_SP_LIST, v, NVAL(v), "list savepoints") ==
	    STORE_OK)
		while (next_row(&r, &e, sizeof(e), "ddttittbbtttiiiitti",
			   &e.job, &e.trigger, &e.kind, &e.status,
			   &e.checkpoint_id, &e.target_dir, &e.format,
			   &e.cancel_job, &e.drain, &e.location,
			   &e.failure_class, &e.failure_trace, &e.created_ms,
			   &e.claimed_ms, &e.completed_ms, &e.disposed_ms,
			   &e.remote_user, &e.remote_addr, &e.kept_ms) &&
		    cb(&e, arg) == 0)
			;
	return end(&r);
}

/* --- Schedules --- */

enum store_rc
store_schedule_set(struct store *s, const struct id *job, const char *kind,
    int64_t every_ms, const char *cron, const char *set_by, int64_t now_ms)
{
	struct store_val v[] = { VAL_TEXT(job->s), VAL_TEXT(kind),
		VAL_INT_OR_NULL(every_ms, every_ms <= 0), VAL_TEXT(cron),
		VAL_INT(now_ms), VAL_TEXT(set_by) };
	enum store_rc rc;

	if (every_ms > 0 || cron != NULL)
		return run_one(s, STMT_SCHED_SET, v, NVAL(v), "set schedule");
	if ((rc = store_job_known(s, job)) != STORE_OK)
		return rc;
	return run(s, STMT_SCHED_CLEAR, v, 2, "clear schedule", NULL);
}

enum store_rc
store_schedule_list(struct store *s, const struct id *job, store_schedule_cb cb,
    void *arg)
{
	struct store_val v[] = { VAL_TEXT(job != NULL ? job->s : NULL) };
	struct store_rows r;
	struct schedule_row e;

	if (query(s, &r, STMT_SCHED_LIST, v, NVAL(v), "list schedules") ==
	    STORE_OK)
		while (
		    next_row(&r, &e, sizeof(e), "dtitiittti", &e.job, &e.kind,
			&e.every_ms, &e.cron, &e.since_ms, &e.last_slot_ms,
			&e.set_by, &e.job_state, &e.savepoint_dir, &e.missed) &&
		    cb(&e, arg) == 0)
			;
	return end(&r);
}

/* Why a due slot records no trigger, as the row says; NULL: it records. */
static const char *
schedule_skip(const struct schedule_row *row)
{
	if (row->job_state == NULL || strcmp(row->job_state, "RUNNING") != 0)
		return "the job is not RUNNING";
	if (strcmp(row->kind, "SAVEPOINT") == 0 && row->savepoint_dir == NULL)
		return "the job has no savepoint directory";
	return NULL;
}

/*
 * The slot's trigger: a savepoint as the API records one, a checkpoint
 * trigger plainly (no queue bound to apply: a slot finds the job's queue
 * empty, or is skipped).
 */
static enum store_rc
schedule_record(struct store *s, const struct schedule_row *row,
    const struct schedule_fire *f)
{
	struct savepoint_rec sp;
	int created;

	if (strcmp(row->kind, "SAVEPOINT") != 0) {
		struct store_val v[] = { VAL_TEXT(row->job.s),
			VAL_TEXT(f->trigger.s),
			VAL_TEXT(ckpt_type_name(CKPT_CONFIGURED)),
			VAL_INT(f->now_ms), VAL_TEXT(SCHEDULE_CALLER) };

		return run_one(s, STMT_SCHED_RECORD, v, NVAL(v),
		    "record scheduled trigger");
	}
	memset(&sp, 0, sizeof(sp));
	sp.job = row->job;
	sp.trigger = f->trigger;
	sp.target_dir = row->savepoint_dir;
	sp.remote_user = SCHEDULE_CALLER;
	sp.now_ms = f->now_ms;
	return store_record_savepoint(s, &sp, &created);
}

enum store_rc
store_schedule_fire(struct store *s, const struct schedule_row *row,
    struct schedule_fire *f, int *fired)
{
	const char *skip = schedule_skip(row);
	struct store_val key[] = { VAL_TEXT(row->job.s), VAL_TEXT(row->kind) };
	struct store_val adv[] = { VAL_TEXT(row->job.s), VAL_TEXT(row->kind),
		VAL_INT(f->slot_ms), VAL_INT(row->since_ms),
		VAL_INT(f->missed) };
	struct store_rows r;
	enum store_rc rc;
	int64_t changed = 0;

	*fired = 0;
	if ((rc = store_begin(s)) != STORE_OK)
		return rc;
	rc = run(s, STMT_SCHED_ADVANCE, adv, NVAL(adv), "fire schedule",
	    &changed);
	/* One at a time, as Flink's max_concurrent of 1: not queued up. */
	if (rc == STORE_OK && changed > 0 && skip == NULL &&
	    query(s, &r, STMT_SCHED_BUSY, key, NVAL(key), "schedule") ==
		STORE_OK) {
		if (next(&r) && col_int(&r, 0) != 0)
			skip = strcmp(row->kind, "SAVEPOINT") == 0 ?
			    "a savepoint of the job is still in progress" :
			    "a checkpoint of the job is still in progress";
		rc = end(&r);
	}
	if (rc == STORE_OK && changed > 0) {
		struct store_val slot[] = { VAL_TEXT(row->job.s),
			VAL_TEXT(row->kind), VAL_INT(f->slot_ms),
			VAL_INT(f->now_ms),
			VAL_TEXT(skip == NULL ? f->trigger.s : NULL),
			VAL_TEXT(skip) };
		struct store_val missed[] = { VAL_INT(f->missed) };

		if (f->missed > 0)
			rc = run(s, STMT_SCHED_MISSED_ADD, missed, NVAL(missed),
			    "count missed slots", NULL);
		if (rc == STORE_OK &&
		    (rc = run(s, STMT_SCHED_SLOT, slot, NVAL(slot),
			 "record slot", NULL)) == STORE_OK &&
		    (skip != NULL ||
			(rc = schedule_record(s, row, f)) == STORE_OK))
			rc = run(s, STMT_SCHED_SLOTS_PRUNE, key, NVAL(key),
			    "prune slots", NULL);
	}
	if (rc != STORE_OK || changed == 0) {
		store_rollback(s);
		return rc;
	}
	if ((rc = store_commit(s)) == STORE_OK) {
		*fired = skip == NULL ? 1 : 2;
		f->skipped = skip;
	}
	return rc;
}

/* --- Retention --- */

enum store_rc
store_retention_set(struct store *s, const struct id *job, const char *kind,
    int64_t keep_last, int64_t keep_ms, const char *set_by, int64_t now_ms)
{
	struct store_val v[] = { VAL_TEXT(job->s), VAL_TEXT(kind),
		VAL_INT_OR_NULL(keep_last, keep_last <= 0),
		VAL_INT_OR_NULL(keep_ms, keep_ms <= 0), VAL_TEXT(set_by),
		VAL_INT(now_ms) };
	enum store_rc rc;

	if (keep_last > 0 || keep_ms > 0)
		return run_one(s, STMT_RETAIN_SET, v, NVAL(v), "set retention");
	if ((rc = store_job_known(s, job)) != STORE_OK)
		return rc;
	return run(s, STMT_RETAIN_CLEAR, v, 2, "clear retention", NULL);
}

enum store_rc
store_retention_get(struct store *s, const struct id *job, const char *kind,
    int64_t *keep_last, int64_t *keep_ms)
{
	struct store_val v[] = { VAL_TEXT(job->s), VAL_TEXT(kind) };

	*keep_last = *keep_ms = 0;
	return one_row(s, STMT_RETAIN_GET, v, NVAL(v), "read retention", "ii",
	    keep_last, keep_ms);
}

enum store_rc
store_savepoint_keep(struct store *s, const struct id *job,
    const struct id *trigger, int64_t checkpoint_id, int64_t kept_ms)
{
	struct store_val v[] = { VAL_TEXT(job->s),
		VAL_TEXT(trigger != NULL ? trigger->s : NULL),
		VAL_INT_OR_NULL(checkpoint_id, trigger != NULL),
		VAL_INT_OR_NULL(kept_ms, kept_ms <= 0) };

	return run_one(s, STMT_SP_KEEP, v, NVAL(v), "keep savepoint");
}

enum store_rc
store_retention_list(struct store *s, const struct id *job,
    store_retention_cb cb, void *arg)
{
	struct store_val v[] = { VAL_TEXT(job != NULL ? job->s : NULL) };
	struct store_rows r;
	struct retention_row e;

	if (query(s, &r,
		job != NULL ? STMT_RETAIN_CANDIDATES_JOB :
			      STMT_RETAIN_CANDIDATES,
		v, NVAL(v), "list retention") == STORE_OK)
		while (next_row(&r, &e, sizeof(e), "dtditiiiitnii", &e.job,
			   &e.kind, &e.trigger, &e.checkpoint_id, &e.location,
			   &e.completed_ms, &e.kept_ms, &e.keep_last,
			   &e.keep_ms, &e.disposal_status, &e.disposal_failed,
			   &e.disposal_attempts, &e.disposal_completed_ms) &&
		    cb(&e, arg) == 0)
			;
	return end(&r);
}

enum store_rc
store_retention_due(struct store *s, int64_t now_ms, store_retention_due_cb cb,
    void *arg)
{
	struct store_val v[] = { VAL_INT(now_ms) };
	struct store_rows r;
	struct retention_due e;

	if (query(s, &r, STMT_RETAIN_DUE, v, NVAL(v), "due retention") ==
	    STORE_OK)
		while (next_row(&r, &e, sizeof(e), "dti", &e.job, &e.kind,
			   &e.changes) &&
		    cb(&e, arg) == 0)
			;
	return end(&r);
}

enum store_rc
store_retention_next(struct store *s, const struct id *job, const char *kind,
    int64_t changes, int64_t due_ms)
{
	struct store_val v[] = { VAL_TEXT(job->s), VAL_TEXT(kind),
		VAL_INT(changes), VAL_INT(due_ms) };

	return run(s, STMT_RETAIN_NEXT, v, NVAL(v), "retention next", NULL);
}

enum store_rc
store_schedule_missed(struct store *s, int64_t *n)
{
	enum store_rc rc;

	*n = 0;
	rc = one_row(s, STMT_SCHED_MISSED_TOTAL, NULL, 0, "count missed slots",
	    "i", n);
	return rc == STORE_NOTFOUND ? STORE_OK : rc;
}

enum store_rc
store_disposal_counts(struct store *s, int64_t n[3])
{
	enum store_rc rc;

	n[0] = n[1] = n[2] = 0;
	rc = one_row(s, STMT_DISPOSAL_COUNTS, NULL, 0, "count disposals", "iii",
	    &n[0], &n[1], &n[2]);
	return rc == STORE_NOTFOUND ? STORE_OK : rc;
}
