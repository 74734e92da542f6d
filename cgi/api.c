/*
 * Handlers for POST /jobs/:jobid/checkpoints and
 * GET /jobs/:jobid/checkpoints/:triggerid, in the order a request flows:
 * route, method, body, path ids, store, answer.  checkpoint-api(7) is the
 * contract.  A POST's answer comes later, from the committer: the map of
 * that path is at the head of commit.c.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "body.h"
#include "commit.h"
#include "log.h"
#include "metrics.h"
#include "readers.h"
#include "route.h"
#include "stats.h"
#include "ui.h"

static void api_answer(struct commit_req *, enum store_rc, int);

void
api_init(struct api *a, const struct settings *st)
{
	memset(a, 0, sizeof(*a));
	a->settings = st;
	a->pending.rec = &a->pending_rec;
	a->pending.answer = api_answer;
}

void
api_free(struct api *a)
{
	store_close(a->store);
	a->store = NULL;
	buf_free(&a->body);
	body_parser_free(a->parser);
	a->parser = NULL;
}

/* The answer to a failed store operation. */
static enum api_error
api_store_error(enum store_rc rc)
{
	switch (rc) {
	case STORE_BUSY:
		return ERR_BUSY;
	case STORE_READONLY:
		return ERR_READONLY;
	case STORE_ERROR:
		return ERR_INTERNAL;
	default:
		return ERR_UNAVAILABLE;
	}
}

/*
 * The store, opened on first use and again after a fault, so that a
 * database that was missing or unreadable is picked up without a restart
 * (one replaced while open is refused instead: store_replaced).  NULL: r
 * holds the 503 naming the cause; the log has the path and the error.
 */
struct store *
api_store(struct api *a, struct response *r)
{
	struct store_opts o;
	enum store_rc rc;
	char err[512];

	if (a->readers != NULL && !a->borrowed) {
		a->store = readers_take(a->readers);
		a->borrowed = 1;
	}
	/* Kept open, not reopened: see store_replaced. */
	if (a->store != NULL && store_replaced(a->store, 100)) {
		http_error(r, ERR_UNAVAILABLE);
		return NULL;
	}
	if (a->store != NULL)
		return a->store;
	/* Point reads by key: a small cache per thread keeps RSS low. */
	settings_store_opts(a->settings, 256, &o);
	if ((rc = store_open(&o, &a->store, err, sizeof(err))) != STORE_OK) {
		log_error("open store: %s", err);
		a->store = NULL;
		http_error(r,
		    api_store_error(
			rc == STORE_ERROR ? STORE_UNAVAILABLE : rc));
	}
	return a->store;
}

/*
 * Answers a failed store operation; a store that is unavailable or failed
 * is closed so the next request reopens it.  A locked one is kept.
 */
void
api_store_failed(struct api *a, enum store_rc rc, struct response *r)
{
	if (rc != STORE_BUSY) {
		store_close(a->store);
		a->store = NULL;
	}
	http_error(r, api_store_error(rc));
}

/* Fills r with the 413 of a body over the limit. */
static void
api_too_large(const struct api *a, struct response *r)
{
	char limit[32];

	snprintf(limit, sizeof(limit), "%zu", a->settings->max_body);
	http_error(r, ERR_TOO_LARGE, limit);
}

/*
 * Reads a body of unknown length (body_unannounced) into a->body, to the
 * end of the input; one byte over the limit is enough to refuse it.
 */
static int
api_read_to_end(struct api *a, const struct request *req, struct response *r)
{
	size_t max = a->settings->max_body, want, got;

	if (req->read_body == NULL)
		return 0;
	do {
		want = max + 1 - a->body.len < 4096 ? max + 1 - a->body.len :
						      4096;
		if (buf_reserve(&a->body, want) == -1) {
			http_error(r, ERR_INTERNAL);
			return -1;
		}
		got = req->read_body(req->ctx, a->body.p + a->body.len, want);
		a->body.len += got;
		a->body.p[a->body.len] = '\0';
	} while (got == want && a->body.len <= max);
	if (a->body.len > max) {
		api_too_large(a, r);
		return -1;
	}
	return 0;
}

/*
 * Reads the body into a->body: the announced length, or all there is of a
 * body whose length was not announced.  Returns 0, or -1 with r filled in
 * (413 over the limit, 400 for a length that lies).
 */
