/*
 * The SQLite store behind store.h: the embedded default, one file.
 *
 * One connection per process (or per thread), opened after any fork.  Every
 * statement lives in the statement table (store_sql.c, and
 * store_sqlite_sql.c for this dialect's own), is prepared once on first
 * use and is referred to by name.  Transactions that may write are BEGIN IMMEDIATE or a
 * single writing statement, so the lock is taken where the busy handler can
 * wait for it; the handler waits in short steps and gives up after busy_ms,
 * which the caller turns into a retryable 503 (checkpoint-api(7), "ERRORS").
 */
#include <config.h>

#include <sys/inotify.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "clock.h"
#include "db_access.h"
#include "log.h"
#include "schema.h"
#include "store_impl.h"
#include "throwable.h"

static const struct store_ops lite_ops;

/* A WAL this large is truncated after a runner's pass (STORE_WAL_GROWN). */
#define WAL_TRUNCATE_BYTES (4 * 1024 * 1024)
/* "ckpt": marks a database file as ours (PRAGMA application_id). */
#define STORE_APPLICATION_ID 0x636b7074

struct lite {
	struct store base; /* first: the handle store.c hands out */
	sqlite3 *db;
	sqlite3_stmt *stmt[STMT__MAX];
	int64_t busy_ms;
	struct timespec busy_start;
	void (*on_commit)(void *, int); /* struct store_opts' */
	void *on_commit_arg;
	char path[4096];
	int replaced; /* store_replaced said so, and logged it */
	int64_t replaced_checked_ms; /* when store_replaced last looked */
	int watch; /* store_watch_fd's inotify descriptor, or -1 */
	int *sent; /* the batch recorded and not received: its created[] */
	size_t nsent;
};

/*
 * Process-wide SQLite settings, before the first connection (and before
 * any thread uses SQLite).  Memory statistics off, as SQLite recommends
 * (SQLITE_DEFAULT_MEMSTATUS=0): with them, every allocation of every
 * connection takes one process-wide mutex: off, a GET does less and the
 * threads' connections do not contend.
 */
