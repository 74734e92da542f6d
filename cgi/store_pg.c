/*
 * The PostgreSQL store behind store.h: one database shared by many hosts,
 * chosen by a postgresql:// (or postgres://) URI in CHECKPOINT_DB.
 *
 * One connection (PGconn) per store; a store is used by one thread at a
 * time, as libpq requires.  Every statement lives in the statement table
 * (store_sql.c, and store_pg_sql.c for this dialect's own), is prepared
 * on its connection on first use and is referred to by name.  Here are
 * the connection, its errors, its statements run and their rows, the
 * transactions and the notifications; the opening and the migrations are
 * store_pg_open.c's, the committer's pipeline store_pg_pipeline.c's.
 *
 * Times.  Every time stored or compared (created_ms, completed_ms,
 * claimed_ms, lease_ms, retention, updated_ms, a runner's pass) is taken
 * from the database server's clock (NOW_MS), never from the caller's
 * now_ms: web hosts and runners on several machines must agree on what
 * "expired" means, and one clock is the only way to be sure they do.
 *
 * Concurrency.  Statements run at READ COMMITTED.  Runner rounds run at
 * the same time on several hosts (SQLite's BEGIN IMMEDIATE serialised
 * them), so a round locks the job rows of the triggers it decides, in
 * job id order, before it decides any (STMT_LOCK_JOBS,
 * store_pg_round.c): two rounds never decide triggers of one job at once, and
 * ids stay dense and unique per job.
 *
 * Errors.  SQLSTATEs become store_rc (pg_rc_from): a lost connection is
 * STORE_UNAVAILABLE and marks the store dead, so that every later call
 * fails at once until the caller closes it and opens another (libpq with
 * a multi-host URI and target_session_attrs=read-write then finds the
 * primary after a failover).  A password never reaches a log line or an
 * error text: the server is named by host, port and database.
 *
 * Notifications.  A runner's --watch listens on checkpoint_triggers
 * (store_watch_fd); writers notify after their commit, never inside the
 * transaction of a POST (see pg_pipe_send_notify).
 */
#include <config.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "log.h"
#include "schema.h"
#include "store_pg_impl.h"

static const struct store_ops pg_ops;

void
store_pg_init(void)
{
	/* libpq is thread-safe when built so (Debian's is): one per conn. */
	if (!PQisthreadsafe())
		log_warn("libpq is not thread-safe; use one FastCGI thread");
}

int
pg_schema_version(void)
{
	return store_count(schema_pg_migrations);
}

/*
 * Every occurrence of a secret of s in text replaced, in place, by "***"
 * (by as many stars as it has characters, when shorter: text never
 * grows).
 */
void
pg_scrub(const struct pg *s, char *text)
{
	char *p, *q;
	size_t i, n, stars;

	for (i = 0; i < sizeof(s->secret) / sizeof(s->secret[0]); i++) {
		if ((n = strlen(s->secret[i])) == 0)
			continue;
		stars = n < 3 ? n : 3;
		for (p = text; (q = strstr(p, s->secret[i])) != NULL;
		     p = q + stars) {
			memmove(q + stars, q + n, strlen(q + n) + 1);
			memset(q, '*', stars);
		}
	}
}

