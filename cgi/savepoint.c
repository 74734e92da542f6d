/*
 * Handlers of the savepoint family, in the order a request flows, as
 * trigger.c's: method, body, path ids, store, answer.  A savepoint or a
 * stop is recorded by the group committer, as a trigger is, where the
 * process has one (FastCGI); a disposal, and every POST of a CGI
 * process, through the thread's own store.
 */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "commit.h"
#include "exchange.h"
#include "jobs.h"
#include "log.h"
#include "readers.h"
#include "route.h"
#include "savepoint.h"
#include "sppath.h"
#include "trigger.h"

/* {"request-id":"<id>"} with the given status. */
static void
savepoint_request_id(struct response *r, enum http_status status,
    const struct id *trigger)
{
	r->status = status;
	buf_reset(&r->body);
	if (buf_adds(&r->body, "{\"request-id\":\"") == -1 ||
	    buf_adds(&r->body, trigger->s) == -1 ||
	    buf_add(&r->body, "\"}", 2) == -1)
		http_error(r, ERR_INTERNAL);
}

/*
 * The job's savepoint directory, in dir, and *has whether it has one,
 * *known whether the job is registered.  Returns 0, or -1 with the
 * store's failure answered.
 */
static int
savepoint_job_dir(struct exchange *x, struct store *s, const struct id *job,
    struct buf *dir, int *has, int *known)
{
	enum store_rc rc;

	*has = 0;
	*known = 1;
	if ((rc = store_job_savepoint_dir(s, job, dir)) == STORE_NOTFOUND) {
		if ((rc = store_job_known(s, job)) == STORE_NOTFOUND)
			*known = 0;
		if (rc == STORE_OK || rc == STORE_NOTFOUND)
			return 0;
	}
	if (rc != STORE_OK) {
		exchange_store_failed(x, rc);
		return -1;
	}
	*has = 1;
	return 0;
}

/*
 * The directory of the savepoint into rec: the request's, which must lie
 * under its root (sppath.h): the job's own directory, or for a job with
 * none, registered or not, the service's CHECKPOINT_SAVEPOINT_ROOT; or,
 * where it named none, the job's own, in dir.  Returns 0, or -1 with the
 * answer made: Flink's 400 naming the request's field when the job has
 * none to fall back on, ours naming why a directory is refused, a 404 for
 * a job not registered whose directory (kept with the job) or root cannot
 * be known.
 */
static int
savepoint_dir(struct exchange *x, struct store *s, const char *asked, int stop,
    struct buf *dir, struct savepoint_rec *rec)
{
	const char *field = stop ? "targetDirectory" : "target-directory";
	const char *root = x->api->settings->savepoint_root, *why;
	int has, known;

	if (savepoint_job_dir(x, s, &rec->job, dir, &has, &known) == -1)
		return -1;
	if (!known && (asked == NULL || root == NULL)) {
		http_error(x->res, ERR_NO_JOB, rec->job.s);
		return -1;
	}
	if (asked == NULL && !has) {
		http_error(x->res, ERR_NO_SAVEPOINT_DIR, field);
		return -1;
	}
	if (asked != NULL &&
	    (why = sppath_dir_refused(asked, has ? dir->p : root)) != NULL) {
		http_error(x->res, ERR_FIELD_REFUSED, field, why);
		return -1;
	}
	rec->target_dir = asked != NULL ? asked : dir->p;
	return 0;
}

/*
 * Hands the savepoint to the committer, as trigger_post hands a trigger:
 * recorded in the next group commit, answered from its reply
 * (trigger_answer), so that savepoints and triggers of one process never
 * wait on each other's locks.  Its directory is copied into the post,
 * since the request's body and the job's directory go before the reply.
 */
static void
savepoint_submit(struct exchange *x, const struct savepoint_rec *rec)
{
	struct post *p = x->req->post;

	buf_reset(&p->dir);
	if (buf_adds(&p->dir, rec->target_dir) == -1) {
		http_error(x->res, ERR_INTERNAL);
		return;
	}
	memset(&p->rec, 0, sizeof(p->rec));
	p->rec.job = rec->job;
	p->rec.trigger = rec->trigger;
	p->is_savepoint = 1;
	p->sp = *rec;
	p->sp.target_dir = p->dir.p;
	p->answer = x->res;
	commit_submit(x->api->committer, p);
	x->deferred = 1;
}

/*
 * The record of a savepoint or stop from its body and the request, all
 * but its directory.  Returns 0, or -1 with the answer made.
 */