void
store_sqlite_init(void)
{
	(void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

static int
lite_schema_version(void)
{
	return store_count(schema_migrations);
}

/*
 * SQLite's default handler sleeps up to 100 ms between tries, which left
 * several writer processes' POSTs waiting long after the lock was free,
 * and some failed with SQLITE_BUSY all the same
 * (scripts/bench.d/results.md).  Here: sleeps of 0.25 to 2 ms, with a
 * little jitter so that waiters do not retry in step, until busy_ms have
 * passed since this lock wait began.
 */
static int
lite_busy_handler(void *arg, int count)
{
	struct lite *s = arg;
	struct timespec now, ts;
	int64_t waited, step_us;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (count == 0)
		s->busy_start = now;
	waited = (now.tv_sec - s->busy_start.tv_sec) * 1000 +
	    (now.tv_nsec - s->busy_start.tv_nsec) / 1000000;
	if (waited >= s->busy_ms)
		return 0;
	step_us = 250 * (1 + (count < 7 ? count : 7));
	step_us += now.tv_nsec % 250;
	ts.tv_sec = 0;
	ts.tv_nsec = step_us * 1000;
	nanosleep(&ts, NULL);
	return 1;
}

/*
 * SQL serialized_throwable(class, trace): failureCause's
 * "serialized-throwable" of a failure (throwable.c), NULL for a NULL
 * class (no failure).  Registered on every connection, so that whatever
 * stores a failure stores its stream in the same statement, and the
 * migration that added the column could fill it in for the failures
 * already there.
 */
static void
lite_fn_throwable(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct buf b = { 0 };
	const char *class, *trace;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	class = (const char *)sqlite3_value_text(argv[0]);
	trace = (const char *)sqlite3_value_text(argv[1]);
	if (class == NULL ||
	    throwable_base64(&b, class, (size_t)sqlite3_value_bytes(argv[0]),
		trace != NULL ? trace : "",
		trace != NULL ? (size_t)sqlite3_value_bytes(argv[1]) : 0) ==
		-1) {
		buf_free(&b);
		sqlite3_result_error_nomem(ctx);
		return;
	}
	/* SQLite frees the text when it is done with it. */
	sqlite3_result_text64(ctx, b.p, b.len, free, SQLITE_UTF8);
}

/* Logs an error of what s was doing, and keeps its text for store_error. */
static enum store_rc
lite_fail(struct store *base, const char *what, const char *why)
{
	struct lite *s = (struct lite *)base;

	snprintf(s->base.error, sizeof(s->base.error), "%s: %s", what, why);
	log_error("%s: %s", s->path, s->base.error);
	return STORE_ERROR;
}

/*
 * Appends to err why path cannot be opened or written (db_access.h), and
 * says which: a write refused is STORE_READONLY, which retrying cannot
 * mend; anything else stays rc.
 */
static enum store_rc
lite_explain(const char *path, enum store_rc rc, char *err, size_t errlen)
{
	char why[PATH_MAX + 256];
	size_t n;

	switch (db_access_check(path, why, sizeof(why))) {
	case DB_ACCESS_UNWRITABLE:
		rc = STORE_READONLY;
		break;
	case DB_ACCESS_UNREADABLE:
		break;
	default:
		return rc;
	}
	if ((n = strlen(err)) < errlen)
		snprintf(err + n, errlen - n, " (%s)", why);
	return rc;
}

/*
 * An open or a write refused (SQLite's CANTOPEN, READONLY, PERM): logged
 * with the path, the user and the cause, so that the operator knows what
 * to change.  SQLite opens a file it may not write read-only, so a
 * READONLY is a write refused even where the file's modes do not say why
 * (a file replaced under it).
 */
static enum store_rc
lite_refused(struct lite *s, int rc, const char *what)
{
	enum store_rc out;

	snprintf(s->base.error, sizeof(s->base.error), "%s: %s", what,
	    sqlite3_errmsg(s->db));
	out = lite_explain(s->path,
	    (rc & 0xff) == SQLITE_READONLY ? STORE_READONLY : STORE_UNAVAILABLE,
	    s->base.error, sizeof(s->base.error));
	log_error("%s: %s", s->path, s->base.error);
	return out;
}

/* Maps an SQLite result code to the caller's view of it. */
static enum store_rc
lite_rc_from(struct lite *s, int rc, const char *what)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_DONE:
	case SQLITE_ROW:
		return STORE_OK;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		log_warn("%s: %s: %s", s->path, what, sqlite3_errstr(rc));
		return STORE_BUSY;
	case SQLITE_CONSTRAINT:
		/* Only a duplicate key means "already there"; a CHECK is a bug. */
		if (sqlite3_extended_errcode(s->db) ==
			SQLITE_CONSTRAINT_UNIQUE ||
		    sqlite3_extended_errcode(s->db) ==
			SQLITE_CONSTRAINT_PRIMARYKEY)
			return STORE_EXISTS;
		return lite_fail(&s->base, what, sqlite3_errmsg(s->db));
	case SQLITE_CANTOPEN:
	case SQLITE_READONLY:
	case SQLITE_PERM:
		return lite_refused(s, rc, what);
	case SQLITE_NOTADB:
	case SQLITE_IOERR:
	case SQLITE_CORRUPT:
	case SQLITE_FULL:
		lite_fail(&s->base, what, sqlite3_errmsg(s->db));
		return STORE_UNAVAILABLE;
	default:
		return lite_fail(&s->base, what, sqlite3_errmsg(s->db));
	}
}

/* The prepared statement for id, reset and unbound, or NULL (logged). */
static sqlite3_stmt *
stmt_get(struct lite *s, enum stmt id)
{
	const char *sql;
	int rc;

	if (s->stmt[id] != NULL)
		return s->stmt[id];
	if ((sql = store_sql_text(store_sqlite_sql, id)) == NULL) {
		log_error("%s: statement %d has no SQLite form", s->path,
		    (int)id);
		return NULL;
	}
	rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
	    &s->stmt[id], NULL);
	if (rc != SQLITE_OK) {
		log_error("%s: prepare \"%.40s...\": %s", s->path, sql,
		    sqlite3_errmsg(s->db));
		s->stmt[id] = NULL;
	}
	return s->stmt[id];
}