static int
api_read_body(struct api *a, const struct request *req, struct response *r)
{
	size_t len, got;
	enum body_rc rc;

	buf_reset(&a->body);
	rc = body_length(req->content_length, a->settings->max_body, &len);
	if (rc == BODY_TOO_LARGE) {
		api_too_large(a, r);
		return -1;
	}
	if (rc != BODY_OK) {
		http_error(r, ERR_BODY_LENGTH);
		return -1;
	}
	if (body_unannounced(req->content_length, req->transfer_encoding))
		return api_read_to_end(a, req, r);
	if (len == 0)
		return 0;
	if (buf_reserve(&a->body, len) == -1) {
		http_error(r, ERR_INTERNAL);
		return -1;
	}
	got = req->read_body != NULL ?
	    req->read_body(req->ctx, a->body.p, len) :
	    0;
	a->body.len = got;
	a->body.p[got] = '\0';
	if (got != len) {
		http_error(r, ERR_BODY_LENGTH);
		return -1;
	}
	return 0;
}

/* Fills r with Flink's 400 for the path parameter name of value seg. */
void
api_path_param_error(const struct segment *seg, const char *name,
    struct response *r)
{
	struct buf raw = { 0 };

	/*
	 * The value is echoed whole, as Flink does (the web server bounds a
	 * path's length); JSON-escaped later.
	 */
	if (buf_add(&raw, seg->p, seg->len) == -1)
		http_error(r, ERR_INTERNAL);
	else
		http_error(r, ERR_PATH_PARAM, name, buf_str(&raw));
	buf_free(&raw);
}

/* Validates a path id; on failure fills r with Flink's 400. */
int
api_path_id(const struct segment *seg, const char *name, struct id *out,
    struct response *r)
{
	if (id_parse(seg->p, seg->len, out) == 0)
		return 0;
	api_path_param_error(seg, name, r);
	return -1;
}

/* The 202 of a recorded trigger. */
static void
api_accepted(struct response *r, const struct trigger_rec *rec, int created)
{
	log_debug("trigger %s job %s: %s", rec->trigger.s, rec->job.s,
	    created ? "recorded" : "already known");
	r->status = HTTP_202;
	buf_reset(&r->body);
	if (buf_adds(&r->body, "{\"request-id\":\"") == -1 ||
	    buf_adds(&r->body, rec->trigger.s) == -1 ||
	    buf_add(&r->body, "\"}", 2) == -1)
		http_error(r, ERR_INTERNAL);
}

/* In the committer thread: the answer to a POST that api_trigger deferred. */
static void
api_answer(struct commit_req *req, enum store_rc rc, int created)
{
	struct api *a = (struct api *)(void *)((char *)req -
	    offsetof(struct api, pending));

	if (rc != STORE_OK)
		http_error(a->answer, api_store_error(rc));
	else
		api_accepted(a->answer, req->rec, created);
	a->reply(a, a->answer);
}

/* POST: returns 1 when the committer answers (a->reply), else 0. */
static int
api_trigger(struct api *a, const struct request *req, const struct route *rt,
    struct response *r, int64_t now_ms)
{
	struct trigger_body tb;
	struct trigger_rec rec;
	struct store *s;
	enum store_rc rc;
	int created;

	/* The body is checked before the path ids, as in Flink. */
	if (api_read_body(a, req, r) == -1)
		return 0;
	if (body_parse_trigger(&a->parser, a->body.p, a->body.len, &tb) !=
	    BODY_OK) {
		http_error(r, ERR_BODY);
		return 0;
	}
	memset(&rec, 0, sizeof(rec));
	if (api_path_id(&rt->jobid, "jobid", &rec.job, r) == -1)
		return 0;
	if (tb.has_trigger_id)
		rec.trigger = tb.trigger_id;
	else if (id_random(&rec.trigger) == -1) {
		log_error("getrandom: cannot make a trigger id");
		http_error(r, ERR_INTERNAL);
		return 0;
	}
	rec.type = tb.type;
	rec.remote_user = req->remote_user;
	rec.remote_addr = req->remote_addr;
	rec.now_ms = now_ms;
	rec.store_ms = a->settings->store_ms;

	if (a->settings->reject_unknown_jobs) {
		if ((s = api_store(a, r)) == NULL)
			return 0;
		rc = store_job_known(s, &rec.job);
		if (rc == STORE_NOTFOUND) {
			http_error(r, ERR_NO_JOB, rec.job.s);
			return 0;
		}
		if (rc != STORE_OK) {
			api_store_failed(a, rc, r);
			return 0;
		}
	}
	/* Committed (synchronous=FULL by default) before the 202 goes out. */
	if (a->committer != NULL) {
		a->pending_rec = rec;
		a->answer = r;
		commit_submit(a->committer, &a->pending);
		return 1;
	}
	if ((s = api_store(a, r)) == NULL)
		return 0;
	if ((rc = store_record_trigger(s, &rec, &created)) != STORE_OK) {
		api_store_failed(a, rc, r);
		return 0;
	}
	api_accepted(r, &rec, created);
	return 0;
}

