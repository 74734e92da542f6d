/*
 * What the API answers and what the runner records when memory runs out.
 * Each request below (through api_handle, cgi/api.c), and a runner's pass
 * (runner_pass, cgi/runner.c), is run once for every allocation it makes,
 * that one refused.  Every answer must still be whole: the answer the
 * request gets with memory to spare, or a 500 or 503 whose body is the
 * contract's JSON error (checkpoint-api(7), "ERRORS"), never a part of
 * either.  The next request, with memory again, must be answered as
 * before, and the store must hold what it held: every trigger a POST was
 * answered 202 for is there, and SQLite's integrity check passes.  After
 * the pass, and passes with memory as checkpoint-runner makes them, every
 * checkpoint is completed with the next id, every savepoint with its
 * location, every disposal done, or each failed because its action could
 * not start: an action that ran is never failed for memory.  Refused are the allocations of this project's code (linked
 * with --wrap, Makefile.am) and SQLite's (its own allocator hooks);
 * json-c and libpq allocate out of sight.
 *
 * A commit's answer lost is the other fault swept here: each commit of a
 * runner's pass is made in turn and reported failed (linked with
 * --wrap=store_commit), as when the connection or the server fails after
 * COMMIT was sent.  Whatever the kind (a checkpoint, a savepoint, a stop,
 * a disposal), each action must then run exactly once, and complete: an
 * action that could run is never failed for a lost answer.
 *
 * NOMEM_TRACE=K:N prints the stack of case K's N-th refusal (as "not ok
 * K" counts them, from 0) on stderr, to find what answered badly.
 */
#include <config.h>

#include <execinfo.h>
#include <json-c/json.h>
#include <sqlite3.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "action.h"
#include "api.h"
#include "clock.h"
#include "runner.h"
#include "nomem.h"
#include "tap.h"

#define NOW_MS INT64_C(1700000000000)
#define JOB "00000000000000000000000000000001"
#define JOB2 "00000000000000000000000000000002"
#define JOB3 "00000000000000000000000000000003"
/* A savepoint command: its location, one for each savepoint. */
#define SP_COMMAND "echo file:/sp/$CHECKPOINT_TRIGGER_ID"

/* Which allocation of its request the sweep refuses. */
static long nomem_n;

/* NOMEM_TRACE=K:N: the stack of case K's refusal of its N-th, on stderr. */
static void
nomem_trace(void)
{
	const char *trace = getenv("NOMEM_TRACE");
	void *frames[24];

	if (trace != NULL && atoi(trace) == tap_n + 1 &&
	    strchr(trace, ':') != NULL &&
	    atol(strchr(trace, ':') + 1) == nomem_n)
		backtrace_symbols_fd(frames, backtrace(frames, 24), 2);
}

void *__real_malloc(size_t);
void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);
char *__real_strdup(const char *);
void *__wrap_malloc(size_t);
void *__wrap_calloc(size_t, size_t);
void *__wrap_realloc(void *, size_t);
char *__wrap_strdup(const char *);

/* A refusal as the C library's: NULL, errno ENOMEM. */
static int
refused(void)
{
	if (!nomem_now())
		return 0;
	errno = ENOMEM;
	return 1;
}

void *
__wrap_malloc(size_t n)
{
	return refused() ? NULL : __real_malloc(n);
}

void *
__wrap_calloc(size_t n, size_t size)
{
	return refused() ? NULL : __real_calloc(n, size);
}

void *
__wrap_realloc(void *p, size_t n)
{
	return refused() ? NULL : __real_realloc(p, n);
}

char *
__wrap_strdup(const char *s)
{
	return refused() ? NULL : __real_strdup(s);
}

/*
 * The runner's commits: the one after lost_after more (-1: none) is
 * made, and answered STORE_UNAVAILABLE, as a connection lost after
 * COMMIT was sent; lost counts them.
 */
static long lost_after = -1, lost;
enum store_rc __real_store_commit(struct store *);
enum store_rc __wrap_store_commit(struct store *);

enum store_rc
__wrap_store_commit(struct store *s)
{
	enum store_rc rc = __real_store_commit(s);

	if (rc != STORE_OK || lost_after < 0 || lost_after-- > 0)
		return rc;
	lost++;
	return STORE_UNAVAILABLE;
}