/* libpq's message on one line, scrubbed, into out. */
void
pg_message(const struct pg *s, const char *msg, char *out, size_t len)
{
	size_t n;
	char *p;

	snprintf(out, len, "%s", msg != NULL && *msg != '\0' ? msg : "error");
	n = strlen(out);
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = '\0';
	for (p = out; *p != '\0'; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	pg_scrub(s, out);
}

/* Keeps "what: why" for store_error, and logs it with the server. */
static void
pg_set_error(struct pg *s, const char *what, const char *why, int warn)
{
	char msg[400];

	pg_message(s, why, msg, sizeof(msg));
	snprintf(s->base.error, sizeof(s->base.error), "%s: %s", what, msg);
	if (warn)
		log_warn("%s: %s", s->where, s->base.error);
	else
		log_error("%s: %s", s->where, s->base.error);
}

enum store_rc
pg_fail(struct store *base, const char *what, const char *why)
{
	pg_set_error((struct pg *)base, what, why, 0);
	return STORE_ERROR;
}

/* The connection is gone: every later call fails at once. */
enum store_rc
pg_lost(struct pg *s, const char *what, const char *why)
{
	s->dead = 1;
	pg_set_error(s, what, why, 0);
	return STORE_UNAVAILABLE;
}

/*
 * Maps a failed result to the caller's view of it (see the top of the
 * file); the error is logged and kept for store_error.
 */
enum store_rc
pg_rc_from(struct pg *s, const PGresult *res, const char *what)
{
	/* libpq's "" where res is NULL */
	const char *state, *msg = PQresultErrorMessage(res);

	if (res == NULL || PQstatus(s->conn) == CONNECTION_BAD)
		return pg_lost(s, what,
		    *msg != '\0' ? msg : PQerrorMessage(s->conn));
	state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	if (state == NULL)
		state = "";
	snprintf(s->state, sizeof(s->state), "%s", state);
	/* Only a duplicate key means "already there"; a CHECK is a bug. */
	if (strcmp(state, "23505") == 0)
		return STORE_EXISTS;
	/* Serialization, deadlock, lock or statement timeout: retry. */
	if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0 ||
	    strcmp(state, "55P03") == 0 || strcmp(state, "57014") == 0) {
		pg_set_error(s, what, msg, 1);
		return STORE_BUSY;
	}
	/*
	 * The connection or the server is going (class 08, admin or crash
	 * shutdown, cannot connect now, too many connections): another
	 * connection, perhaps to another host, may do.
	 */
	if (strncmp(state, "08", 2) == 0 || strcmp(state, "57P01") == 0 ||
	    strcmp(state, "57P02") == 0 || strcmp(state, "57P03") == 0 ||
	    strcmp(state, "53300") == 0)
		return pg_lost(s, what, msg);
	/*
	 * A read-only transaction: this is no longer the primary (after a
	 * failover), or the server was set read-only.  The connection is
	 * dropped, so that the next one may find the new primary: where the
	 * URI asks for a writable host it will look for one, and the
	 * request may be retried; otherwise writes are refused until
	 * someone acts, which the answer says.
	 */
	if (strcmp(state, "25006") == 0) {
		pg_lost(s, what, msg);
		return s->wants_primary ? STORE_UNAVAILABLE : STORE_READONLY;
	}
	pg_set_error(s, what, msg, 0);
	/* Disk full, out of memory, I/O error: as SQLite's FULL and IOERR. */
	if (strncmp(state, "53", 2) == 0 || strncmp(state, "58", 2) == 0)
		return STORE_UNAVAILABLE;
	return STORE_ERROR;
}

/*
 * Notices from the server.  A COMMIT whose wait for a synchronous standby
 * was cancelled (statement cancelled, or the standby gone in
 * synchronous_mode_strict) succeeds with only this warning: the
 * transaction is committed locally but may be lost in a failover, so it
 * must not be answered 202 (pg_exec turns it into STORE_UNAVAILABLE).
 */
void
pg_notice(void *arg, const PGresult *res)
{
	struct pg *s = arg;
	const char *state, *msg, *fn;
	char text[400];

	state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
	fn = PQresultErrorField(res, PG_DIAG_SOURCE_FUNCTION);
	if (state != NULL && strcmp(state, "01000") == 0 &&
	    ((fn != NULL && strcmp(fn, "SyncRepWaitForLSN") == 0) ||
		(msg != NULL &&
		    strstr(msg, "canceling wait for synchronous replication") !=
			NULL)))
		s->sync_cancelled = 1;
	pg_message(s, PQresultErrorMessage(res), text, sizeof(text));
	log_debug("%s: %s", s->where, text);
}

/*
 * The next result of what was sent, waiting at most s->wait_ms: past it
 * the statement is cancelled (a COMMIT waiting for a standby then ends
 * with pg_notice's warning), and if no answer comes after all the
 * connection is given up: the answer of a COMMIT may never come.  NULL
 * with *rc set: lost or given up; NULL with STORE_OK: no more results.
 */
