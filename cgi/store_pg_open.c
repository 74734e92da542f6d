/*
 * A PostgreSQL store opened: the URI's passwords kept to scrub from every
 * message, the server named by host, port and database, a refused
 * connection explained, the session's settings, and the schema checked as
 * ours and migrated under an advisory lock, so that hosts starting at
 * once migrate one at a time.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "schema.h"
#include "store_pg_impl.h"

/* "ckpt": the advisory lock that serialises migrations across hosts. */
#define PG_MIGRATION_LOCK "1668969588"

/*
 * Whether the first schema of the search_path holds our objects: its
 * version (0: none), or a refusal of a newer or a foreign one, with err
 * set.  Nothing is written.
 */
static enum store_rc
pg_check_ours(struct pg *s, int64_t *version, char *err, size_t errlen)
{
	/* A schema, schema_version, objects; the version, ours. */
	int64_t v[5] = { 0, 0, 0, 0, 0 };
	enum store_rc rc;
	int target = pg_schema_version();

	*version = 0;
	if ((rc = pg_simple(s,
		 "SELECT (current_schema() IS NOT NULL)::int,"
		 " count(*) FILTER (WHERE relname = 'schema_version'"
		 "  AND relkind = 'r'), count(*) FROM pg_class"
		 " WHERE relnamespace ="
		 "  (SELECT oid FROM pg_namespace"
		 "   WHERE nspname = current_schema())",
		 "read the schema version", v, 3)) != STORE_OK ||
	    (v[1] != 0 &&
		(rc = pg_simple(s,
		     "SELECT version, (application = 'checkpoint-api')::int"
		     " FROM schema_version",
		     "read the schema version", v + 3, 2)) != STORE_OK)) {
		snprintf(err, errlen, "%s: %s", s->where, s->base.error);
		return rc;
	}
	if (!v[0]) {
		snprintf(err, errlen,
		    "%s: no schema of the search_path exists "
		    "to hold the tables",
		    s->where);
		return STORE_UNAVAILABLE;
	}
	if (v[1] == 0 && v[2] > 0) {
		snprintf(err, errlen,
		    "%s: not a checkpoint-api database "
		    "(no schema_version, %lld objects in its schema)",
		    s->where, (long long)v[2]);
		return STORE_UNAVAILABLE;
	}
	if (v[1] != 0 && !v[4]) {
		snprintf(err, errlen, "%s: not a checkpoint-api database",
		    s->where);
		return STORE_UNAVAILABLE;
	}
	*version = v[3];
	if (*version > target) {
		snprintf(err, errlen,
		    "%s: schema version %lld is newer than "
		    "this program's %d; upgrade checkpoint-api",
		    s->where, (long long)*version, target);
		return STORE_NEWER;
	}
	return STORE_OK;
}

/*
 * Brings the schema up to date in one transaction, under an advisory
 * lock so that hosts starting at once migrate one after the other (the
 * later ones find it done).  A newer or foreign database is refused and
 * left untouched.
 */
static enum store_rc
pg_migrate(struct pg *s, int create, char *err, size_t errlen)
{
	enum store_rc rc;
	int64_t version, v = 0;
	int target = pg_schema_version(), i;
	char what[32];

	if ((rc = pg_check_ours(s, &version, err, errlen)) != STORE_OK ||
	    version == target)
		return rc;
	/* As a SQLite file that is not there: see store_opts.create. */
	if (version == 0 && !create) {
		snprintf(err, errlen,
		    "%s: no checkpoint-api tables there; checkpointctl init "
		    "makes them",
		    s->where);
		return STORE_MISSING;
	}
	if ((rc = pg_simple(s, "BEGIN", "migrate", NULL, 0)) != STORE_OK ||
	    (rc = pg_simple(s,
		 "SELECT pg_advisory_xact_lock(" PG_MIGRATION_LOCK ")",
		 "lock for migration", NULL, 0)) != STORE_OK) {
		snprintf(err, errlen, "%s: %s", s->where, s->base.error);
		goto fail;
	}
	/* Again under the lock: another host may have migrated. */
	if ((rc = pg_check_ours(s, &version, err, errlen)) != STORE_OK)
		goto fail;
	for (i = (int)version; i < target; i++) {
		snprintf(what, sizeof(what), "migration %d", i + 1);
		if ((rc = pg_simple(s, schema_pg_migrations[i], what, NULL,
			 0)) != STORE_OK) {
			snprintf(err, errlen, "%s: %s", s->where,
			    s->base.error);
			goto fail;
		}
		log_info("%s: applied schema migration %d", s->where, i + 1);
	}
	if ((rc = pg_simple(s, "SELECT version FROM schema_version",
		 "read the schema version", &v, 1)) != STORE_OK ||
	    v != target) {
		snprintf(err, errlen,
		    "%s: the migrations left schema version %lld, not %d",
		    s->where, (long long)v, target);
		rc = rc != STORE_OK ? rc : STORE_ERROR;
		goto fail;
	}
	if ((rc = pg_simple(s, "COMMIT", "migrate", NULL, 0)) != STORE_OK) {
		snprintf(err, errlen, "%s: %s", s->where, s->base.error);
		return rc;
	}
	return STORE_OK;
fail:
	if (!s->dead)
		PQclear(PQexec(s->conn, "ROLLBACK"));
	return rc;
}

