/*
 * Every statement about one job visits that job's rows, never the fleet's
 * (and a runner's round, the heads of the queue it takes, never the
 * fleet's jobs):
 * on a fleet of jobs, each with checkpoints in its history, a waiting
 * trigger, a savepoint, a schedule and a retention policy, each per-job
 * statement of the driver's table is run as the store runs it, and what
 * it visits is counted; then the fleet grows tenfold and the count must
 * not.  SQLite counts the virtual machine's steps (sqlite3_stmt_status),
 * which grow with every row a statement reads, index entries included;
 * PostgreSQL counts the rows its scans read, from EXPLAIN (ANALYZE,
 * FORMAT JSON), kept or filtered out.  Then the job's queue grows long,
 * and a POST's visits must not (its bound is a kept count).  A write is
 * run in a transaction that is rolled back.  On SQLite in a temporary file; with
 * UNIT_STORE_DB, on that (empty) database (t6105 gives it a PostgreSQL
 * one).
 */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json.h>
#include <sqlite3.h>
#ifdef HAVE_LIBPQ
#include <libpq-fe.h>
#endif

#include "ids.h"
#include "retention.h"
#include "store.h"
#include "store_impl.h"
#include "tap.h"

/* The fleet, first small then ten times as large. */
#define SMALL 200
#define LARGE 2000
/* The job asked about (one of the first SMALL), its waiting trigger. */
#define JOB "00000000000000000000000000000064"
#define WAITING "00000000000000000000000000000643"
#define NEWTRIG "ffffffffffffffffffffffffffffffff"
/*
 * What a statement may visit beyond what it visited on the small fleet:
 * an index one level deeper, never a row for each of the added jobs.
 */
#define SLACK 40
/*
 * The queue bound the POSTs are probed with, CHECKPOINT_MAX_QUEUED's
 * largest, and the backlog the job is then given: its count is kept, so
 * that a POST's check reads it once, never the queue (test_backlog).
 */
#define BOUND 1000000
#define BACKLOG 5000

/* A statement of the driver's table with the values the store gives it. */
struct probe {
	int line;
	enum stmt id;
	const char *what;
	int nv;
	struct store_val v[14];
};

#define T(s) VAL_TEXT(s)
#define I(n) VAL_INT(n)
#define NUL VAL_TEXT(NULL)