PGresult *
pg_next(struct pg *s, const char *what, enum store_rc *rc)
{
	PGcancel *cancel;
	struct pollfd pfd;
	char why[256];
	int64_t left, deadline = clock_ms(CLOCK_MONOTONIC) + s->wait_ms;
	int cancelled = 0;

	*rc = STORE_OK;
	while (PQisBusy(s->conn)) {
		left = deadline - clock_ms(CLOCK_MONOTONIC);
		if (left <= 0 && cancelled) {
			*rc = pg_lost(s, what, "no answer from the server");
			return NULL;
		}
		if (left <= 0) {
			cancelled = 1;
			log_warn("%s: %s: no answer in %lld ms; cancelling",
			    s->where, what, (long long)s->wait_ms);
			if ((cancel = PQgetCancel(s->conn)) != NULL) {
				PQcancel(cancel, why, sizeof(why));
				PQfreeCancel(cancel);
			}
			deadline = clock_ms(CLOCK_MONOTONIC) + 5000;
			continue;
		}
		pfd.fd = PQsocket(s->conn);
		pfd.events = POLLIN;
		if (pfd.fd < 0 ||
		    (poll(&pfd, 1, left > 1000 ? 1000 : (int)left) == -1 &&
			errno != EINTR) ||
		    !PQconsumeInput(s->conn)) {
			*rc = pg_lost(s, what, PQerrorMessage(s->conn));
			return NULL;
		}
	}
	return PQgetResult(s->conn);
}

/* A prepared statement's name on the server: s and its number. */
static const char *
stmt_name(enum stmt id, char *name, size_t len)
{
	snprintf(name, len, "s%d", (int)id);
	return name;
}

/* Makes sure statement id is prepared on the connection. */
enum store_rc
pg_prepare(struct pg *s, enum stmt id, const struct params *p)
{
	PGresult *res;
	enum store_rc rc, failed = STORE_OK;
	char name[16];

	if (s->prepared[id])
		return STORE_OK;
	if (pg_sql(id) == NULL)
		return pg_fail(&s->base, "prepare", "no PostgreSQL form");
	stmt_name(id, name, sizeof(name));
	if (!PQsendPrepare(s->conn, name, pg_sql(id),
		p != NULL && p->typed ? p->n : 0,
		p != NULL && p->typed ? p->type : NULL))
		return pg_rc_from(s, NULL, "prepare");
	while ((res = pg_next(s, "prepare", &rc)) != NULL) {
		if (PQresultStatus(res) != PGRES_COMMAND_OK &&
		    failed == STORE_OK) {
			log_error("%s: prepare \"%.40s...\"", s->where,
			    pg_sql(id));
			failed = pg_rc_from(s, res, "prepare");
		}
		PQclear(res);
	}
	if (rc == STORE_OK && failed == STORE_OK)
		s->prepared[id] = 1;
	return rc != STORE_OK ? rc : failed;
}

/*
 * Statement id's n values as its parameters, into p.  A parameter its SQL
 * leaves unused is typed, since the server cannot infer its type.
 */
void
pg_params(struct pg *s, enum stmt id, const struct store_val *v, int n,
    struct params *p)
{
	const char *q;
	char *end;
	long k;
	int i;

	if (!s->scanned[id] && pg_sql(id) != NULL) {
		s->unused[id] = (1u << PG_MAX_PARAMS) - 1;
		for (q = pg_sql(id); (q = strchr(q, '$')) != NULL; q++)
			if ((k = strtol(q + 1, &end, 10)) >= 1 &&
			    k <= PG_MAX_PARAMS && end != q + 1)
				s->unused[id] &= ~(1u << (k - 1));
		s->scanned[id] = 1;
	}
	p->typed = 0;
	for (i = 0; i < n && i < PG_MAX_PARAMS; i++) {
		p->v[i] = v[i].s;
		if (v[i].is_int) {
			snprintf(p->num[i], sizeof(p->num[i]), "%lld",
			    (long long)v[i].i);
			p->v[i] = p->num[i];
		}
		p->type[i] = 0;
		if (s->unused[id] & (1u << i)) {
			p->type[i] = v[i].is_int ? 20 /* int8 */ :
						   25 /* text */;
			p->typed = 1;
		}
	}
	p->n = i;
}