struct body_src {
	const char *p;
	size_t len, off;
};

static size_t
read_body(void *ctx, char *p, size_t n)
{
	struct body_src *src = ctx;

	if (n > src->len - src->off)
		n = src->len - src->off;
	memcpy(p, src->p + src->off, n);
	src->off += n;
	return n;
}

static struct settings settings;
/* The requests' time: fixed, but the runner's part runs on the clock. */
static int64_t now_ms = NOW_MS;
static struct api api;

/* One request, its answer in r. */
static void
ask(const char *method, const char *path, const char *body, struct response *r)
{
	struct request req;
	struct body_src src = { body, body != NULL ? strlen(body) : 0, 0 };
	char len[32], route[160];
	const char *q = strchr(path, '?');

	/* A path's query, apart, as the web server gives it. */
	snprintf(route, sizeof(route), "%.*s",
	    (int)(q != NULL ? (size_t)(q - path) : strlen(path)), path);
	memset(&req, 0, sizeof(req));
	req.method = method;
	req.path = route;
	req.query = q != NULL ? q + 1 : NULL;
	req.uri = path;
	req.remote_user = "nomem";
	req.remote_addr = "127.0.0.1";
	if (body != NULL) {
		snprintf(len, sizeof(len), "%zu", src.len);
		req.content_length = len;
		req.read_body = read_body;
		req.ctx = &src;
	}
	api_handle(&api, &req, r, now_ms);
}

/* Whether r is a whole error answer: 500 or 503, the contract's JSON. */
static int
whole_error(const struct response *r)
{
	json_object *root, *errs;
	size_t len;
	int ok;

	if (r->status != HTTP_500 && r->status != HTTP_503)
		return 0;
	root = json_tokener_parse(response_body(r, &len));
	ok = root != NULL && json_object_object_length(root) == 1 &&
	    json_object_object_get_ex(root, "errors", &errs) &&
	    json_object_array_length(errs) == 1;
	json_object_put(root);
	return ok;
}

/* Whether r is the answer the request got with memory to spare. */
static int
same_answer(const struct response *r, const struct response *want, int any_id)
{
	size_t len, wlen;
	const char *p = response_body(r, &len);
	const char *q = response_body(want, &wlen);

	if (r->status != want->status || len != wlen)
		return 0;
	/* A 202's request-id is new each time: the rest must match. */
	return any_id ? strncmp(p, q, 15) == 0 : strcmp(p, q) == 0;
}

/*
 * After a POST answered with its request-id: with memory again, its
 * status (status_base/<id>) answers 200, the trigger being stored.
 */
static int
stored(const struct response *r, const char *status_base, char *rid)
{
	static const char prefix[] = "{\"request-id\":\"";
	struct response got = { 0 };
	char path[160];
	size_t len;
	const char *body = response_body(r, &len);
	int ok;

	if (len != sizeof(prefix) - 1 + 32 + 2 ||
	    strncmp(body, prefix, sizeof(prefix) - 1) != 0)
		return 0;
	memcpy(rid, body + sizeof(prefix) - 1, 32);
	rid[32] = '\0';
	snprintf(path, sizeof(path), "%s/%s", status_base, rid);
	ask("GET", path, NULL, &got);
	ok = got.status == HTTP_200;
	response_free(&got);
	return ok;
}

/* Keeps the first bad answer's description in first; counts each. */
static void
bad_answer(char *first, size_t len, long *bad, const char *when, long n,
    const struct response *r)
{
	size_t blen;

	if ((*bad)++ == 0)
		snprintf(first, len, "; allocation %ld %s: status %d, %.300s",
		    n, when, (int)r->status, response_body(r, &blen));
}

/*
 * Runs the request once for each allocation it makes, that one refused,
 * and checks every answer (above).  status_base: a POST's, where its
 * trigger's status is asked for; rid, if not NULL, gets the request-id
 * of its answer with memory to spare.
 */