/*
 * A status read together with the other threads' waiting at the same time
 * (readers.h): read by this thread, the leader, on a connection of the
 * pool, or by another.  A follower's failure is answered here; the
 * leader's store is then closed as api_store_failed closes it.
 */
static enum store_rc
api_read_together(struct api *a, const struct id *job, const struct id *trigger,
    int64_t now_ms, struct response *r)
{
	struct readers_req req;
	struct status_read *reads[READERS_BATCH];
	struct store *s;
	enum store_rc rc;
	size_t n, i;

	req.read.job = job;
	req.read.trigger = trigger;
	req.read.json = &r->body;
	if ((n = readers_join(a->readers, &req, &a->store, reads)) == 0)
		rc = req.read.rc;
	else {
		a->borrowed = 1;
		rc = (s = api_store(a, r)) == NULL ?
		    STORE_UNAVAILABLE :
		    store_read_statuses(s, reads, n, now_ms,
			a->settings->store_ms);
		if (rc != STORE_OK) {
			for (i = 0; i < n; i++)
				reads[i]->rc = rc;
			if (s != NULL && rc != STORE_BUSY) {
				store_close(a->store);
				a->store = NULL;
			}
		}
		readers_answered(a->readers, reads, n);
		rc = req.read.rc;
	}
	return rc;
}

static void
api_status(struct api *a, const struct route *rt, struct response *r,
    int64_t now_ms)
{
	struct id job, trigger;
	struct store *s;
	enum store_rc rc;

	/* jobid is resolved first: with both bad, jobid is reported. */
	if (api_path_id(&rt->jobid, "jobid", &job, r) == -1 ||
	    api_path_id(&rt->triggerid, "triggerid", &trigger, r) == -1)
		return;
	buf_reset(&r->body);
	if (a->readers != NULL && readers_together(a->readers))
		rc = api_read_together(a, &job, &trigger, now_ms, r);
	else if ((s = api_store(a, r)) == NULL)
		return;
	else if ((rc = store_read_status(s, &job, &trigger, now_ms,
		      a->settings->store_ms, &r->body)) != STORE_OK &&
	    rc != STORE_NOTFOUND) {
		api_store_failed(a, rc, r);
		return;
	}
	if (rc == STORE_NOTFOUND) {
		http_error(r, ERR_NO_TRIGGER, trigger.s, job.s);
		return;
	}
	if (rc != STORE_OK) {
		http_error(r, api_store_error(rc));
		return;
	}
	r->status = HTTP_200;
}

/* GET /metrics (metrics.h). */
static void
api_metrics(struct api *a, struct response *r, int64_t now_ms)
{
	struct store *s;
	enum store_rc rc;

	if ((s = api_store(a, r)) == NULL)
		return;
	rc = metrics_write(s, a->settings->metrics_filter, now_ms, &r->body);
	if (rc != STORE_OK) {
		api_store_failed(a, rc, r);
		return;
	}
	r->status = HTTP_200;
	r->content_type = METRICS_CONTENT_TYPE;
}

/*
 * Answers req in r and returns 0; or returns 1 when a->reply will answer
 * (a POST, once committed).
 */
int
api_handle(struct api *a, const struct request *req, struct response *r,
    int64_t now_ms)
{
	struct route rt;
	const char *method = req->method != NULL ? req->method : "";
	int deferred = 0;

	response_reset(r);
	route_match(method, req->path, &rt);
	/* CHECKPOINT_METRICS=0: no such path. */
	if (rt.id == ROUTE_NONE ||
	    (rt.id == ROUTE_METRICS && !a->settings->metrics)) {
		http_error(r, ERR_NOT_FOUND,
		    req->uri != NULL ? req->uri : (req->path ? req->path : ""));
		return 0;
	}
	if (!rt.method_ok) {
		r->allow = rt.allow;
		http_error(r, ERR_METHOD, method);
		return 0;
	}
	/* Anything but a read, from another site's page (ui.h). */
	if (strcmp(method, "GET") != 0 &&
	    !origin_allowed(req->origin, req->host, req->server_port,
		a->settings->cors_origin)) {
		http_error(r, ERR_CROSS_SITE, req->origin);
		return 0;
	}
	if (rt.id == ROUTE_UI)
		ui_serve(req, &rt, r);
	else if (rt.id == ROUTE_TRIGGER)
		deferred = api_trigger(a, req, &rt, r, now_ms);
	else if (rt.id == ROUTE_STATUS)
		api_status(a, &rt, r, now_ms);
	else if (rt.id == ROUTE_METRICS)
		api_metrics(a, r, now_ms);
	else
		stats_handle(a, &rt, r, now_ms);
	if (a->borrowed) {
		/* open, or NULL after a fault */
		readers_give(a->readers, a->store);
		a->store = NULL;
		a->borrowed = 0;
	}
	return deferred;
}