/*
 * Whether an idle connection was closed by the server (restarted, failed
 * over, or the connection terminated) while nothing was asked of it: its
 * socket is readable, and reading finds the end.
 */
static int
pg_closed_idle(struct pg *s)
{
	struct pollfd pfd;
	int i;

	if (PQtransactionStatus(s->conn) != PQTRANS_IDLE)
		return 0;
	/*
	 * A server that ends a connection sends its FATAL, then closes: two
	 * reads, the second of which finds the end.
	 */
	for (i = 0; i < 4; i++) {
		if ((pfd.fd = PQsocket(s->conn)) < 0)
			return 1;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 0) <= 0)
			return 0;
		if (!PQconsumeInput(s->conn) ||
		    PQstatus(s->conn) != CONNECTION_OK)
			return 1;
	}
	return 0;
}

/*
 * Ready for a statement: not dead, no NOTIFY answer pending.  A
 * connection found closed while idle is made again at once, with its
 * session settings (libpq tries every host of the URI again, so after a
 * failover it finds the new primary): nothing was sent on it, so nothing
 * can have been lost, and the request need not fail.  One that listens is
 * not: the watcher must learn that notifications may have been missed
 * (pg_data_version), and reopens.
 */
enum store_rc
pg_ready(struct pg *s)
{
	if (s->dead) {
		snprintf(s->base.error, sizeof(s->base.error),
		    "the connection to the server was lost");
		return STORE_UNAVAILABLE;
	}
	/*
	 * The committer's pipeline is left once no batch is in it, its
	 * NOTIFYs read, before a statement of its own.
	 */
	if (PQpipelineStatus(s->conn) != PQ_PIPELINE_OFF) {
		if (s->nbatches > 0) {
			snprintf(s->base.error, sizeof(s->base.error),
			    "a statement while a batch is in the pipeline");
			return STORE_ERROR;
		}
		if (pg_pipe_end(s) != STORE_OK)
			return STORE_UNAVAILABLE;
	}
	if (s->listening || !pg_closed_idle(s))
		return STORE_OK;
	log_warn("%s: the server closed the connection; connecting again",
	    s->where);
	PQreset(s->conn);
	memset(s->prepared, 0, sizeof(s->prepared));
	pg_where(s);
	if (PQstatus(s->conn) != CONNECTION_OK)
		return pg_lost(s, "connect again", PQerrorMessage(s->conn));
	if (pg_session(s) != STORE_OK) {
		s->dead = 1;
		return STORE_UNAVAILABLE;
	}
	return STORE_OK;
}

/*
 * A commit pg_notice saw only local: not a success, though the primary
 * has it (a failover may lose it).
 */
enum store_rc
pg_sync_cancelled(struct pg *s, const char *what)
{
	pg_set_error(s, what,
	    "the wait for synchronous replication was cancelled: "
	    "committed on the primary only",
	    0);
	return STORE_UNAVAILABLE;
}

/* Sends statement id, prepared, with p's values. */
int
pg_send(struct pg *s, enum stmt id, const struct params *p)
{
	char name[16];

	return PQsendQueryPrepared(s->conn, stmt_name(id, name, sizeof(name)),
	    p->n, p->v, NULL, NULL, 0);
}

/*
 * Runs statement id with its n values v; *out (if not NULL) gets its
 * result, to be PQclear'ed by the caller, when it succeeded.  A commit
 * that was only local (pg_notice) is STORE_UNAVAILABLE.
 */