/* Ends a statement's use: no read stays open past an operation. */
static void
stmt_done(sqlite3_stmt *st)
{
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

/* The driver's query: prepared and bound, to be stepped by lite_next. */
static enum store_rc
lite_query(struct store *base, struct store_rows *r, enum stmt id,
    const struct store_val *v, int n, const char *what)
{
	struct lite *s = (struct lite *)base;
	sqlite3_stmt *st;
	int i;

	r->s = base;
	r->what = what;
	r->row = 0;
	r->rc = STORE_OK;
	if ((r->h = st = stmt_get(s, id)) == NULL)
		return r->rc = STORE_ERROR;
	/*
	 * A parameter the statement does not use is left out (SQLITE_RANGE);
	 * NULL text binds SQL NULL.
	 */
	for (i = 0; i < n; i++)
		if (v[i].is_int)
			sqlite3_bind_int64(st, i + 1, v[i].i);
		else
			sqlite3_bind_text(st, i + 1, v[i].s, -1, SQLITE_STATIC);
	return STORE_OK;
}

static int
lite_next(struct store_rows *r)
{
	int rc;

	/* Stepped again after its end, a statement would start over. */
	if (r->rc != STORE_OK || r->row == -1)
		return 0;
	if ((rc = sqlite3_step(r->h)) == SQLITE_ROW)
		return 1;
	r->row = -1;
	r->rc = lite_rc_from((struct lite *)r->s, rc, r->what);
	return 0;
}

static int64_t
lite_col_int(const struct store_rows *r, int i)
{
	return sqlite3_column_int64(r->h, i);
}

static const char *
lite_col_text(const struct store_rows *r, int i)
{
	return (const char *)sqlite3_column_text(r->h, i);
}

static int64_t
lite_changes(const struct store_rows *r)
{
	return sqlite3_changes(((struct lite *)r->s)->db);
}

/*
 * Lets the statement go.  A column that SQLite could not hand over for
 * want of memory read as NULL; the statement keeps that error, and its
 * reset returns it where no step since did: the read fails, so that a
 * row short of a value never passes for a whole one.
 */
static void
lite_end(struct store_rows *r)
{
	int rc;

	if (r->h == NULL)
		return;
	rc = sqlite3_reset(r->h);
	sqlite3_clear_bindings(r->h);
	if (rc != SQLITE_OK && r->rc == STORE_OK)
		r->rc = lite_rc_from((struct lite *)r->s, rc, r->what);
	r->h = NULL;
}

static enum store_rc
lite_exec(struct lite *s, const char *sql, const char *what)
{
	int rc;

	rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	return lite_rc_from(s, rc, what);
}

/* The n integers of sql's first row (0 each where it has none). */
static enum store_rc
lite_ints(struct lite *s, const char *sql, const char *what, int64_t *v, int n)
{
	sqlite3_stmt *st = NULL;
	int rc, i;

	if ((rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL)) == SQLITE_OK)
		rc = sqlite3_step(st);
	for (i = 0; i < n; i++)
		v[i] = rc == SQLITE_ROW ? sqlite3_column_int64(st, i) : 0;
	sqlite3_finalize(st);
	return lite_rc_from(s, rc, what);
}

/*
 * Reads the schema version, the application id and the count of schema
 * objects into v[3], and refuses a database made by a newer version or
 * one that is not ours: it must be left exactly as it was.  Nothing is
 * written.
 */