static void
sweep(const char *method, const char *path, const char *body,
    const char *status_base, char *rid)
{
	struct response want = { 0 }, r = { 0 };
	long n = -1, bad = 0, errors = 0;
	int post = status_base != NULL;
	char first[512] = "", id[33];

	ask(method, path, body, &want);
	if (post && !stored(&want, status_base, rid != NULL ? rid : id))
		bad_answer(first, sizeof(first), &bad, "none refused", n,
		    &want);
	for (n = 0; bad == 0; n++) {
		nomem_refused = 0;
		nomem_after = nomem_n = n;
		ask(method, path, body, &r);
		nomem_after = -1;
		if (nomem_refused == 0)
			break;
		if (whole_error(&r))
			errors++;
		else if (!same_answer(&r, &want, post) ||
		    (post && !stored(&r, status_base, id)))
			bad_answer(first, sizeof(first), &bad, "refused", n,
			    &r);
		ask(method, path, body, &r);
		if (!same_answer(&r, &want, post))
			bad_answer(first, sizeof(first), &bad, "refused, then",
			    n, &r);
	}
	tap_ok(bad == 0,
	    "%s %s: %ld allocations refused in turn, %ld answered 500 "
	    "or 503, the others as with memory%s",
	    method, path, n, errors, first);
	response_free(&want);
	response_free(&r);
}

/* The database made as checkpointctl init makes it: no other program may. */
static int
nomem_init_db(void)
{
	struct store_opts o;
	struct store *s;
	char err[512];

	settings_store_opts(&settings, 0, &o);
	o.create = 1;
	if (store_open(&o, &s, err, sizeof(err)) != STORE_OK) {
		tap_ok(0, "init: %s", err);
		return -1;
	}
	store_close(s);
	return 0;
}

/*
 * The job, registered and running with command and the savepoint
 * directory /sp, as checkpointctl job add makes it; or with fields, its command (JOB_SET_COMMAND) or its
 * savepoints' directory /sp and command (JOB_SET_SAVEPOINT) changed, as
 * checkpointctl job set does.
 */
/* Adds job j (fields 0), or sets its fields: 0, or -1. */
static int
job_store(const struct job *j, int fields)
{
	struct store *s;
	enum store_rc rc;

	if (settings_open_store(&settings, 0, &s) != STORE_OK)
		return -1;
	rc = fields != 0 ? store_job_set(s, j, fields, now_ms) :
			   store_job_add(s, j, now_ms);
	store_close(s);
	return rc == STORE_OK ? 0 : -1;
}

static int
job_write(const char *job, const char *command, int fields)
{
	struct job j = { 0 };

	(void)id_parse_str(job, &j.id);
	j.name = "nomem";
	j.command = command;
	j.state = JOB_RUNNING;
	j.type = CKPT_FULL;
	j.timeout_s = 60;
	j.savepoint_dir = "/sp";
	if (fields == JOB_SET_SAVEPOINT) {
		j.command = NULL;
		j.savepoint_command = command;
		j.dispose_command = "true";
	}
	if (job_store(&j, fields) == -1)
		return -1;
	return fields == 0 ? job_store(&j, JOB_SET_SAVEPOINT) : 0;
}

/*
 * Completes the pending trigger rid as a runner would, with the job's
 * next checkpoint id, through a connection of its own: 0 or -1.
 */
static int
complete(const char *rid)
{
	struct pending p[64];
	struct outcome o = { 0 };
	struct store *s;
	size_t n = 0, i;
	int64_t row = 0;
	int rc = -1;

	if (settings_open_store(&settings, 0, &s) != STORE_OK)
		return -1;
	if (store_begin(s) == STORE_OK &&
	    store_pending(s, 0, INT64_MAX, 64, p, &n) == STORE_OK) {
		for (i = 0; i < n; i++)
			if (strcmp(p[i].trigger.s, rid) == 0)
				row = p[i].row;
		o.type = CKPT_FULL;
		o.location = "file:/ckpt/chk-1";
		if (row != 0 && n > 0 &&
		    store_next_checkpoint_id(s, &p[0].job, &o.checkpoint_id) ==
			STORE_OK &&
		    store_complete(s, row, NULL, &o, NOW_MS) == STORE_OK &&
		    store_commit(s) == STORE_OK)
			rc = 0;
		store_pending_free(p, n);
	}
	if (rc == -1)
		store_rollback(s);
	store_close(s);
	return rc;
}

