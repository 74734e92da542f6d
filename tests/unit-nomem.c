/*
 * The API's answers when memory runs out (api_handle, cgi/api.c): each
 * request below is run once for every allocation it makes, that one
 * refused.  Every answer must still be whole: the answer the request gets
 * with memory to spare, or a 500 or 503 whose body is the contract's JSON
 * error (checkpoint-api(7), "ERRORS"), never a part of either.  The next
 * request, with memory again, must be answered as before, and the store
 * must hold what it held: every trigger a POST was answered 202 for is
 * there, and SQLite's integrity check passes.  Refused are the allocations
 * of this project's code (linked with --wrap, Makefile.am) and SQLite's
 * (its own allocator hooks); json-c allocates out of sight.
 *
 * NOMEM_TRACE=K:N prints the stack of case K's N-th refusal (as "not ok
 * K" counts them, from 0) on stderr, to find what answered badly.
 */
#include <config.h>

#include <execinfo.h>
#include <json-c/json.h>
#include <sqlite3.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "nomem.h"
#include "tap.h"

#define NOW_MS INT64_C(1700000000000)
#define JOB "00000000000000000000000000000001"

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

void *
__wrap_malloc(size_t n)
{
	return nomem_now() ? NULL : __real_malloc(n);
}

void *
__wrap_calloc(size_t n, size_t size)
{
	return nomem_now() ? NULL : __real_calloc(n, size);
}

void *
__wrap_realloc(void *p, size_t n)
{
	return nomem_now() ? NULL : __real_realloc(p, n);
}

char *
__wrap_strdup(const char *s)
{
	return nomem_now() ? NULL : __real_strdup(s);
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
static struct api api;

/* One request, its answer in r. */
static void
ask(const char *method, const char *path, const char *body, struct response *r)
{
	struct request req;
	struct body_src src = { body, body != NULL ? strlen(body) : 0, 0 };
	char len[32];

	memset(&req, 0, sizeof(req));
	req.method = method;
	req.path = path;
	req.uri = path;
	req.remote_user = "nomem";
	req.remote_addr = "127.0.0.1";
	if (body != NULL) {
		snprintf(len, sizeof(len), "%zu", src.len);
		req.content_length = len;
		req.read_body = read_body;
		req.ctx = &src;
	}
	api_handle(&api, &req, r, NOW_MS);
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

/* The job, registered and running, as checkpointctl job add makes it. */
static int
add_job(void)
{
	struct job j = { 0 };
	struct store *s;
	int rc;

	if (settings_open_store(&settings, 0, &s) != STORE_OK)
		return -1;
	(void)id_parse_str(JOB, &j.id);
	j.name = "nomem";
	j.state = JOB_RUNNING;
	j.type = CKPT_FULL;
	j.timeout_s = 60;
	rc = store_job_add(s, &j, NOW_MS) == STORE_OK ? 0 : -1;
	store_close(s);
	return rc;
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
		"/jobs/" JOB "/savepoints", "/ui/", "/jobs/" JOB "/nothing" };
	char dir[] = "/tmp/unit-nomem.XXXXXX", db[64], path[160];
	char rid[33], spid[33], ok[64];
	const char *env = getenv("UNIT_STORE_DB");
	size_t i;

	if (env != NULL && *env != '\0')
		settings.db_path = env;
	else {
		if (mkdtemp(dir) == NULL)
			return 1;
		snprintf(db, sizeof(db), "%s/checkpoints.db", dir);
		settings.db_path = db;
	}
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
	api_init(&api, &settings);

	tap_ok(add_job() == 0, "job " JOB " registered");
	sweep("POST", "/jobs/" JOB "/checkpoints", "{}",
	    "/jobs/" JOB "/checkpoints", rid);
	/* An escaped NUL in a name: the parser's copy of the body. */
	sweep("POST", "/jobs/" JOB "/checkpoints", "{\"a\\u0000\":1}",
	    "/jobs/" JOB "/checkpoints", NULL);
	sweep("POST", "/jobs/" JOB "/savepoints",
	    "{\"target-directory\":\"/tmp/sp\"}", "/jobs/" JOB "/savepoints",
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
	api_free(&api);
	if (settings.db_path == db) {
		integrity(db, ok, sizeof(ok));
		tap_is_str(ok, "ok", "the database passes its integrity check");
		snprintf(path, sizeof(path), "rm -rf %s", dir);
		if (system(path) != 0)
			return 1;
	}
	return tap_done();
}