static const struct probe probes[] = {
	{ __LINE__, STMT_RECORD, "POST checkpoints", 10,
	    { T(JOB), T(NEWTRIG), T("CONFIGURED"), I(100), NUL, NUL, I(300000),
		I(BOUND), T("c"), T("t") } },
	{ __LINE__, STMT_STATUS, "GET a trigger's status", 4,
	    { T(JOB), T(WAITING), I(100), I(300000) } },
	{ __LINE__, STMT_JOB_KNOWN, "the job's state", 1, { T(JOB) } },
	{ __LINE__, STMT_CKPT_COUNTS, "statistics' counts", 1, { T(JOB) } },
	{ __LINE__, STMT_CKPT_LATEST, "statistics' latest", 1, { T(JOB) } },
	{ __LINE__, STMT_SP_LATEST, "statistics' latest savepoint", 1,
	    { T(JOB) } },
	{ __LINE__, STMT_CKPT_HISTORY, "statistics' history", 2,
	    { T(JOB), I(10) } },
	{ __LINE__, STMT_CKPT_GET, "a checkpoint's details", 2,
	    { T(JOB), I(1) } },
	{ __LINE__, STMT_CKPT_DURATIONS, "the durations' summary", 2,
	    { T(JOB), I(1000) } },
	{ __LINE__, STMT_TRIGGER_RECENT, "GET /jobs/:jobid/triggers", 2,
	    { T(JOB), I(100) } },
	{ __LINE__, STMT_TRIGGER_WAITING, "the job's waiting triggers", 1,
	    { T(JOB) } },
	{ __LINE__, STMT_TRIGGER_LIST_JOB, "checkpointctl triggers --job", 2,
	    { T(JOB), I(100) } },
	{ __LINE__, STMT_SP_DIR, "the savepoint directory", 1, { T(JOB) } },
	{ __LINE__, STMT_SP_RECORD, "POST savepoints", 14,
	    { T(JOB), T(NEWTRIG), T("SAVEPOINT"), T("/sp"), T("CANONICAL"),
		I(0), I(0), NUL, NUL, I(100), I(BOUND), T("c"), T("t"),
		T("s") } },
	{ __LINE__, STMT_SP_STATUS, "GET a savepoint's status", 2,
	    { T(JOB), T(WAITING) } },
	{ __LINE__, STMT_SP_LIST, "GET /jobs/:jobid/savepoints", 1,
	    { T(JOB) } },
	{ __LINE__, STMT_SCHED_LIST, "the job's schedules", 1, { T(JOB) } },
	{ __LINE__, STMT_SCHED_BUSY, "a slot: the job busy", 2,
	    { T(JOB), T("CHECKPOINT") } },
	{ __LINE__, STMT_SCHED_ADVANCE, "a slot: the schedule advanced", 5,
	    { T(JOB), T("CHECKPOINT"), I(60000), I(0), I(0) } },
	{ __LINE__, STMT_SCHED_SLOTS_PRUNE, "a slot: the slots pruned", 2,
	    { T(JOB), T("CHECKPOINT") } },
	{ __LINE__, STMT_RETAIN_GET, "the job's retention", 2,
	    { T(JOB), T("CHECKPOINT") } },
	{ __LINE__, STMT_RETAIN_CANDIDATES_JOB,
	    "a due job's retention; checkpointctl retention --job", 1,
	    { T(JOB) } },
	{ __LINE__, STMT_RETAIN_DUE, "a pass's retention: the policies due", 1,
	    { I(1000) } },
	{ __LINE__, STMT_HISTORY_PRUNE_GROWN,
	    "a pass's history by count: the jobs grown", 3,
	    { I(1000), I(2), I(0) } },
	{ __LINE__, STMT_NEXT_ID, "the job's next checkpoint id", 1,
	    { T(JOB) } },
	/* Not about one job, but a page's cost is its own rows'. */
	{ __LINE__, STMT_JOB_PAGE, "a page of the job lists", 3,
	    { T(JOB), T("%"), I(50) } },
	{ __LINE__, STMT_JOB_PAGE, "a page of the job lists, searched", 3,
	    { T(JOB), T("%fleet%"), I(50) } },
	/*
	 * A runner's round: the first waiting trigger of the jobs whose
	 * command is free, three of them, wherever the queue ends; on
	 * PostgreSQL the walk is the lock's, and the heads are read of the
	 * jobs it locked.
	 */
	{ __LINE__, STMT_LOCK_HEADS, "a round: the jobs whose head it takes", 2,
	    { I(3), I(INT64_MAX) } },
	{ __LINE__, STMT_PENDING_HEADS, "a round: their first triggers", 3,
	    { I(3), NUL, I(INT64_MAX) } },
};
#define NPROBES (sizeof(probes) / sizeof(probes[0]))

#ifdef HAVE_LIBPQ
/* Where PostgreSQL's values differ: a batch of one, as arrays. */
static const struct probe pg_probes[] = {
	{ __LINE__, STMT_RECORD, "POST checkpoints", 10,
	    { T("{" JOB "}"), T("{" NEWTRIG "}"), T("{CONFIGURED}"),
		T("{NULL}"), T("{NULL}"), I(300000), I(BOUND), T("c"), T("t"),
		T("x") } },
	{ __LINE__, STMT_PENDING_HEADS, "a round: their first triggers", 3,
	    { I(3), T("{" JOB "}"), I(INT64_MAX) } },
};
#endif

/*
 * The fleet's rows for jobs lo to hi, in either dialect: @J is the
 * expression of job i's id, @T that of a trigger id from number k, @L
 * and @H are lo and hi (seed_line).
 */
#define JOBS \
	"WITH RECURSIVE n(i) AS (SELECT @L UNION ALL SELECT i + 1" \
	" FROM n WHERE i < @H) "