static enum store_rc
lite_check_ours(struct lite *s, int64_t *v, char *err, size_t errlen)
{
	enum store_rc rc;
	int target = lite_schema_version();

	/* Three statements: cheaper to prepare than one of three pragmas. */
	if ((rc = lite_ints(s, "PRAGMA user_version", "read the schema version",
		 &v[0], 1)) != STORE_OK ||
	    (rc = lite_ints(s, "PRAGMA application_id",
		 "read the schema version", &v[1], 1)) != STORE_OK ||
	    (rc = lite_ints(s, "SELECT count(*) FROM sqlite_schema",
		 "read the schema version", &v[2], 1)) != STORE_OK) {
		snprintf(err, errlen, "%s: %s", s->path, sqlite3_errmsg(s->db));
		return rc;
	}
	if (v[1] != STORE_APPLICATION_ID && (v[1] != 0 || v[2] != 0)) {
		snprintf(err, errlen,
		    "%s: not a checkpoint-api database "
		    "(application_id %lld, %lld schema objects)",
		    s->path, (long long)v[1], (long long)v[2]);
		return STORE_UNAVAILABLE;
	}
	if (v[0] > target) {
		snprintf(err, errlen,
		    "%s: schema version %lld is newer than "
		    "this program's %d; upgrade checkpoint-api",
		    s->path, (long long)v[0], target);
		return STORE_NEWER;
	}
	return STORE_OK;
}

/*
 * Brings the schema, whose v[3] lite_check_ours read, up to date in one
 * transaction, recorded in PRAGMA user_version.  A database of a newer
 * version, or a non-empty database that is not ours, is refused and left
 * untouched.
 */
static enum store_rc
lite_migrate(struct lite *s, int64_t *v, char *err, size_t errlen)
{
	enum store_rc rc;
	int target = lite_schema_version(), i;
	char sql[128];

	if (v[0] == target && v[1] == STORE_APPLICATION_ID)
		return STORE_OK;
	if ((rc = lite_exec(s, "BEGIN IMMEDIATE", "migrate")) != STORE_OK) {
		snprintf(err, errlen, "%s: cannot lock for migration: %s",
		    s->path, sqlite3_errmsg(s->db));
		return rc;
	}
	/* Read again under the lock: another process may have migrated. */
	if ((rc = lite_check_ours(s, v, err, errlen)) != STORE_OK)
		goto fail;
	for (i = (int)v[0]; i < target; i++) {
		if (sqlite3_exec(s->db, schema_migrations[i], NULL, NULL,
			NULL) != SQLITE_OK) {
			snprintf(err, errlen, "%s: migration %d: %s", s->path,
			    i + 1, sqlite3_errmsg(s->db));
			rc = STORE_ERROR;
			goto fail;
		}
		log_info("%s: applied schema migration %d", s->path, i + 1);
	}
	snprintf(sql, sizeof(sql),
	    "PRAGMA application_id = %d; "
	    "PRAGMA user_version = %d",
	    STORE_APPLICATION_ID, target);
	if ((rc = lite_exec(s, sql, "migrate")) != STORE_OK ||
	    (rc = lite_exec(s, "COMMIT", "migrate")) != STORE_OK) {
		snprintf(err, errlen, "%s: migration: %s", s->path,
		    sqlite3_errmsg(s->db));
		goto fail;
	}
	return STORE_OK;
fail:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/*
 * Makes the database file, empty (which SQLite takes for a new database),
 * where there is none, with the mode any program's new file gets: 0666
 * less the umask.  SQLite alone would make it 0644 less the umask, never
 * group-writable, and the other service sharing the setgid directory
 * could then not write it; SQLite gives the -wal and -shm the database's
 * mode.  open(2) applies the umask itself, so nothing here reads it: only
 * umask(2) could, by setting it, and another of the app's threads making
 * a file in between would get the wrong mask.  O_EXCL leaves a file
 * already there, or one another process is making, as it is.  A failure
 * is SQLite's to report: its open meets the same cause and says why.
 * An in-memory database has no file, and a "file:" URI (which SQLite
 * builds may read as one) names its file otherwise: SQLite makes those.
 */
static void
lite_create(const char *path)
{
	int fd;

	if (*path == '\0' || strcmp(path, ":memory:") == 0 ||
	    strncmp(path, "file:", 5) == 0)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd != -1)
		close(fd);
}