enum store_rc
pg_exec(struct pg *s, enum stmt id, const struct store_val *v, int n,
    const char *what, PGresult **out)
{
	struct params p;
	PGresult *res, *last = NULL;
	enum store_rc rc;
	ExecStatusType st;

	if (out != NULL)
		*out = NULL;
	pg_params(s, id, v, n, &p);
	if ((rc = pg_ready(s)) != STORE_OK ||
	    (rc = pg_prepare(s, id, &p)) != STORE_OK)
		return rc;
	s->sync_cancelled = 0;
	if (!pg_send(s, id, &p))
		return pg_rc_from(s, NULL, what);
	while ((res = pg_next(s, what, &rc)) != NULL) {
		PQclear(last);
		last = res;
	}
	if (rc != STORE_OK) {
		PQclear(last);
		return rc;
	}
	st = last != NULL ? PQresultStatus(last) : PGRES_FATAL_ERROR;
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		rc = pg_rc_from(s, last, what);
		PQclear(last);
		return rc;
	}
	if (s->sync_cancelled) {
		PQclear(last);
		return pg_sync_cancelled(s, what);
	}
	if (out != NULL)
		*out = last;
	else
		PQclear(last);
	return STORE_OK;
}

/* An integer column, or a boolean one as 1 or 0 (as SQLite has them). */
static int64_t
col_int(const PGresult *res, int row, int col)
{
	const char *v;

	if (PQgetisnull(res, row, col))
		return 0;
	v = PQgetvalue(res, row, col);
	return v[0] == 't' ? 1 : strtoll(v, NULL, 10);
}

/*
 * The driver's query, run at once: its rows are read from the result;
 * a round's statement locks its jobs first (store_pg_round.c).
 * A parameter the SQL leaves unused is given its type when the
 * statement is prepared; the server could not infer it.
 */
static enum store_rc
pg_query(struct store *base, struct store_rows *r, enum stmt id,
    const struct store_val *v, int n, const char *what)
{
	struct pg *s = (struct pg *)base;
	struct store_val own[PG_MAX_PARAMS];
	PGresult *res;

	r->s = base;
	r->h = NULL;
	r->row = -1;
	r->what = what;
	v = pg_round_vals(s, id, v, n, own, &r->rc);
	if (r->rc == STORE_OK &&
	    (r->rc = pg_exec(s, id, v, n, what, &res)) == STORE_OK) {
		r->h = res;
		r->rc = pg_round_read(s, id, v, res);
	}
	return r->rc;
}

static int
pg_next_row(struct store_rows *r)
{
	if (r->h == NULL || r->row + 1 >= PQntuples(r->h))
		return 0;
	r->row++;
	return 1;
}

static int64_t
pg_col_int(const struct store_rows *r, int i)
{
	return col_int(r->h, r->row, i);
}

static const char *
pg_col_text(const struct store_rows *r, int i)
{
	return PQgetisnull(r->h, r->row, i) ? NULL :
					      PQgetvalue(r->h, r->row, i);
}

static int64_t
pg_changes(const struct store_rows *r)
{
	return r->h != NULL ? strtoll(PQcmdTuples(r->h), NULL, 10) : 0;
}

static void
pg_end(struct store_rows *r)
{
	PQclear(r->h);
	r->h = NULL;
}

/*
 * Runs sql as it is, outside the statement table: the n integers of its
 * first row in v (0 each where it has none).
 */
enum store_rc
pg_simple(struct pg *s, const char *sql, const char *what, int64_t *v, int n)
{
	PGresult *res;
	enum store_rc rc = STORE_OK;
	int i;

	res = PQexec(s->conn, sql);
	if (PQresultStatus(res) != PGRES_TUPLES_OK &&
	    (n > 0 || PQresultStatus(res) != PGRES_COMMAND_OK))
		rc = pg_rc_from(s, res, what);
	for (i = 0; i < n && rc == STORE_OK; i++)
		v[i] = PQntuples(res) > 0 && i < PQnfields(res) ?
		    col_int(res, 0, i) :
		    0;
	PQclear(res);
	return rc;
}