static const char *const seed_sql[] = {
	JOBS "INSERT INTO jobs (job_id, name, created_ms, updated_ms,"
	     " savepoint_dir) SELECT @J, 'fleet', 1, 1, '/sp' FROM n",
	JOBS "INSERT INTO triggers (job_id, trigger_id, requested_type,"
	     " created_ms) SELECT @J, @T, 'CONFIGURED', k FROM n,"
	     " (SELECT 1 AS k UNION ALL SELECT 2 UNION ALL SELECT 3) AS ks",
	JOBS "UPDATE triggers SET status = 'COMPLETED', checkpoint_id ="
	     " created_ms, checkpoint_type = 'FULL', location = '/c/'"
	     " || trigger_id, completed_ms = created_ms + 10"
	     " WHERE created_ms < 3 AND job_id IN (SELECT @J FROM n)",
	JOBS "INSERT INTO checkpoint_counters (job_id, last_id)"
	     " SELECT @J, 2 FROM n",
	JOBS "INSERT INTO savepoints (job_id, trigger_id, kind,"
	     " target_directory, format_type, status, checkpoint_id,"
	     " location, created_ms, completed_ms) SELECT @J, @T,"
	     " 'SAVEPOINT', '/sp', 'CANONICAL', 'COMPLETED', 3, '/sp/' || @T,"
	     " 3, 4 FROM n, (SELECT 4 AS k) AS ks",
	JOBS "INSERT INTO schedules (job_id, kind, every_ms, since_ms,"
	     " last_slot_ms) SELECT @J, 'CHECKPOINT', 60000, 0, 0 FROM n",
	JOBS "INSERT INTO schedule_slots (job_id, kind, slot_ms, fired_ms,"
	     " trigger_id) SELECT @J, 'CHECKPOINT', 0, 1, @T"
	     " FROM n, (SELECT 5 AS k) AS ks",
	/* Every job's command: each waiting trigger a head a round takes. */
	JOBS "UPDATE jobs SET command = 'true' WHERE job_id IN"
	     " (SELECT @J FROM n)",
	/* Every job's history pruned by a pass but the job's (0015). */
	JOBS "DELETE FROM history_grown WHERE job_id <> '" JOB "'"
	     " AND job_id IN (SELECT @J FROM n)",
	/* Every policy looked at by a pass but the job's (schema/0015). */
	JOBS "INSERT INTO retention (job_id, kind, keep_last, set_ms, due_ms)"
	     " SELECT @J, 'CHECKPOINT', 5, 1, CASE WHEN @J = '" JOB "' THEN 0"
	     " ELSE 9223372036854775807 END FROM n",
};
#define NSEED (sizeof(seed_sql) / sizeof(seed_sql[0]))

/* The job's backlog: BACKLOG triggers and savepoints waiting. */
static const char *const backlog_sql[] = {
	JOBS "INSERT INTO triggers (job_id, trigger_id, requested_type,"
	     " created_ms) SELECT '" JOB "', @T, 'CONFIGURED', 9"
	     " FROM n, (SELECT 7 AS k) AS ks",
	JOBS "INSERT INTO savepoints (job_id, trigger_id, kind,"
	     " target_directory, format_type, created_ms) SELECT '" JOB "',"
	     " @T, 'SAVEPOINT', '/sp', 'CANONICAL', 9"
	     " FROM n, (SELECT 7 AS k) AS ks",
};

/* What a dialect gives the probes. */
struct dialect {
	const char *job_expr, *trigger_expr;
	/* SQL run as is; 0 when it went well. */
	int (*exec)(void *, const char *);
	/* What statement p visits; -1 for an error (said). */
	int64_t (*visits)(void *, const char *sql, const struct probe *p);
	void *conn;
	const char *const *sql; /* the driver's own statements */
	char mark; /* its placeholders' mark: '?' or '$' */
};

/* Seed statement t with its @ words replaced, into out. */
static void
seed_line(const struct dialect *d, const char *t, long long lo, long long hi,
    char *out, size_t size)
{
	size_t n = 0;

	for (; *t != '\0' && n + 40 < size; t++) {
		if (*t != '@') {
			out[n++] = *t;
			continue;
		}
		switch (*++t) {
		case 'J':
			n += snprintf(out + n, size - n, "%s", d->job_expr);
			break;
		case 'T':
			n += snprintf(out + n, size - n, "%s", d->trigger_expr);
			break;
		default:
			n += snprintf(out + n, size - n, "%lld",
			    *t == 'L' ? lo : hi);
		}
	}
	out[n] = '\0';
}

static int
seed(const struct dialect *d, long long lo, long long hi)
{
	char sql[2048];
	size_t i;

	for (i = 0; i < NSEED; i++) {
		seed_line(d, seed_sql[i], lo, hi, sql, sizeof(sql));
		if (d->exec(d->conn, sql) != 0)
			return -1;
	}
	return 0;
}