/*
 * Whether path names a database file that is not there, or is empty (as
 * a mistyped or half-made deployment leaves it): one that only
 * checkpointctl init may make (store_opts.create).  SQLite's own names
 * (":memory:", "file:" URIs) are its to judge.
 */
static int
lite_absent(const char *path)
{
	struct stat sb;
	char wal[PATH_MAX];

	if (strcmp(path, ":memory:") == 0 || strncmp(path, "file:", 5) == 0)
		return 0;
	if (stat(path, &sb) == -1)
		return errno == ENOENT;
	/* Empty with a WAL: the WAL may hold it all. */
	snprintf(wal, sizeof(wal), "%s-wal", path);
	return S_ISREG(sb.st_mode) && sb.st_size == 0 && stat(wal, &sb) == -1 &&
	    errno == ENOENT;
}

/* Makes the file where o->create says so; else one not there is said. */
static enum store_rc
lite_make_or_find(const struct store_opts *o, char *err, size_t errlen)
{
	if (o->create)
		lite_create(o->path);
	else if (lite_absent(o->path)) {
		snprintf(err, errlen,
		    "%s: no database there; checkpointctl init makes it",
		    o->path);
		return STORE_MISSING;
	}
	return STORE_OK;
}

/*
 * The connection to o->path, the busy handler waiting on it, and the
 * function the schema's migrations and the C code's failures use.
 */
static enum store_rc
lite_connect(struct lite *s, const struct store_opts *o, char *err,
    size_t errlen)
{
	if (sqlite3_open_v2(o->path, &s->db,
		SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
		    (o->create ? SQLITE_OPEN_CREATE : 0),
		NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", o->path,
		    s->db ? sqlite3_errmsg(s->db) : "cannot open");
		return STORE_UNAVAILABLE;
	}
	sqlite3_extended_result_codes(s->db, 0);
	sqlite3_busy_handler(s->db, lite_busy_handler, s);
	/* Never in a view, a trigger or a CHECK: the sqlite3 shell, which
	 * lacks it, must read every one of them. */
	if (sqlite3_create_function_v2(s->db, "serialized_throwable", 2,
		SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, NULL,
		lite_fn_throwable, NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", o->path, sqlite3_errmsg(s->db));
		return STORE_ERROR;
	}
	return STORE_OK;
}

/*
 * Calls the store's on_commit (struct store_opts) after each commit on
 * this connection with the WAL's size in frames, instead of checkpointing
 * in the committing thread (SQLite's automatic checkpoint, which it
 * replaces): the group committer leaves that to a thread of its own, off
 * the path of every POST.
 */
static int
lite_wal_hook(void *p, sqlite3 *db, const char *name, int frames)
{
	struct lite *s = p;

	(void)db;
	(void)name;
	s->on_commit(s->on_commit_arg, frames);
	return SQLITE_OK;
}

/*
 * The connection's settings: WAL, the sync level, the page cache, and
 * who hears of each commit.
 */
static enum store_rc
lite_settings(struct lite *s, const struct store_opts *o, char *err,
    size_t errlen)
{
	enum store_rc rc;
	int64_t wal;
	char sql[128];

	/* journal_mode is persistent: set it only when it is not WAL yet. */
	if ((rc = lite_ints(s,
		 "SELECT journal_mode = 'wal' FROM pragma_journal_mode", "open",
		 &wal, 1)) != STORE_OK) {
		snprintf(err, errlen, "%s: %s", o->path, sqlite3_errmsg(s->db));
		return rc;
	}
	if (!wal &&
	    (rc = lite_exec(s, "PRAGMA journal_mode = WAL", "journal_mode")) !=
		STORE_OK) {
		snprintf(err, errlen, "%s: cannot enable WAL: %s", o->path,
		    sqlite3_errmsg(s->db));
		return rc;
	}
	snprintf(sql, sizeof(sql), "PRAGMA synchronous = %s",
	    o->sync_normal ? "NORMAL" : "FULL");
	if ((rc = lite_exec(s, sql, "synchronous")) != STORE_OK) {
		snprintf(err, errlen, "%s: %s", o->path, sqlite3_errmsg(s->db));
		return rc;
	}
	if (o->cache_kib > 0) {
		snprintf(sql, sizeof(sql), "PRAGMA cache_size = -%lld",
		    (long long)o->cache_kib);
		lite_exec(s, sql, "cache_size");
	}
	if (o->on_commit != NULL) {
		s->on_commit = o->on_commit;
		s->on_commit_arg = o->on_commit_arg;
		sqlite3_wal_hook(s->db, lite_wal_hook, s);
	}
	return STORE_OK;
}

/*
 * Opens and migrates the database, creating it only where o->create says
 * so.  On failure *out is NULL and err says why, with the path: for logs,
 * never for clients.
 */
enum store_rc
store_sqlite_open(const struct store_opts *o, struct store **out, char *err,
    size_t errlen)
{
	struct lite *s;
	enum store_rc rc;
	int64_t ours[3];

	*out = NULL;
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return STORE_ERROR;
	}
	s->base.ops = &lite_ops;
	s->watch = -1;
	snprintf(s->path, sizeof(s->path), "%s", o->path);
	s->busy_ms = o->busy_ms > 0 ? o->busy_ms : 2000;
	if ((rc = lite_make_or_find(o, err, errlen)) != STORE_OK ||
	    (rc = lite_connect(s, o, err, errlen)) != STORE_OK ||
	    (rc = lite_check_ours(s, ours, err, errlen)) != STORE_OK ||
	    (rc = lite_settings(s, o, err, errlen)) != STORE_OK ||
	    (rc = lite_migrate(s, ours, err, errlen)) != STORE_OK)
		goto fail;
	/*
	 * A transaction must end even when memory has run out, and a
	 * statement prepared on first use would need some then.
	 */
	if (stmt_get(s, STMT_ROLLBACK) == NULL) {
		snprintf(err, errlen, "%s: %s", o->path, sqlite3_errmsg(s->db));
		rc = STORE_ERROR;
		goto fail;
	}
	*out = &s->base;
	return STORE_OK;
fail:
	/* An open or a write refused, not a bad file: say why. */
	if ((rc == STORE_UNAVAILABLE || rc == STORE_READONLY) &&
	    (s->db == NULL || sqlite3_errcode(s->db) == SQLITE_CANTOPEN ||
		sqlite3_errcode(s->db) == SQLITE_READONLY ||
		sqlite3_errcode(s->db) == SQLITE_PERM))
		rc = lite_explain(o->path, rc, err, errlen);
	store_close(&s->base);
	return rc;
}