/* SQLite's integrity check of the file db: "ok", or what is wrong. */
static void
integrity(const char *db, char *out, size_t outlen)
{
	sqlite3 *h;
	sqlite3_stmt *q;

	snprintf(out, outlen, "cannot be read");
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &q, NULL) ==
		SQLITE_OK) {
		if (sqlite3_step(q) == SQLITE_ROW)
			snprintf(out, outlen, "%s", sqlite3_column_text(q, 0));
		sqlite3_finalize(q);
	}
	sqlite3_close(h);
}

/* What a runner sweep triggers. */
enum sweep_kind { CHECKPOINTS, SAVEPOINTS, DISPOSALS };

/*
 * The outcome in a status answer (path): a checkpoint's id, or 1 for a
 * savepoint's location or a disposal done; 0 for an action that could
 * not be started, the one failure memory may cause (an action that ran is
 * never failed for it); -1 for anything else.
 */
static int64_t
outcome(const char *path, enum sweep_kind kind)
{
	struct response r = { 0 };
	const char *body, *p;
	size_t len;
	int64_t id = -1;

	ask("GET", path, NULL, &r);
	body = response_body(&r, &len);
	if (r.status != HTTP_200 || strstr(body, "COMPLETED") == NULL)
		id = -1;
	else if ((p = strstr(body, "\"checkpointId\":")) != NULL)
		id = strtoll(p + 15, NULL, 10);
	else if (strstr(body, "could not be started") != NULL)
		id = 0;
	else if ((kind == SAVEPOINTS &&
		     strstr(body, "\"location\":\"file:/sp/") != NULL) ||
	    (kind == DISPOSALS && strstr(body, "failure") == NULL))
		id = 1;
	response_free(&r);
	return id;
}

/*
 * On SQLite, deletes the savepoints and disposals a sweep's round made,
 * once checked: the retention reads every savepoint that has a location
 * at each pass, so that a sweep over hundreds of rounds would otherwise
 * slow as it goes.  On PostgreSQL the driver's reads allocate nothing of
 * ours.
 */
static void
forget_savepoints(void)
{
	sqlite3 *h;

	if (store_is_uri(settings.db_path))
		return;
	if (sqlite3_open(settings.db_path, &h) == SQLITE_OK)
		sqlite3_exec(h,
		    "DELETE FROM savepoint_disposals; DELETE FROM savepoints",
		    NULL, NULL, NULL);
	sqlite3_close(h);
}

/*
 * A disposal of the first of two savepoints of job made just before,
 * with memory (the newer one is kept, as a job's newest always is): its
 * own request-id in out.  0, or -1 if any was not stored.
 */
static int
dispose(struct store *s, struct runner *rn, const struct runner_opts *o,
    const char *job, char *out)
{
	struct runner_stats stats = { 0 };
	struct response r = { 0 };
	volatile sig_atomic_t quit = 0;
	char base[128], body[160], sp[33], newer[33];
	int ok;

	snprintf(base, sizeof(base), "/jobs/%s/savepoints", job);
	ask("POST", base, "{}", &r);
	ok = stored(&r, base, sp);
	ask("POST", base, "{}", &r);
	ok = ok && stored(&r, base, newer) &&
	    runner_pass(rn, s, o, &stats, &quit) == 0;
	snprintf(body, sizeof(body), "{\"savepoint-path\":\"file:/sp/%s\"}",
	    sp);
	ask("POST", "/savepoint-disposal", body, &r);
	ok = ok && stored(&r, "/savepoint-disposal", out);
	response_free(&r);
	return ok ? 0 : -1;
}

/* A runner's options, as checkpoint-runner's defaults; owner its name. */
static void
runner_options(struct runner_opts *o, char *owner, size_t len)
{
	runner_owner(owner, len);
	o->owner = owner;
	o->parallel = 4;
	o->batch = 64;
	o->store_ms = settings.store_ms;
	o->history_keep = settings.history_keep;
	o->history_age_ms = settings.history_age_ms;
	o->max_queued = settings.max_queued;
}

/*
 * A runner's pass with each allocation refused in turn, over three
 * checkpoints, savepoints or disposals of job, whose command is what:
 * then passes with memory, as checkpoint-runner --watch makes them,
 * until nothing is unsettled.  Each must then be completed: failed (an
 * action that could not start), or a savepoint with its location, a
 * disposal done, or a checkpoint with its own id, the ids in the
 * triggers' order.
 */
