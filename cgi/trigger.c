/*
 * Handlers for POST /jobs/:jobid/checkpoints and
 * GET /jobs/:jobid/checkpoints/:triggerid, in the order a request flows:
 * method, body, path ids, store, answer.  checkpoint-api(7) is the
 * contract.  See trigger.h.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "body.h"
#include "exchange.h"
#include "log.h"
#include "readers.h"
#include "sppath.h"
#include "trigger.h"

/* Answers the 413 of a body over the limit. */
static void
trigger_too_large(const struct api *a, struct response *r)
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
trigger_read_to_end(struct api *a, const struct request *req,
    struct response *r)
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
		trigger_too_large(a, r);
		return -1;
	}
	return 0;
}

/*
 * Refuses a POST whose caller, as the web server gives it, is past what
 * is kept of one (sppath.h): every POST records it.
 */
static int
trigger_caller_refused(const struct request *req, struct response *r)
{
	const char *why;

	if ((why = sppath_caller_refused(req->remote_user)) != NULL) {
		http_error(r, ERR_FIELD_REFUSED, "REMOTE_USER", why);
		return 1;
	}
	if ((why = sppath_caller_refused(req->remote_addr)) != NULL) {
		http_error(r, ERR_FIELD_REFUSED, "REMOTE_ADDR", why);
		return 1;
	}
	return 0;
}

/*
 * Reads the body of a POST into a->body: the announced length, or all
 * there is of a body whose length was not announced.  Returns 0, or -1
 * with r filled in (413 over the limit, 400 for a length that lies or a
 * caller past its bound).
 */
int
trigger_read_body(struct api *a, const struct request *req, struct response *r)
{
	size_t len, got;
	enum body_rc rc;

	if (trigger_caller_refused(req, r))
		return -1;
	buf_reset(&a->body);
	rc = body_length(req->content_length, a->settings->max_body, &len);
	if (rc == BODY_TOO_LARGE) {
		trigger_too_large(a, r);
		return -1;
	}
	if (rc != BODY_OK) {
		http_error(r, ERR_BODY_LENGTH);
		return -1;
	}
	if (body_unannounced(req->content_length, req->transfer_encoding))
		return trigger_read_to_end(a, req, r);
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

/* The 202 of a recorded trigger. */
static void
trigger_accepted(struct response *r, const struct trigger_rec *rec, int created)
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

/*
 * Makes the answer of a POST that trigger_post left to the committer,
 * once its transaction is over: in the committer thread, from its reply.
 */
void
trigger_answer(struct post *p)
{
	if (p->rc != STORE_OK)
		http_error(p->answer, exchange_store_error(p->rc));
	else
		trigger_accepted(p->answer, &p->rec, p->created);
}

/*
 * The trigger a POST asks for, from its body and path: -1 once the
 * error is answered.
 */
static int
trigger_from_request(struct exchange *x, struct trigger_rec *rec)
{
	struct api *a = x->api;
	const struct request *req = x->req;
	struct trigger_body tb;
	enum body_rc brc;

	/* The body is checked before the path ids, as in Flink. */
	if (trigger_read_body(a, req, x->res) == -1)
		return -1;
	if ((brc = body_parse_trigger(&a->parser, a->body.p, a->body.len,
		 &tb)) != BODY_OK) {
		http_error(x->res, brc == BODY_NOMEM ? ERR_INTERNAL : ERR_BODY);
		return -1;
	}
	memset(rec, 0, sizeof(*rec));
	if (exchange_path_id(x, &x->route->jobid, "jobid", &rec->job) == -1)
		return -1;
	if (tb.has_trigger_id)
		rec->trigger = tb.trigger_id;
	else if (id_random(&rec->trigger) == -1) {
		log_error("getrandom: cannot make a trigger id");
		http_error(x->res, ERR_INTERNAL);
		return -1;
	}
	rec->type = tb.type;
	rec->remote_user = req->remote_user;
	rec->remote_addr = req->remote_addr;
	rec->now_ms = x->now_ms;
	rec->store_ms = a->settings->store_ms;
	rec->max_queued = a->settings->max_queued;
	return 0;
}

/*
 * With CHECKPOINT_REJECT_UNKNOWN_JOBS, an unregistered job's 404: -1
 * once an error is answered.
 */
static int
trigger_job_known(struct exchange *x, const struct id *job)
{
	struct store *s;
	enum store_rc rc;

	if (!x->api->settings->reject_unknown_jobs)
		return 0;
	if ((s = exchange_store(x)) == NULL)
		return -1;
	if ((rc = store_job_known(s, job)) == STORE_NOTFOUND) {
		http_error(x->res, ERR_NO_JOB, job->s);
		return -1;
	}
	if (rc != STORE_OK) {
		exchange_store_failed(x, rc);
		return -1;
	}
	return 0;
}

/* POST: deferred when the committer answers (req->post's reply). */
void
trigger_post(struct exchange *x)
{
	struct api *a = x->api;
	const struct request *req = x->req;
	struct trigger_rec rec;
	struct store *s;
	enum store_rc rc;
	int created;

	if (trigger_from_request(x, &rec) == -1 ||
	    trigger_job_known(x, &rec.job) == -1)
		return;
	/* Committed (synchronous=FULL by default) before the 202 goes out. */
	if (a->committer != NULL && req->post != NULL) {
		req->post->rec = rec;
		req->post->is_savepoint = 0;
		req->post->answer = x->res;
		commit_submit(a->committer, req->post);
		x->deferred = 1;
		return;
	}
	if ((s = exchange_store(x)) == NULL)
		return;
	if ((rc = store_record_trigger(s, &rec, &created)) != STORE_OK) {
		exchange_store_failed(x, rc);
		return;
	}
	trigger_accepted(x->res, &rec, created);
}

/* GET: the trigger's status, as Flink's asynchronous operation result. */
void
trigger_get(struct exchange *x)
{
	struct api *a = x->api;
	struct response *r = x->res;
	struct id job, trigger;
	struct store *s;
	enum store_rc rc;

	/* jobid is resolved first: with both bad, jobid is reported. */
	if (exchange_path_id(x, &x->route->jobid, "jobid", &job) == -1 ||
	    exchange_path_id(x, &x->route->triggerid, "triggerid", &trigger) ==
		-1)
		return;
	buf_reset(&r->body);
	if (a->readers != NULL && readers_together(a->readers))
		rc = exchange_read_together(x, &job, &trigger, 0);
	else if ((s = exchange_store(x)) == NULL)
		return;
	else if ((rc = store_read_status(s, &job, &trigger, x->now_ms,
		      a->settings->store_ms, &r->body)) != STORE_OK &&
	    rc != STORE_NOTFOUND) {
		exchange_store_failed(x, rc);
		return;
	}
	if (rc == STORE_NOTFOUND) {
		http_error(r, ERR_NO_TRIGGER, trigger.s, job.s);
		return;
	}
	if (rc != STORE_OK) {
		http_error(r, exchange_store_error(rc));
		return;
	}
	r->status = HTTP_200;
}