static void
lite_close(struct store *base)
{
	struct lite *s = (struct lite *)base;
	int i;

	if (s == NULL)
		return;
	for (i = 0; i < STMT__MAX; i++)
		sqlite3_finalize(s->stmt[i]);
	sqlite3_close(s->db);
	if (s->watch != -1)
		close(s->watch);
	free(s->sent);
	free(s);
}

/*
 * Runs statement id, which takes no parameters, once: the first column of
 * a row it returned in *v (when v is not NULL).
 */
static enum store_rc
lite_simple(struct lite *s, enum stmt id, const char *what, int64_t *v)
{
	sqlite3_stmt *st;
	int rc;

	if ((st = stmt_get(s, id)) == NULL)
		return STORE_ERROR;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && v != NULL)
		*v = sqlite3_column_int64(st, 0);
	stmt_done(st);
	return lite_rc_from(s, rc, what);
}

static enum store_rc
lite_commit(struct store *base)
{
	struct lite *s = (struct lite *)base;
	enum store_rc rc;

	if ((rc = lite_simple(s, STMT_COMMIT, "commit", NULL)) != STORE_OK)
		store_rollback(&s->base);
	return rc;
}

static void
lite_rollback(struct store *base)
{
	struct lite *s = (struct lite *)base;
	if (!sqlite3_get_autocommit(s->db))
		lite_simple(s, STMT_ROLLBACK, "rollback", NULL);
}

