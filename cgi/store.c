/*
 * The store's front and its glue: store_open picks a driver by the value
 * of CHECKPOINT_DB (a libpq URI: PostgreSQL, store_pg.c; anything else:
 * a SQLite file, store_sqlite.c) and hands back a struct store whose
 * first member is the driver's table (store_impl.h).  Here are what
 * every other store file reads rows with (store_q_*), the transactions,
 * and the capabilities, asked for by store_can or answered here as
 * nothing to do where a driver has none.  Each concern's operations are
 * in a file of its own (cgi/README); nothing above store.h knows which
 * driver it talks to.
 */
#include <config.h>

#include <sys/stat.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	return store_count(s->ops->migrations);
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
		return ops->in_flight > 1;
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

enum store_rc
store_q_query(struct store *s, struct store_rows *r, enum stmt id,
    const struct store_val *v, int n, const char *what)
{
	return s->ops->query(s, r, id, v, n, what);
}

int
store_q_next(struct store_rows *r)
{
	return r->s->ops->next(r);
}

int64_t
store_q_int(const struct store_rows *r, int i)
{
	return r->s->ops->col_int(r, i);
}

const char *
store_q_text(const struct store_rows *r, int i)
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
			*va_arg(ap, int64_t *) = store_q_int(r, i);
			break;
		case 'b':
			*va_arg(ap, int *) = store_q_int(r, i) != 0;
			break;
		case 't':
			*va_arg(ap, const char **) = store_q_text(r, i);
			break;
		case 'n':
			*va_arg(ap, int *) = store_q_text(r, i) != NULL;
			break;
		case 'd':
			id = va_arg(ap, struct id *);
			if ((v = store_q_text(r, i)) == NULL ||
			    id_parse_str(v, id) == -1)
				memset(id, 0, sizeof(*id));
			break;
		case 'T':
			ckpt_type_parse(store_q_text(r, i),
			    va_arg(ap, enum ckpt_type *));
			break;
		case 'S':
			job_state_parse(store_q_text(r, i),
			    va_arg(ap, enum job_state *));
			break;
		case 'c':
			copy = va_arg(ap, char **);
			*copy = NULL;
			if ((v = store_q_text(r, i)) != NULL &&
			    (*copy = strdup(v)) == NULL)
				return -1;
			break;
		default: /* '-' */
			break;
		}
	return 0;
}

int
store_q_cols(const struct store_rows *r, const char *kinds, ...)
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
int
store_q_next_row(struct store_rows *r, void *row, size_t size,
    const char *kinds, ...)
{
	va_list ap;

	if (!store_q_next(r))
		return 0;
	memset(row, 0, size);
	va_start(ap, kinds);
	vcols(r, kinds, ap);
	va_end(ap);
	return 1;
}

/* Lets the statement go: the first error met reading it, if any. */
enum store_rc
store_q_end(struct store_rows *r)
{
	r->s->ops->end(r);
	return r->rc;
}

/*
 * Runs a statement through, its rows unread; *changes (if not NULL) is
 * how many rows it wrote.
 */
enum store_rc
store_q_run(struct store *s, enum stmt id, const struct store_val *v, int n,
    const char *what, int64_t *changes)
{
	struct store_rows r;

	if (store_q_query(s, &r, id, v, n, what) == STORE_OK) {
		while (store_q_next(&r))
			;
		if (changes != NULL)
			*changes = r.s->ops->changes(&r);
	}
	return store_q_end(&r);
}

/* A statement that writes one row: STORE_NOTFOUND if it wrote none. */
enum store_rc
store_q_run_one(struct store *s, enum stmt id, const struct store_val *v, int n,
    const char *what)
{
	enum store_rc rc;
	int64_t changed = 0;

	if ((rc = store_q_run(s, id, v, n, what, &changed)) != STORE_OK)
		return rc;
	return changed > 0 ? STORE_OK : STORE_NOTFOUND;
}