static void
runner_sweep(const char *job, const char *what, enum sweep_kind kind)
{
	static const char *const names[] = { "checkpoints", "savepoints",
		"disposals" };
	struct runner_opts o = { 0 };
	struct runner_stats stats;
	struct runner *rn = runner_new();
	struct response r = { 0 };
	struct store *s = NULL;
	volatile sig_atomic_t quit = 0;
	char owner[300], rid[3][33], first[512] = "", base[128], path[256];
	int64_t id, last;
	long n, bad = 0, failed = 0, failed_triggers = 0, tries;
	int i;

	runner_options(&o, owner, sizeof(owner));
	now_ms = clock_ms(CLOCK_REALTIME);
	if (kind == DISPOSALS)
		snprintf(base, sizeof(base), "/savepoint-disposal");
	else
		snprintf(base, sizeof(base), "/jobs/%s/%s", job,
		    kind == SAVEPOINTS ? "savepoints" : "checkpoints");
	if (settings_open_store(&settings, 64 * 1024, &s) != STORE_OK)
		bad++;
	for (n = 0; bad == 0; n++) {
		for (i = 0; i < 3; i++) {
			if (kind == DISPOSALS) {
				if (dispose(s, rn, &o, job, rid[i]) == -1)
					bad++;
				continue;
			}
			ask("POST", base, "{}", &r);
			if (!stored(&r, base, rid[i]))
				bad++;
		}
		memset(&stats, 0, sizeof(stats));
		nomem_refused = 0;
		nomem_after = nomem_n = n;
		if (runner_pass(rn, s, &o, &stats, &quit) == -1)
			failed++;
		nomem_after = -1;
		/*
		 * As checkpoint-runner --watch: passes on the same store, a
		 * second apart while anything is unsettled (here at once).
		 */
		for (tries = 0; tries < 5; tries++)
			if (runner_pass(rn, s, &o, &stats, &quit) == 0 &&
			    runner_unsettled(rn) == 0)
				break;
		for (i = 0, last = 0; i < 3 && bad == 0; i++) {
			snprintf(path, sizeof(path), "%s/%s", base, rid[i]);
			if ((id = outcome(path, kind)) == 0)
				failed_triggers++;
			else if (id < 0 ||
			    (kind == CHECKPOINTS && id <= last)) {
				bad++;
				snprintf(first, sizeof(first),
				    "; allocation %ld refused: %s %d %s "
				    "%lld, after %lld",
				    n, names[kind], i,
				    id < 0 ?
					"not completed, nor failed to start" :
					"has id",
				    (long long)id, (long long)last);
			} else
				last = id;
		}
		if (kind != CHECKPOINTS)
			forget_savepoints();
		if (nomem_refused == 0)
			break;
	}
	tap_ok(bad == 0,
	    "runner, %s, %s: %ld allocations refused in turn, %ld passes "
	    "failed, then each completed (%ld failed to start)%s%s",
	    names[kind], what, n, failed, failed_triggers,
	    kind == CHECKPOINTS ? ", the ids in order" : "", first);
	store_close(s);
	runner_free(rn);
	response_free(&r);
	now_ms = NOW_MS;
}

/* How many lines of the file log are line. */
static int
lines_of(const char *log, const char *line)
{
	char l[128];
	FILE *f = fopen(log, "r");
	int n = 0;

	if (f == NULL)
		return 0;
	while (fgets(l, sizeof(l), f) != NULL)
		n += strncmp(l, line, strlen(line)) == 0 &&
		    l[strlen(line)] == '\n';
	fclose(f);
	return n;
}

/*
 * Job JOB3, RUNNING, every action of which appends its trigger id to log
 * (a savepoint's also prints its location); -1 if it could not be
 * written.
 */