/*
 * The session's settings, on a new connection: the lock wait of
 * CHECKPOINT_BUSY_TIMEOUT, and five times that for any statement (a bound
 * on a runaway, above the lock wait so that a wait for a lock says so);
 * CHECKPOINT_SYNC=NORMAL is asynchronous commit (the last commits may be
 * lost in a crash, as with SQLite's NORMAL), else the server's default
 * stays (normally on).
 */
enum store_rc
pg_session(struct pg *s)
{
	char sql[200];

	/*
	 * Generic plans: every statement here is prepared once, run many
	 * times, and finds its rows by index whatever the values.  Left to
	 * choose, the server planned the array statements (a batch's
	 * upsert, several GETs' reads) again at every run, since knowing the
	 * array's length always made the new plan look cheaper, and the
	 * planning cost more than the read (scripts/bench.d/results.md).
	 * No JIT: a generic plan's estimate over the fleet can pass
	 * jit_above_cost (the history's pruning by count, costed by
	 * statistics of a full list of grown jobs), and the server then
	 * compiled it at each run, for far longer than it ran.
	 */
	snprintf(sql, sizeof(sql),
	    "SET plan_cache_mode = force_generic_plan; SET jit = off;"
	    " SET lock_timeout = %lld; SET statement_timeout = %lld%s",
	    (long long)s->busy_ms, (long long)s->busy_ms * 5,
	    s->sync_normal ? "; SET synchronous_commit = off" : "");
	return pg_simple(s, sql, "session settings", NULL, 0);
}

/*
 * The passwords of a URI, as written (the first PG_SECRETS - 1 of them,
 * found as store_redact finds them) and as libpq reads it: strings no
 * message may show (libpq's own may quote the URI's parts).
 */
static int
pg_secrets(struct pg *s, const char *uri)
{
	PQconninfoOption *opts, *o;
	const char *pw = uri;
	size_t n, k = 0;
	char *err = NULL;

	while (
	    k < PG_SECRETS - 1 && (pw = store_password(uri, pw, &n)) != NULL) {
		if (n > 0 && n < sizeof(s->secret[0]))
			snprintf(s->secret[k++], sizeof(s->secret[0]), "%.*s",
			    (int)n, pw);
		pw += n;
	}
	if ((opts = PQconninfoParse(uri, &err)) != NULL) {
		for (o = opts; o->keyword != NULL; o++)
			if (strcmp(o->keyword, "password") == 0 &&
			    o->val != NULL && *o->val != '\0')
				snprintf(s->secret[PG_SECRETS - 1],
				    sizeof(s->secret[0]), "%s", o->val);
		PQconninfoFree(opts);
	}
	PQfreemem(err);
	return opts != NULL;
}

int
store_pg_parses(const char *uri)
{
	PQconninfoOption *opts;
	char *err = NULL;

	opts = PQconninfoParse(uri, &err);
	PQconninfoFree(opts);
	PQfreemem(err);
	return opts != NULL;
}

/*
 * Whether the connection was asked for a writable host (libpq's
 * target_session_attrs read-write or primary): then a host found
 * read-only is not the primary any more, and the next connection looks
 * for the one that is.
 */
static void
pg_wants_primary(struct pg *s)
{
	PQconninfoOption *o, *opts;

	s->wants_primary = 0;
	if ((opts = PQconninfo(s->conn)) == NULL)
		return;
	for (o = opts; o->keyword != NULL; o++)
		if (strcmp(o->keyword, "target_session_attrs") == 0 &&
		    o->val != NULL)
			s->wants_primary = strcmp(o->val, "read-write") == 0 ||
			    strcmp(o->val, "primary") == 0;
	PQconninfoFree(opts);
}

/*
 * The server as messages name it: the host it is connected to (or tried
 * last), its port and the database, as a URI without user or password.
 */
void
pg_where(struct pg *s)
{
	const char *host = PQhost(s->conn), *port = PQport(s->conn),
		   *db = PQdb(s->conn);

	if (host == NULL || *host == '\0')
		host = "localhost";
	if (port == NULL || *port == '\0')
		port = "5432";
	if (db == NULL)
		db = "";
	pg_wants_primary(s);
	if (*host == '/')
		snprintf(s->where, sizeof(s->where),
		    "postgresql:///%s?host=%s&port=%s", db, host, port);
	else
		snprintf(s->where, sizeof(s->where), "postgresql://%s:%s/%s",
		    host, port, db);
	pg_scrub(s, s->where);
}

/*
 * What libpq's refusal to connect most likely means, by its words: the
 * operator reads the cause, not only the symptom.
 */