/* Appends the first column of the statement's one row, if any. */
enum store_rc
store_q_first_text(struct store *s, enum stmt id, const struct store_val *v,
    int n, const char *what, struct buf *out)
{
	struct store_rows r;
	const char *text;
	int found = 0;

	if (store_q_query(s, &r, id, v, n, what) == STORE_OK &&
	    (found = store_q_next(&r)) &&
	    (text = store_q_text(&r, 0)) != NULL && buf_adds(out, text) != 0)
		r.rc = STORE_ERROR;
	if (store_q_end(&r) != STORE_OK)
		return r.rc;
	return found ? STORE_OK : STORE_NOTFOUND;
}

/*
 * Reads the statement's first row as cols does (without copies), the
 * rest passed over: STORE_NOTFOUND if it has none, the places left as
 * they are.
 */
enum store_rc
store_q_one_row(struct store *s, enum stmt id, const struct store_val *v, int n,
    const char *what, const char *kinds, ...)
{
	struct store_rows r;
	va_list ap;
	int found = 0;

	if (store_q_query(s, &r, id, v, n, what) == STORE_OK &&
	    (found = store_q_next(&r))) {
		va_start(ap, kinds);
		if (vcols(&r, kinds, ap) == -1)
			r.rc = s->ops->fail(s, what, "out of memory");
		va_end(ap);
		while (store_q_next(&r))
			;
	}
	if (store_q_end(&r) != STORE_OK)
		return r.rc;
	return found ? STORE_OK : STORE_NOTFOUND;
}

/*
 * Ends the transaction as rc says: commits it after STORE_OK (the
 * commit's result), or else rolls it back (rc).
 */
enum store_rc
store_q_settle(struct store *s, enum store_rc rc)
{
	if (rc != STORE_OK) {
		store_rollback(s);
		return rc;
	}
	return store_commit(s);
}

/* The serialized-throwable of a failure, where the C code makes it. */
int
store_failure_throwable(struct store *s, const char *class, const char *trace,
    struct buf *th)
{
	if (class == NULL || s->ops->sql_throwable)
		return 0;
	return throwable_base64(th, class, strlen(class), trace, strlen(trace));
}

/*
 * Appends id to the array literal in b, begun with "{" (the caller adds
 * "}" after the last): nothing quoted, since ids are hex.
 */
int
store_id_array_add(struct buf *b, const char *id)
{
	return buf_printf(b, "%s%s", b->len > 1 ? "," : "", id);
}

/* --- To the driver: its transactions, its news, its capabilities --- */

void
store_close(struct store *s)
{
	if (s == NULL)
		return;
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
	return s->ops->record_recv(s, created);
}

enum store_rc
store_begin(struct store *s)
{
	return store_q_run(s, STMT_BEGIN, NULL, 0, "begin", NULL);
}

enum store_rc
store_read_begin(struct store *s)
{
	return store_q_run(s, STMT_BEGIN_READ, NULL, 0, "begin read", NULL);
}

enum store_rc
store_commit(struct store *s)
{
	return s->ops->commit(s);
}

void
store_rollback(struct store *s)
{
	s->ops->rollback(s);
}

/* Without a WAL of the store's own (a server keeps its own), none to do. */
static enum store_rc
wal_checkpoint(struct store *s, enum store_wal mode, int *a, int *b)
{
	*a = *b = 0;
	if (s->ops->wal_checkpoint == NULL)
		return STORE_OK;
	return s->ops->wal_checkpoint(s, mode, a, b);
}

enum store_rc
store_wal_checkpoint(struct store *s, int *busy)
{
	int unused;

	return wal_checkpoint(s, STORE_WAL_TRUNCATE, busy, &unused);
}

enum store_rc
store_wal_checkpoint_passive(struct store *s, int *frames, int *copied)
{
	return wal_checkpoint(s, STORE_WAL_PASSIVE, frames, copied);
}

void
store_housekeeping(struct store *s)
{
	int a, b;

	(void)wal_checkpoint(s, STORE_WAL_GROWN, &a, &b);
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
	return s->ops->replaced != NULL && s->ops->replaced(s, max_age_ms, 0);
}

int
store_moved(struct store *s)
{
	return s->ops->replaced != NULL && s->ops->replaced(s, 0, 1);
}