static int
savepoint_rec_from(struct exchange *x, const struct savepoint_body *sb,
    int stop, struct savepoint_rec *rec)
{
	memset(rec, 0, sizeof(*rec));
	if (exchange_path_id(x, &x->route->jobid, "jobid", &rec->job) == -1)
		return -1;
	if (sb->has_trigger_id)
		rec->trigger = sb->trigger_id;
	else if (id_random(&rec->trigger) == -1) {
		log_error("getrandom: cannot make a trigger id");
		http_error(x->res, ERR_INTERNAL);
		return -1;
	}
	rec->stop = stop;
	rec->native = sb->native;
	rec->cancel_job = sb->cancel_job;
	rec->drain = sb->drain;
	rec->remote_user = x->req->remote_user;
	rec->remote_addr = x->req->remote_addr;
	rec->now_ms = x->now_ms;
	rec->max_queued = x->api->settings->max_queued;
	return 0;
}

/* POST /jobs/:jobid/savepoints and /jobs/:jobid/stop. */
void
savepoint_post(struct exchange *x)
{
	struct api *a = x->api;
	const struct request *req = x->req;
	struct response *r = x->res;
	int stop = x->route->id == ROUTE_STOP;
	struct savepoint_body sb;
	struct savepoint_rec rec;
	struct buf dir = { 0 };
	struct store *s;
	enum store_rc rc;
	enum body_rc brc;
	int created;

	if (trigger_read_body(a, req, r) == -1)
		return;
	if ((brc = body_parse_savepoint(&a->parser, a->body.p, a->body.len,
		 stop, &sb)) != BODY_OK) {
		http_error(r,
		    brc == BODY_NOMEM ? ERR_INTERNAL :
			stop	      ? ERR_STOP_BODY :
					ERR_SAVEPOINT_BODY);
		goto out;
	}
	if (savepoint_rec_from(x, &sb, stop, &rec) == -1 ||
	    (s = exchange_store(x)) == NULL)
		goto out;
	if (a->settings->reject_unknown_jobs &&
	    (rc = store_job_known(s, &rec.job)) != STORE_OK) {
		if (rc == STORE_NOTFOUND)
			http_error(r, ERR_NO_JOB, rec.job.s);
		else
			exchange_store_failed(x, rc);
		goto out;
	}
	if (savepoint_dir(x, s, sb.target_dir, stop, &dir, &rec) == -1)
		goto out;
	/* Committed (synchronous=FULL by default) before the 202 goes out. */
	if (a->committer != NULL && req->post != NULL) {
		savepoint_submit(x, &rec);
		goto out;
	}
	if ((rc = store_record_savepoint(s, &rec, &created)) != STORE_OK) {
		exchange_store_failed(x, rc);
		goto out;
	}
	log_debug("%s %s job %s: %s", stop ? "stop" : "savepoint",
	    rec.trigger.s, rec.job.s, created ? "recorded" : "already known");
	savepoint_request_id(r, HTTP_202, &rec.trigger);
out:
	body_savepoint_free(&sb);
	buf_free(&dir);
}

/* GET /jobs/:jobid/savepoints/:triggerid: never expires. */
void
savepoint_get(struct exchange *x)
{
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
	if (x->api->readers != NULL && readers_together(x->api->readers))
		rc = exchange_read_together(x, &job, &trigger, 1);
	else if ((s = exchange_store(x)) == NULL)
		return;
	else if ((rc = store_read_savepoint_status(s, &job, &trigger,
		      &r->body)) != STORE_OK &&
	    rc != STORE_NOTFOUND) {
		exchange_store_failed(x, rc);
		return;
	}
	if (rc == STORE_NOTFOUND)
		http_error(r, ERR_NO_SAVEPOINT, trigger.s, job.s);
	else if (rc != STORE_OK)
		http_error(r, exchange_store_error(rc));
	else
		r->status = HTTP_200;
}

/*
 * POST /savepoint-disposal: 200, as Flink's.  One disposal per path: the
 * same path again answers the first one's id and starts nothing, unless
 * that one failed.
 */
void
disposal_post(struct exchange *x)
{
	struct api *a = x->api;
	const struct request *req = x->req;
	struct response *r = x->res;
	struct id fresh, trigger;
	struct store *s;
	enum store_rc rc;
	enum body_rc brc;
	const char *why;
	char *path = NULL;
	int created;

	if (trigger_read_body(a, req, r) == -1)
		return;
	if ((brc = body_parse_disposal(&a->parser, a->body.p, a->body.len,
		 &path)) != BODY_OK) {
		http_error(r,
		    brc == BODY_NOMEM ? ERR_INTERNAL : ERR_DISPOSAL_BODY);
		goto out;
	}
	if (path == NULL) {
		http_error(r, ERR_NO_SAVEPOINT_PATH);
		goto out;
	}
	if ((why = sppath_path_refused(path)) != NULL) {
		http_error(r, ERR_FIELD_REFUSED, "savepoint-path", why);
		goto out;
	}
	if (id_random(&fresh) == -1) {
		log_error("getrandom: cannot make a trigger id");
		http_error(r, ERR_INTERNAL);
		goto out;
	}
	if ((s = exchange_store(x)) == NULL)
		goto out;
	if ((rc = store_record_disposal(s, &fresh, path, req->remote_user,
		 req->remote_addr, NULL, x->now_ms, &trigger, &created)) !=
	    STORE_OK) {
		exchange_store_failed(x, rc);
		goto out;
	}
	log_debug("disposal %s of %s: %s", trigger.s, path,
	    created ? "started" : "already known");
	savepoint_request_id(r, HTTP_200, &trigger);
out:
	free(path);
}