static int
job_logging(const char *log)
{
	static int added;
	char cmd[256], sp[320];
	struct job j = { 0 };

	snprintf(cmd, sizeof(cmd), "echo $CHECKPOINT_TRIGGER_ID >> %s", log);
	snprintf(sp, sizeof(sp), "%s; " SP_COMMAND, cmd);
	(void)id_parse_str(JOB3, &j.id);
	j.name = "doubt";
	j.state = JOB_RUNNING;
	j.type = CKPT_FULL;
	j.timeout_s = 60;
	j.command = cmd;
	j.savepoint_dir = "/sp";
	j.savepoint_command = sp;
	j.stop_command = sp;
	j.dispose_command = cmd;
	if (!added && job_store(&j, 0) == -1)
		return -1;
	added = 1;
	return job_store(&j,
	    JOB_SET_STATE | JOB_SET_COMMAND | JOB_SET_SAVEPOINT);
}

/*
 * Posts one request of kind (STOPS: a stop) for JOB3 through the API, its
 * request-id in rid, and path to ask its status: 0, or -1.
 */
static int
doubt_post(struct store *s, struct runner *rn, const struct runner_opts *o,
    int stop, enum sweep_kind kind, char *rid, char *path, size_t len)
{
	struct response r = { 0 };
	const char *base = kind == CHECKPOINTS ? "/jobs/" JOB3 "/checkpoints" :
						 "/jobs/" JOB3 "/savepoints";
	int ok;

	if (kind == DISPOSALS) {
		snprintf(path, len, "/savepoint-disposal/");
		if (dispose(s, rn, o, JOB3, rid) == -1)
			return -1;
	} else {
		ask("POST", stop ? "/jobs/" JOB3 "/stop" : base, "{}", &r);
		ok = stored(&r, base, rid);
		response_free(&r);
		if (!ok)
			return -1;
		snprintf(path, len, "%s/", base);
	}
	snprintf(path + strlen(path), len - strlen(path), "%s", rid);
	return 0;
}

/*
 * A runner's pass over three requests of kind (stop: one stop), with
 * each of its commits in turn made and its answer lost; then passes as
 * checkpoint-runner --watch makes them.  Each request must then be
 * completed, as without the fault, its action run exactly once.
 */
static void
doubt_sweep(const char *name, enum sweep_kind kind, int stop, const char *log)
{
	struct runner_opts o = { 0 };
	struct runner_stats stats;
	struct runner *rn = runner_new();
	struct store *s = NULL;
	volatile sig_atomic_t quit = 0;
	char owner[300], rid[3][33], path[3][160], first[512] = "";
	long n, bad = 0, tries;
	int i, count = stop ? 1 : 3;

	runner_options(&o, owner, sizeof(owner));
	if (settings_open_store(&settings, 0, &s) != STORE_OK)
		bad++;
	for (n = 0; bad == 0; n++) {
		if (stop && job_logging(log) == -1)
			bad++;
		for (i = 0; i < count && bad == 0; i++)
			if (doubt_post(s, rn, &o, stop, kind, rid[i], path[i],
				sizeof(path[i])) == -1)
				bad++;
		lost = 0;
		lost_after = n;
		(void)runner_pass(rn, s, &o, &stats, &quit);
		lost_after = -1;
		for (tries = 0; tries < 5; tries++)
			if (runner_pass(rn, s, &o, &stats, &quit) == 0 &&
			    runner_unsettled(rn) == 0)
				break;
		for (i = 0; i < count && bad == 0; i++)
			if (outcome(path[i], kind) <= 0 ||
			    lines_of(log, rid[i]) != 1) {
				bad++;
				snprintf(first, sizeof(first),
				    "; commit %ld lost: %s ran %d times, "
				    "answers %lld",
				    n, rid[i], lines_of(log, rid[i]),
				    (long long)outcome(path[i], kind));
			}
		if (lost == 0)
			break;
	}
	tap_ok(bad == 0,
	    "runner, %s: each of %ld commits made and its answer lost in "
	    "turn, then each completed, its action run once%s",
	    name, n, first);
	store_close(s);
	runner_free(rn);
}

/*
 * UNIT_STORE_DB: that (empty) database instead of a SQLite file of a
 * temporary directory; tests/t6105-pg-unit.sh runs this on PostgreSQL.
 */