/* Runs a post's statement through: *created, whether it wrote a row. */
static enum store_rc
lite_record(struct lite *s, enum stmt id, const struct store_val *v, int nv,
    int *created)
{
	struct store_rows r;

	if (lite_query(&s->base, &r, id, v, nv, "record") == STORE_OK) {
		while (lite_next(&r))
			;
		*created = lite_changes(&r) > 0;
	}
	lite_end(&r);
	return r.rc;
}

/*
 * A batch recorded at once, in one transaction (a trigger alone: its own
 * statement, a transaction of its own), its created[] kept for
 * lite_record_recv; on failure nothing is recorded or kept.
 */
static enum store_rc
lite_record_send(struct store *base, const struct trigger_rec *const *t,
    const struct store_val *v, int nv, size_t n)
{
	struct lite *s = (struct lite *)base;
	int alone = n == 1 && t[0] != NULL;
	enum store_rc rc = STORE_OK;
	size_t i;

	if (s->sent != NULL || n == 0)
		return lite_fail(base, "record", "a batch is not received yet");
	if ((s->sent = calloc(n, sizeof(*s->sent))) == NULL)
		return lite_fail(base, "record", "out of memory");
	s->nsent = n;
	if (!alone)
		rc = lite_simple(s, STMT_BEGIN, "begin", NULL);
	for (i = 0; i < n && rc == STORE_OK; i++)
		rc = lite_record(s, t[i] != NULL ? STMT_RECORD : STMT_SP_RECORD,
		    &v[i * (size_t)nv], nv, &s->sent[i]);
	if (!alone && rc == STORE_OK)
		rc = lite_commit(base);
	else if (!alone)
		lite_rollback(base);
	if (rc != STORE_OK) {
		free(s->sent);
		s->sent = NULL;
	}
	return rc;
}

static enum store_rc
lite_record_recv(struct store *base, int *created)
{
	struct lite *s = (struct lite *)base;

	if (s->sent == NULL)
		return lite_fail(base, "record", "no batch was sent");
	memcpy(created, s->sent, s->nsent * sizeof(*created));
	free(s->sent);
	s->sent = NULL;
	return STORE_OK;
}

/* Truncates the WAL; *busy is set when readers kept it from finishing. */
static enum store_rc
lite_wal_truncate(struct lite *s, int *busy)
{
	int64_t v = 0;
	enum store_rc rc;

	rc = lite_simple(s, STMT_WAL_CHECKPOINT, "wal checkpoint", &v);
	*busy = (int)v;
	return rc;
}

/*
 * Copies what it can of the WAL into the database without waiting for
 * readers or writers (SQLITE_CHECKPOINT_PASSIVE); the next writer then
 * starts the WAL over from its beginning, overwriting instead of growing
 * it.  *frames and *copied are the WAL's frames and those in the database.
 */
static enum store_rc
lite_wal_passive(struct lite *s, int *frames, int *copied)
{
	int rc;

	rc = sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_PASSIVE,
	    frames, copied);
	/* Another checkpoint is under way: nothing to say. */
	if (rc == SQLITE_BUSY)
		return STORE_BUSY;
	return lite_rc_from(s, rc, "passive wal checkpoint");
}

/* Truncates the WAL once it has grown; readers may keep it from that. */
static enum store_rc
lite_wal_grown(struct lite *s)
{
	char wal[sizeof(s->path) + 4];
	struct stat sb;
	int busy;

	if (snprintf(wal, sizeof(wal), "%s-wal", s->path) >= (int)sizeof(wal) ||
	    stat(wal, &sb) == -1 || sb.st_size < WAL_TRUNCATE_BYTES)
		return STORE_OK;
	if (lite_wal_truncate(s, &busy) == STORE_OK && !busy)
		log_info("%s: WAL truncated from %lld bytes", s->path,
		    (long long)sb.st_size);
	return STORE_OK;
}

static enum store_rc
lite_wal_checkpoint(struct store *base, enum store_wal mode, int *a, int *b)
{
	struct lite *s = (struct lite *)base;

	switch (mode) {
	case STORE_WAL_PASSIVE:
		return lite_wal_passive(s, a, b);
	case STORE_WAL_GROWN:
		return lite_wal_grown(s);
	default:
		return lite_wal_truncate(s, a);
	}
}