/*
 * The 404 of an unknown disposal id, which names the operation's key as
 * Java prints it: its hashCode in hex, which Flink's OperationKey takes
 * from the trigger id, 31 plus the id's hash, the exclusive or of its
 * four 32-bit words.  So the text is Flink's to the byte.
 */
static void
disposal_not_found(struct response *r, const struct id *trigger)
{
	char word[9], hash[9];
	uint32_t x = 0;
	int i;

	for (i = 0; i < 4; i++) {
		memcpy(word, trigger->s + 8 * i, 8);
		word[8] = '\0';
		x ^= (uint32_t)strtoul(word, NULL, 16);
	}
	snprintf(hash, sizeof(hash), "%" PRIx32, (uint32_t)(31 + x));
	http_error(r, ERR_NO_DISPOSAL, hash);
}

/* GET /savepoint-disposal/:triggerid. */
void
disposal_get(struct exchange *x)
{
	struct response *r = x->res;
	struct id trigger;
	struct store *s;
	enum store_rc rc;

	if (exchange_path_id(x, &x->route->triggerid, "triggerid", &trigger) ==
	    -1)
		return;
	if ((s = exchange_store(x)) == NULL)
		return;
	buf_reset(&r->body);
	rc = store_read_disposal_status(s, &trigger, &r->body);
	if (rc == STORE_NOTFOUND)
		disposal_not_found(r, &trigger);
	else if (rc != STORE_OK)
		exchange_store_failed(x, rc);
	else
		r->status = HTTP_200;
}

/*
 * One entry of GET /jobs/:jobid/savepoints, after the list's "[" or the
 * previous entry's "}" (then a comma).
 */
static int
savepoint_entry(const struct savepoint_row *e, void *arg)
{
	struct buf *b = arg;

	if ((b->len > 0 && b->p[b->len - 1] == '}' &&
		buf_add(b, ",", 1) == -1) ||
	    buf_printf(b,
		"{\"trigger_id\":\"%s\",\"kind\":\"%s\",\"status\":\"%s\","
		"\"checkpoint_id\":",
		e->trigger.s, e->kind, e->status) == -1 ||
	    jobs_opt_ms(b, e->checkpoint_id) == -1 ||
	    buf_adds(b, ",\"target_directory\":") == -1 ||
	    jobs_opt_string(b, e->target_dir) == -1 ||
	    buf_printf(b,
		",\"format_type\":\"%s\",\"cancel_job\":%s,\"drain\":%s,"
		"\"location\":",
		e->format, e->cancel_job ? "true" : "false",
		e->drain ? "true" : "false") == -1 ||
	    jobs_opt_string(b, e->location) == -1 ||
	    buf_adds(b, ",\"failure_class\":") == -1 ||
	    jobs_opt_string(b, e->failure_class) == -1 ||
	    buf_adds(b, ",\"failure_trace\":") == -1 ||
	    jobs_opt_string(b, e->failure_trace) == -1 ||
	    buf_printf(b, ",\"created_ms\":%lld,\"completed_ms\":",
		(long long)e->created_ms) == -1 ||
	    jobs_opt_ms(b, e->completed_ms) == -1 ||
	    buf_adds(b, ",\"disposed_ms\":") == -1 ||
	    jobs_opt_ms(b, e->disposed_ms) == -1 ||
	    buf_adds(b, ",\"remote_user\":") == -1 ||
	    jobs_opt_string(b, e->remote_user) == -1 ||
	    buf_adds(b, ",\"remote_addr\":") == -1 ||
	    jobs_opt_string(b, e->remote_addr) == -1 ||
	    buf_add(b, "}", 1) == -1)
		return 1;
	return 0;
}

/*
 * GET /jobs/:jobid/savepoints, beyond Flink (checkpoint-api(7)): every
 * savepoint and stop of the job, newest first, with where it is, who
 * asked for it and when, and whether it was disposed; for a client that
 * lost a trigger id.  A job never registered lists what was asked of it.
 */
void
savepoint_list(struct exchange *x)
{
	struct response *r = x->res;
	struct store *s;
	struct id job;
	enum store_rc rc;

	if ((s = exchange_job(x, &job)) == NULL)
		return;
	buf_reset(&r->body);
	if (buf_adds(&r->body, "{\"savepoints\":[") == -1)
		rc = STORE_ERROR;
	else
		rc = store_savepoint_list(s, &job, savepoint_entry, &r->body);
	if (rc == STORE_OK && buf_adds(&r->body, "]}") == -1)
		rc = STORE_ERROR;
	if (rc == STORE_OK)
		r->status = HTTP_200;
	else
		exchange_store_failed(x, rc);
}