int
main(void)
{
	static const char *const gets[] = { "/jobs/" JOB "/checkpoints",
		"/jobs/" JOB "/checkpoints/details/1",
		"/jobs/" JOB "/checkpoints/config", "/jobs/" JOB "/triggers",
		"/jobs/" JOB "/status", "/jobs/overview", "/jobs", "/metrics",
		"/jobs/overview?limit=1&q=a", "/metrics?per-job=1", "/ui/fleet",
		"/jobs/" JOB "/savepoints", "/ui/", "/jobs/" JOB "/nothing" };
	char dir[] = "/tmp/unit-nomem.XXXXXX", db[64], path[160];
	char rid[33], spid[33], ok[64];
	const char *env = getenv("UNIT_STORE_DB");
	size_t i;

	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(db, sizeof(db), "%s/checkpoints.db", dir);
	settings.db_path = env != NULL && *env != '\0' ? env : db;
	nomem_install();
	nomem_refusing = nomem_trace;
	store_init();
	settings.store_ms = DEFAULT_STORE_MS;
	settings.max_body = DEFAULT_MAX_BODY;
	settings.cors_origin = "*";
	settings.sync_normal = 1;
	settings.busy_ms = DEFAULT_BUSY_MS;
	settings.history = DEFAULT_HISTORY;
	settings.max_queued = DEFAULT_MAX_QUEUED;
	settings.history_keep = DEFAULT_HISTORY_KEEP;
	settings.history_age_ms = DEFAULT_HISTORY_AGE_MS;
	settings.metrics = 1;
	if (nomem_init_db() == -1)
		return 1;
	api_init(&api, &settings);

	tap_ok(job_write(JOB, NULL, 0) == 0, "job " JOB " registered");
	sweep("POST", "/jobs/" JOB "/checkpoints", "{}",
	    "/jobs/" JOB "/checkpoints", rid);
	/* An escaped NUL in a name: the parser's copy of the body. */
	sweep("POST", "/jobs/" JOB "/checkpoints", "{\"a\\u0000\":1}",
	    "/jobs/" JOB "/checkpoints", NULL);
	sweep("POST", "/jobs/" JOB "/savepoints",
	    "{\"target-directory\":\"/sp/a\"}", "/jobs/" JOB "/savepoints",
	    spid);
	sweep("POST", "/savepoint-disposal", "{\"savepoint-path\":\"/sp/x\"}",
	    "/savepoint-disposal", NULL);
	sweep("POST", "/jobs/" JOB "/checkpoints", "{\"type\":", NULL, NULL);
	tap_ok(complete(rid) == 0, "the first trigger completed: checkpoint 1");
	snprintf(path, sizeof(path), "/jobs/%s/checkpoints/%s", JOB, rid);
	sweep("GET", path, NULL, NULL, NULL);
	snprintf(path, sizeof(path), "/jobs/%s/savepoints/%s", JOB, spid);
	sweep("GET", path, NULL, NULL, NULL);
	for (i = 0; i < sizeof(gets) / sizeof(gets[0]); i++)
		sweep("GET", gets[i], NULL, NULL, NULL);
	tap_ok(job_write(JOB2, NULL, 0) == 0, "job " JOB2 " registered");
	runner_sweep(JOB2, "no command", CHECKPOINTS);
	action_wake_on_exit();
	tap_ok(job_write(JOB2, "true", JOB_SET_COMMAND) == 0,
	    "job " JOB2 " runs true");
	runner_sweep(JOB2, "command true", CHECKPOINTS);
	tap_ok(job_write(JOB2, SP_COMMAND, JOB_SET_SAVEPOINT) == 0,
	    "job " JOB2 " takes savepoints in /sp, and disposes of them");
	runner_sweep(JOB2, "command " SP_COMMAND, SAVEPOINTS);
	runner_sweep(JOB2, "dispose command true", DISPOSALS);
	snprintf(path, sizeof(path), "%s/actions", dir);
	tap_ok(job_logging(path) == 0, "job " JOB3 " logs its actions");
	doubt_sweep("checkpoints", CHECKPOINTS, 0, path);
	doubt_sweep("savepoints", SAVEPOINTS, 0, path);
	doubt_sweep("disposals", DISPOSALS, 0, path);
	doubt_sweep("a stop", SAVEPOINTS, 1, path);
	api_free(&api);
	if (settings.db_path == db) {
		integrity(db, ok, sizeof(ok));
		tap_is_str(ok, "ok", "the database passes its integrity check");
	}
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	if (system(path) != 0)
		return 1;
	return tap_done();
}