/* Whether the file at the store's path is no longer the one it has open. */
static int
lite_moved(struct lite *s)
{
	int moved = 0;

	return sqlite3_file_control(s->db, "main", SQLITE_FCNTL_HAS_MOVED,
		   &moved) == SQLITE_OK &&
	    moved;
}

/*
 * Whether the file at the store's path is no longer the one it has open:
 * renamed over or removed, as by restoring a backup with mv.  Its writes
 * would then go to a file no other program reads, and be lost; opening
 * the new file beside connections to the old one (this process's, the
 * runner's) is no better, since both would share the -wal file by name.
 * The caller answers 503 instead, until a restart; the log says why,
 * once.  One stat(2), unless the last look was under max_age_ms ago
 * (0: look now).  A commit looks every time, so that no 202 goes to the
 * old file; a read may look less often (a stat is a noticeable part of
 * a GET), since until a commit has seen the new file, the old one holds
 * every trigger answered 202.  quiet: asked afresh, said nowhere and not
 * remembered (store_moved): a watching runner then opens the new one.
 */
static int
lite_replaced(struct store *base, int64_t max_age_ms, int quiet)
{
	struct lite *s = (struct lite *)base;
	int64_t now;

	if (quiet)
		return lite_moved(s);
	if (s->replaced)
		return 1;
	if (max_age_ms > 0) {
		now = clock_ms(CLOCK_MONOTONIC_COARSE);
		if (now - s->replaced_checked_ms < max_age_ms)
			return 0;
		s->replaced_checked_ms = now;
	}
	if (!lite_moved(s))
		return 0;
	log_error("%s: the database file was replaced or removed while open; "
		  "restart to use the new one (restore a backup with sqlite3 "
		  ".restore, which is safe while running)",
	    s->path);
	s->replaced = 1;
	return 1;
}

/* Changes whenever another connection commits (PRAGMA data_version). */
static enum store_rc
lite_data_version(struct store *base, int64_t *version)
{
	struct lite *s = (struct lite *)base;
	char buf[4096];

	/* What the watch reported is in data_version already. */
	while (s->watch != -1 && read(s->watch, buf, sizeof(buf)) > 0)
		;
	return lite_simple(s, STMT_DATA_VERSION, "data_version", version);
}

/*
 * An inotify watch on the database's directory, made on the first call
 * and closed with the store: every commit of another process writes the
 * -wal file there.  -1 if inotify is not to be had; the watcher then
 * polls.  lite_data_version reads what the watch reported.
 */
static int
lite_watch_fd(struct store *base)
{
	struct lite *s = (struct lite *)base;
	char dir[sizeof(s->path)];
	int fd;

	if (s->watch != -1)
		return s->watch;
	snprintf(dir, sizeof(dir), "%s", s->path);
	if ((fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) == -1)
		return -1;
	if (inotify_add_watch(fd, dirname(dir),
		IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE) == -1) {
		close(fd);
		return -1;
	}
	return s->watch = fd;
}

/* The database, and the WAL and its index SQLite keeps beside it. */
static const char *const lite_files[] = { "", "-wal", "-shm", NULL };

static const struct store_ops lite_ops = {
	.name = "sqlite",
	.files = lite_files,
	.query = lite_query,
	.next = lite_next,
	.col_int = lite_col_int,
	.col_text = lite_col_text,
	.changes = lite_changes,
	.end = lite_end,
	.fail = lite_fail,
	.sql = store_sqlite_sql,
	.sql_throwable = 1,
	.migrations = schema_migrations,
	.close = lite_close,
	.commit = lite_commit,
	.rollback = lite_rollback,
	.record_send = lite_record_send,
	.record_recv = lite_record_recv,
	.in_flight = 1,
	.wal_checkpoint = lite_wal_checkpoint,
	.data_version = lite_data_version,
	.replaced = lite_replaced,
	.watch_fd = lite_watch_fd,
};

const struct store_ops *
store_sqlite_ops(void)
{
	return &lite_ops;
}