/* --- SQLite --- */

static int
lite_exec(void *conn, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(conn, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	printf("# %s\n#   in %s\n", msg, sql);
	sqlite3_free(msg);
	return -1;
}

/* The store's own function, its value here beside the point. */
static void
lite_throwable(sqlite3_context *c, int n, sqlite3_value **v)
{
	(void)n;
	(void)v;
	sqlite3_result_null(c);
}

static int
lite_bind(sqlite3_stmt *st, const struct probe *p)
{
	int i, rc = SQLITE_OK;

	/* As the store binds: no further than the SQL's last parameter. */
	for (i = 0; i < p->nv && i < sqlite3_bind_parameter_count(st) &&
	     rc == SQLITE_OK;
	     i++)
		rc = p->v[i].is_int ?
		    sqlite3_bind_int64(st, i + 1, p->v[i].i) :
		    sqlite3_bind_text(st, i + 1, p->v[i].s, -1, SQLITE_STATIC);
	return rc;
}

static int64_t
lite_visits(void *conn, const char *sql, const struct probe *p)
{
	sqlite3_stmt *st = NULL;
	int64_t steps = -1;
	int rc;

	if (lite_exec(conn, "SAVEPOINT probe") != 0)
		return -1;
	rc = sqlite3_prepare_v2(conn, sql, -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = lite_bind(st, p);
	while (rc == SQLITE_OK || rc == SQLITE_ROW)
		rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		steps = sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 0);
	else
		printf("# %s: %s\n", p->what, sqlite3_errmsg(conn));
	sqlite3_finalize(st);
	lite_exec(conn, "ROLLBACK TO probe; RELEASE probe");
	return steps;
}

static int
lite_open(const char *path, struct dialect *d)
{
	sqlite3 *db;

	if (sqlite3_open(path, &db) != SQLITE_OK)
		return -1;
	sqlite3_create_function(db, "serialized_throwable", 2, SQLITE_UTF8,
	    NULL, lite_throwable, NULL, NULL);
	d->conn = db;
	d->job_expr = "printf('%032x', i)";
	d->trigger_expr = "printf('%032x', i * 16 + k)";
	d->exec = lite_exec;
	d->visits = lite_visits;
	d->sql = store_sqlite_ops()->sql;
	d->mark = '?';
	return 0;
}

/* --- PostgreSQL --- */

#ifdef HAVE_LIBPQ
static int
pg_exec(void *conn, const char *sql)
{
	PGresult *res = PQexec(conn, sql);
	int st = PQresultStatus(res);

	PQclear(res);
	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
		return 0;
	printf("# %s#   in %s\n", PQerrorMessage(conn), sql);
	return -1;
}

static double
plan_num(struct json_object *plan, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(plan, key, &v) ?
	    json_object_get_double(v) :
	    0;
}

/* The rows the scans of plan read, kept or filtered out, every loop. */
static double
plan_rows(struct json_object *plan)
{
	struct json_object *kids, *type;
	double rows = 0;
	size_t i;

	if (json_object_object_get_ex(plan, "Node Type", &type) &&
	    strstr(json_object_get_string(type), "Scan") != NULL)
		rows = (plan_num(plan, "Actual Rows") +
			   plan_num(plan, "Rows Removed by Filter") +
			   plan_num(plan, "Rows Removed by Index Recheck")) *
		    plan_num(plan, "Actual Loops");
	if (json_object_object_get_ex(plan, "Plans", &kids))
		for (i = 0; i < json_object_array_length(kids); i++)
			rows += plan_rows(json_object_array_get_idx(kids, i));
	return rows;
}

static int64_t
pg_explained(PGresult *res)
{
	struct json_object *doc, *plan;
	int64_t rows = -1;

	doc = json_tokener_parse(PQgetvalue(res, 0, 0));
	if (doc != NULL && json_object_array_length(doc) > 0 &&
	    json_object_object_get_ex(json_object_array_get_idx(doc, 0), "Plan",
		&plan))
		rows = (int64_t)(plan_rows(plan) + 0.5);
	json_object_put(doc);
	return rows;
}

/* Whether sql uses $k (a parameter it leaves unused must be typed). */
static int
pg_uses(const char *sql, int k)
{
	const char *q;
	char *end;

	for (q = sql; (q = strchr(q, '$')) != NULL; q++)
		if (strtol(q + 1, &end, 10) == k && end != q + 1)
			return 1;
	return 0;
}

/*
 * Statement p, prepared as the store prepares its own (the types of
 * parameters the SQL leaves unused given), into q.
 */
static void
pg_prepare(const char *sql, const struct store_val *v, int n, char *q,
    size_t size)
{
	size_t len;
	int i;

	len = (size_t)snprintf(q, size, "PREPARE probe (");
	for (i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(q + len, size - len, "%s%s",
		    i > 0 ? ", " : "",
		    pg_uses(sql, i + 1) ? "unknown" :
			v[i].is_int	? "bigint" :
					  "text");
	if (len < size)
		snprintf(q + len, size - len, ") AS %s", sql);
}

/* EXPLAIN of the prepared statement run with values v, into q. */
static int
pg_execute(PGconn *conn, const struct store_val *v, int n, char *q, size_t size)
{
	size_t len;
	char *lit;
	int i;

	len = (size_t)snprintf(q, size,
	    "EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE probe (");
	for (i = 0; i < n && len < size; i++) {
		lit = v[i].is_int || v[i].s == NULL ?
		    NULL :
		    PQescapeLiteral(conn, v[i].s, strlen(v[i].s));
		if (v[i].is_int)
			len += (size_t)snprintf(q + len, size - len,
			    "%s%" PRId64, i > 0 ? ", " : "", v[i].i);
		else
			len += (size_t)snprintf(q + len, size - len, "%s%s",
			    i > 0 ? ", " : "", lit != NULL ? lit : "NULL");
		PQfreemem(lit);
	}
	if (len < size)
		snprintf(q + len, size - len, ")");
	return len < size ? 0 : -1;
}

/*
 * The rows statement p reads, run as the store runs it: prepared, with
 * the generic plan the store's sessions use (plan_cache_mode), its
 * values unknown to the planner.
 */
static int64_t
pg_visits(void *conn, const char *sql, const struct probe *p)
{
	const struct store_val *v = p->v;
	int i, n = p->nv;
	char q[8192];
	PGresult *res;
	int64_t rows = -1;

	for (i = 0; i < (int)(sizeof(pg_probes) / sizeof(pg_probes[0])); i++)
		if (pg_probes[i].id == p->id) {
			v = pg_probes[i].v;
			n = pg_probes[i].nv;
		}
	pg_prepare(sql, v, n, q, sizeof(q));
	if (pg_exec(conn, "BEGIN") != 0 || pg_exec(conn, q) != 0 ||
	    pg_execute(conn, v, n, q, sizeof(q)) != 0)
		return -1;
	res = PQexec(conn, q);
	if (PQresultStatus(res) == PGRES_TUPLES_OK)
		rows = pg_explained(res);
	else
		printf("# %s: %s", p->what, PQerrorMessage(conn));
	PQclear(res);
	pg_exec(conn, "ROLLBACK");
	pg_exec(conn, "DEALLOCATE probe");
	return rows;
}

static int
pg_open(const char *uri, struct dialect *d)
{
	PGconn *conn = PQconnectdb(uri);

	if (PQstatus(conn) != CONNECTION_OK) {
		printf("# %s", PQerrorMessage(conn));
		PQfinish(conn);
		return -1;
	}
	d->conn = conn;
	if (pg_exec(conn, "SET plan_cache_mode = force_generic_plan") != 0)
		return -1;
	d->job_expr = "lpad(to_hex(i), 32, '0')";
	d->trigger_expr = "lpad(to_hex(i * 16 + k), 32, '0')";
	d->exec = pg_exec;
	d->visits = pg_visits;
	d->sql = store_pg_ops()->sql;
	d->mark = '$';
	return 0;
}
#endif

/* --- The probes --- */

/*
 * Statement id as the store runs it on d: the driver's own, or the
 * shared one (store_sql.c) with d's placeholders, in buf.
 */
static const char *
stmt_text(const struct dialect *d, enum stmt id, char *buf, size_t len)
{
	const char *t = store_sql_text(d->sql, id);
	char *q;

	if (t == NULL || t == d->sql[id])
		return t;
	snprintf(buf, len, "%s", t);
	for (q = buf; (q = strchr(q, '?')) != NULL; q++)
		*q = d->mark;
	return buf;
}

/* Each probe's visits on the fleet as it is. */
static int
measure(const struct dialect *d, int64_t *out)
{
	char buf[STORE_SQL_SHARED_MAX];
	size_t i;

	const char *sql;

	/* A statement the dialect has none of visits nothing. */
	for (i = 0; i < NPROBES; i++)
		if ((sql = stmt_text(d, probes[i].id, buf, sizeof(buf))) ==
		    NULL)
			out[i] = 0;
		else if ((out[i] = d->visits(d->conn, sql, &probes[i])) < 0)
			return -1;
	return 0;
}

static void
compare(const int64_t *small, const int64_t *large)
{
	size_t i;

	for (i = 0; i < NPROBES; i++)
		tap_ok_at(__FILE__, probes[i].line,
		    large[i] <= small[i] + SLACK && large[i] < LARGE,
		    "%s: %" PRId64 " visited of %d jobs, %" PRId64 " of %d",
		    probes[i].what, large[i], LARGE, small[i], SMALL);
}

/*
 * A POST of a trigger or a savepoint visits as much with the job's
 * BACKLOG waiting as without, the bound far above it: its check reads
 * the job's kept count (queue_waiting), not its queue.
 */
static void
test_backlog(const struct dialect *d, const int64_t *before)
{
	int64_t after[NPROBES];
	char sql[2048];
	size_t i;
	int ok = 1;

	for (i = 0; ok && i < sizeof(backlog_sql) / sizeof(backlog_sql[0]);
	     i++) {
		seed_line(d, backlog_sql[i], LARGE + 1, LARGE + BACKLOG, sql,
		    sizeof(sql));
		ok = d->exec(d->conn, sql) == 0;
	}
	if (!tap_ok(ok && measure(d, after) == 0,
		"the job given %d triggers and savepoints waiting", BACKLOG))
		return;
	for (i = 0; i < NPROBES; i++)
		if (probes[i].id == STMT_RECORD ||
		    probes[i].id == STMT_SP_RECORD)
			tap_ok_at(__FILE__, probes[i].line,
			    after[i] <= before[i] + SLACK,
			    "%s, bound %d: %" PRId64
			    " visited with %d waiting, "
			    "%" PRId64 " with none",
			    probes[i].what, BOUND, after[i], BACKLOG,
			    before[i]);
}

/* --- Retention's passes: only what changed --- */

static int
count_due(const struct retention_due *r, void *arg)
{
	(void)r;
	++*(int *)arg;
	return 0;
}

/* How many policies are due at now_ms; -1 for an error. */
static int
due(struct store *s, int64_t now_ms)
{
	int n = 0;

	return store_retention_due(s, now_ms, count_due, &n) == STORE_OK ? n :
									   -1;
}

/* A runner's retention at now_ms, then how many are due still. */
static int
pass(struct store *s, int64_t now_ms)
{
	if (retention_dispose_due(s, now_ms, NULL, NULL) != STORE_OK)
		return -1;
	return due(s, now_ms);
}

/*
 * Each change that can change a verdict makes its policy due, a pass
 * looks at it and it is due no longer; a young checkpoint makes its
 * policy due when it ages past the policy's age.
 */
static void
test_retention_due(const struct dialect *d, struct store *s)
{
	struct id job, seven, nine, sp;

	id_parse_str(JOB, &job);
	id_parse_str("00000000000000000000000000000007", &seven);
	id_parse_str("00000000000000000000000000000009", &nine);
	id_parse_str("00000000000000000000000000000074", &sp);
	tap_is_int(due(s, 1000), 1,
	    "of %d policies, the one not looked at is due", LARGE);
	tap_is_int(pass(s, 1000), 0, "  a pass looks at it: none is due");
	tap_ok(store_retention_set(s, &seven, "SAVEPOINT", 1, 0, "t", 1) ==
		    STORE_OK &&
		due(s, 1000) == 1,
	    "a policy set is due");
	tap_is_int(pass(s, 1000), 0, "  and looked at by a pass");
	tap_ok(store_savepoint_keep(s, &seven, &sp, 0, 5) == STORE_OK &&
		due(s, 1000) == 1,
	    "a savepoint kept: its job's policy is due");
	tap_is_int(pass(s, 1000), 0, "  and looked at by a pass");
	tap_ok(
	    d->exec(d->conn,
		"UPDATE triggers SET status = 'COMPLETED', checkpoint_id = 3,"
		" location = '/c/new', completed_ms = 20"
		" WHERE trigger_id = '" WAITING "'") == 0 &&
		due(s, 1000) == 1,
	    "a new checkpoint in the history: its job's policy is due");
	tap_is_int(pass(s, 1000), 0, "  and looked at by a pass");
	/* Job 9's second newest completed at 11: young until 60011. */
	tap_ok(store_retention_set(s, &nine, "CHECKPOINT", 0, 60000, "t", 1) ==
		STORE_OK,
	    "a policy by age");
	tap_is_int(pass(s, 1000), 0, "  looked at, its snapshots young");
	tap_is_int(due(s, 60010), 0, "  not due before one ages past it");
	tap_is_int(due(s, 60011), 1, "  due once it does");
}

/* What a runner's pruning by count at keep took, -1 for an error. */
static int64_t
prune(struct store *s, int64_t keep)
{
	int64_t n;

	return store_history_prune(s, 1000, keep, 0, &n) == STORE_OK ? n : -1;
}

/*
 * The history's retention by count prunes the jobs whose counter moved,
 * and every job when the count is not the one they were pruned by.
 */
static void
test_history_grown(const struct dialect *d, struct store *s)
{
	tap_ok(prune(s, 2) >= 0, "history by count: a first pass, of all");
	tap_ok(d->exec(d->conn,
		   "UPDATE checkpoint_counters SET last_id = 4 WHERE job_id IN"
		   " ('00000000000000000000000000000005',"
		   " '00000000000000000000000000000006')") == 0,
	    "  two jobs' counters move");
	tap_is_int(prune(s, 2), 4, "  a pass prunes their two oldest each");
	tap_is_int(prune(s, 2), 0, "  the next, nothing");
	tap_is_int(prune(s, 1), LARGE - 2,
	    "  a smaller count prunes every other job's oldest");
}

static void
run(struct dialect *d, int pg, struct store *s)
{
	int64_t small[NPROBES], large[NPROBES];
	const char *analyze = pg ? "ANALYZE" : "ANALYZE; PRAGMA optimize";

	if (!tap_ok(seed(d, 1, SMALL) == 0 && d->exec(d->conn, analyze) == 0,
		"a fleet of %d jobs", SMALL) ||
	    !tap_ok(measure(d, small) == 0, "  each statement ran"))
		return;
	if (!tap_ok(seed(d, SMALL + 1, LARGE) == 0 &&
		    d->exec(d->conn, analyze) == 0,
		"a fleet of %d jobs", LARGE) ||
	    !tap_ok(measure(d, large) == 0, "  each statement ran"))
		return;
	compare(small, large);
	test_backlog(d, large);
	test_retention_due(d, s);
	test_history_grown(d, s);
}

static int
open_store(const char *db, struct store **s)
{
	struct store_opts o = { .path = db,
		.sync_normal = 1,
		.busy_ms = 5000,
		.create = 1 };
	char err[512];

	if (store_open(&o, s, err, sizeof(err)) != STORE_OK) {
		printf("# %s\n", err);
		return -1;
	}
	return 0;
}

int
main(void)
{
	const char *db = getenv("UNIT_STORE_DB");
	char path[] = "/tmp/unit-perjob.XXXXXX", file[64];
	struct dialect d = { 0 };
	struct store *s;
	int pg = db != NULL && *db != '\0';

	store_init();
	if (!pg) {
		if (mkdtemp(path) == NULL)
			return 99;
		snprintf(file, sizeof(file), "%s/fleet.db", path);
		db = file;
	}
	if (!tap_ok(open_store(db, &s) == 0, "the store made"))
		return tap_done();
#ifdef HAVE_LIBPQ
	if (pg && tap_ok(pg_open(db, &d) == 0, "connected")) {
		run(&d, 1, s);
		PQfinish(d.conn);
	}
#endif
	if (!pg && tap_ok(lite_open(db, &d) == 0, "opened")) {
		run(&d, 0, s);
		sqlite3_close(d.conn);
	}
	store_close(s);
	if (!pg) {
		unlink(file);
		rmdir(path);
	}
	return tap_done();
}