static const struct {
	const char *words, *hint;
} pg_hints[] = {
	{ "no password supplied",
	    "is there a pgpass for this user (PGPASSFILE, else the "
	    "system user's ~/.pgpass, mode 0600, with a line for this "
	    "host, port, database and user)?" },
	{ "password authentication failed",
	    "the password is not this role's, or there is no such role: "
	    "are the user and the password (its pgpass line) right?" },
	{ "does not exist",
	    "is the name right (a typo in the URI's user or database)?" },
	{ "no pg_hba.conf entry",
	    "the server's pg_hba.conf lets this user not connect to this "
	    "database from here" },
	{ "Peer authentication failed",
	    "peer authentication takes the system user as the role: "
	    "connect over TCP (postgresql://user@127.0.0.1/...) with a "
	    "pgpass instead" },
	{ "Connection refused",
	    "is the server running, and listening on this host and port?" },
	{ "No such file or directory",
	    "is the server running (its socket is not there)?" },
	{ "could not translate host name", "is the host name right?" },
	{ "timeout expired",
	    "the server did not answer in time: is it up, and reachable?" },
};

/* msg and its likely cause, if one is known, into out. */
static void
pg_hint(const char *msg, char *out, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(pg_hints) / sizeof(pg_hints[0]); i++)
		if (strstr(msg, pg_hints[i].words) != NULL) {
			snprintf(out, len, "%s: %s", msg, pg_hints[i].hint);
			return;
		}
	snprintf(out, len, "%s", msg);
}

/*
 * A refused connection names the user too: the URI's user is a part the
 * operator may have mistyped (never the password).
 */
static void
pg_connect_error(struct pg *s, char *err, size_t errlen)
{
	char msg[400], hinted[700], who[300];
	const char *user = PQuser(s->conn), *at = strstr(s->where, "://");

	pg_message(s, PQerrorMessage(s->conn), msg, sizeof(msg));
	pg_hint(msg, hinted, sizeof(hinted));
	if (user != NULL && *user != '\0' && at != NULL) {
		snprintf(who, sizeof(who), "%.*s%s@%s",
		    (int)(at + 3 - s->where), s->where, user, at + 3);
		pg_scrub(s, who);
	} else
		snprintf(who, sizeof(who), "%s", s->where);
	snprintf(err, errlen, "%s: %s", who, hinted);
}

static const char *
program_name(void)
{
#ifdef __GLIBC__
	return program_invocation_short_name;
#else
	return "checkpoint-api";
#endif
}

/*
 * The connection to the server the URI names: its passwords kept to
 * scrub first, the server named for messages (the URI itself, redacted,
 * where libpq could not even parse it), a refusal explained in err.
 */
static enum store_rc
pg_connect(struct pg *s, const char *uri, char *err, size_t errlen)
{
	/*
	 * Ours first, the URI's after: what the URI says wins.  A dead
	 * primary costs seconds (connect_timeout), and a vanished one is
	 * noticed by keepalives and tcp_user_timeout rather than by TCP's
	 * quarter of an hour of retries.
	 */
	const char *keys[] = { "fallback_application_name", "connect_timeout",
		"keepalives_idle", "keepalives_interval", "keepalives_count",
		"tcp_user_timeout", "dbname", NULL };
	const char *vals[] = { program_name(), "5", "30", "10", "3", "30000",
		uri, NULL };
	int parsed = pg_secrets(s, uri);

	if ((s->conn = PQconnectdbParams(keys, vals, 1)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return STORE_ERROR;
	}
	pg_where(s);
	/* Not even parsed: no server to name, so the URI, its password out. */
	if (!parsed) {
		store_redact(uri, s->where, sizeof(s->where));
		pg_scrub(s, s->where);
	}
	if (PQstatus(s->conn) != CONNECTION_OK) {
		pg_connect_error(s, err, errlen);
		return STORE_UNAVAILABLE;
	}
	PQsetNoticeReceiver(s->conn, pg_notice, s);
	return STORE_OK;
}

/*
 * Connects and migrates.  On failure *out is NULL and err says why,
 * naming the server by host, port and database, never by the URI (which
 * may hold a password): for logs, never for clients.
 */
enum store_rc
store_pg_open(const struct store_opts *o, struct store **out, char *err,
    size_t errlen)
{
	struct pg *s;
	enum store_rc rc;

	*out = NULL;
	if ((s = calloc(1, sizeof(*s))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return STORE_ERROR;
	}
	s->base.ops = store_pg_ops();
	s->busy_ms = o->busy_ms > 0 ? o->busy_ms : 2000;
	s->sync_normal = o->sync_normal;
	/* Statements get five times the lock wait (pg_session), then a
	 * cancel. */
	s->wait_ms = s->busy_ms * 5 + 1000;
	if ((rc = pg_connect(s, o->path, err, errlen)) != STORE_OK)
		goto fail;
	if ((rc = pg_session(s)) != STORE_OK) {
		snprintf(err, errlen, "%s: %s", s->where, s->base.error);
		goto fail;
	}
	if ((rc = pg_migrate(s, o->create, err, errlen)) != STORE_OK)
		goto fail;
	s->base.error[0] = '\0';
	*out = &s->base;
	return STORE_OK;
fail:
	pg_scrub(s, err);
	store_close(&s->base);
	return rc;
}