static void
pg_close(struct store *base)
{
	struct pg *s = (struct pg *)base;

	if (s == NULL)
		return;
	/* A NOTIFY's answer read, so that it is not cut off. */
	if (s->conn != NULL && s->nbatches == 0)
		pg_pipe_end(s);
	while (s->npipe > 0)
		pg_pipe_pop(s);
	PQfinish(s->conn);
	buf_free(&s->jobs);
	explicit_bzero(s->secret, sizeof(s->secret));
	free(s);
}

static void
pg_rollback(struct store *base)
{
	struct pg *s = (struct pg *)base;

	pg_round_end(s);
	if (!s->dead && PQtransactionStatus(s->conn) != PQTRANS_IDLE)
		pg_exec(s, STMT_ROLLBACK, NULL, 0, "rollback", NULL);
}

/*
 * A transaction that failed is rolled back, whatever COMMIT would say
 * (PostgreSQL answers COMMIT of a failed transaction with ROLLBACK, and
 * no error).
 */
static enum store_rc
pg_commit(struct store *base)
{
	struct pg *s = (struct pg *)base;
	PGresult *res;
	enum store_rc rc;

	pg_round_end(s);
	if (s->dead)
		return pg_ready(s);
	if (PQtransactionStatus(s->conn) == PQTRANS_INERROR) {
		pg_rollback(base);
		snprintf(s->base.error, sizeof(s->base.error),
		    "commit: the transaction had failed; rolled back");
		return STORE_ERROR;
	}
	if ((rc = pg_exec(s, STMT_COMMIT, NULL, 0, "commit", &res)) !=
	    STORE_OK) {
		pg_rollback(base);
		return rc;
	}
	if (strcmp(PQcmdStatus(res), "COMMIT") != 0) {
		snprintf(s->base.error, sizeof(s->base.error),
		    "commit: the server rolled back");
		rc = STORE_ERROR;
	}
	PQclear(res);
	return rc;
}

/*
 * Grows with each notification on this connection (after store_watch_fd
 * listened).  A broken connection is STORE_UNAVAILABLE, so that a
 * watching runner opens another.
 */
static enum store_rc
pg_data_version(struct store *base, int64_t *version)
{
	struct pg *s = (struct pg *)base;
	PGnotify *n;
	enum store_rc rc;

	if ((rc = pg_ready(s)) != STORE_OK)
		return rc;
	if (!PQconsumeInput(s->conn) || PQstatus(s->conn) == CONNECTION_BAD)
		return pg_lost(s, "read notifications",
		    PQerrorMessage(s->conn));
	/* A runner's own completions are news to other runners only. */
	while ((n = PQnotifies(s->conn)) != NULL) {
		if (n->be_pid != PQbackendPID(s->conn))
			s->notifications++;
		PQfreemem(n);
	}
	*version = s->notifications;
	return STORE_OK;
}

/*
 * The connection's socket, readable when a notification arrives; LISTEN
 * is sent on the first call (a new connection after a reopen listens
 * again when the watcher asks for its descriptor).
 */
static int
pg_watch_fd(struct store *base)
{
	struct pg *s = (struct pg *)base;

	if (pg_ready(s) != STORE_OK)
		return -1;
	if (!s->listening) {
		if (pg_simple(s, "LISTEN " PG_CHANNEL, "listen", NULL, 0) !=
		    STORE_OK)
			return -1;
		s->listening = 1;
	}
	return PQsocket(s->conn);
}

static const struct store_ops pg_ops = {
	.name = "postgresql",
	.query = pg_query,
	.next = pg_next_row,
	.col_int = pg_col_int,
	.col_text = pg_col_text,
	.changes = pg_changes,
	.end = pg_end,
	.fail = pg_fail,
	.sql = store_pg_sql,
	.purge_batch = PG_PURGE_BATCH,
	.migrations = schema_pg_migrations,
	.close = pg_close,
	.record_send = pg_record_send,
	.record_recv = pg_record_recv,
	.in_flight = STORE_IN_FLIGHT,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.data_version = pg_data_version,
	.watch_fd = pg_watch_fd,
};

const struct store_ops *
store_pg_ops(void)
{
	return &pg_ops;
}
