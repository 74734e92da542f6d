/*
 * Flink's job answers over the store, and the list of a job's triggers:
 * see jobs.h.  Bodies are written by hand in Flink's key order, as
 * stats.c writes its own.
 */
#include <config.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "exchange.h"
#include "fleet.h"
#include "jobs.h"
#include "schedule.h"
#include "settings.h"

/* Flink's CheckpointConfigInfo.interval when periodic checkpoints are off. */
#define JOBS_NO_INTERVAL "9223372036854775807"

/* A checkpoint schedule's interval, into *arg; a cron one has none. */
static int
jobs_interval(const struct schedule_row *r, void *arg)
{
	if (strcmp(r->kind, "CHECKPOINT") == 0 && r->every_ms > 0)
		*(int64_t *)arg = r->every_ms;
	return 0;
}

/*
 * GET /jobs/:jobid/checkpoints/config: what the job's registration says
 * (its checkpoint schedule's interval, else none; its action's timeout;
 * one at a time), and Flink 1.20's defaults where it says nothing
 * (checkpoint-api(7)).
 */
void
jobs_get_config(struct exchange *x)
{
	struct response *r = x->res;
	struct ckpt_counts c;
	struct store *s;
	struct id job;
	enum store_rc rc;
	int64_t every = 0;
	char interval[24] = JOBS_NO_INTERVAL;

	if ((s = exchange_job(x, &job)) == NULL)
		return;
	if ((rc = store_ckpt_counts(s, &job, &c)) == STORE_NOTFOUND) {
		http_error(r, ERR_NO_JOB, job.s);
		return;
	}
	if (rc == STORE_OK)
		rc = store_schedule_list(s, &job, jobs_interval, &every);
	if (rc != STORE_OK) {
		exchange_store_failed(x, rc);
		return;
	}
	if (every > 0)
		snprintf(interval, sizeof(interval), "%lld", (long long)every);
	buf_reset(&r->body);
	if (buf_printf(&r->body,
		"{\"mode\":\"exactly_once\",\"interval\":%s"
		",\"timeout\":%lld,\"min_pause\":0,\"max_concurrent\":1,"
		"\"externalization\":{\"enabled\":false,"
		"\"delete_on_cancellation\":true},"
		"\"state_backend\":\"HashMapStateBackend\","
		"\"checkpoint_storage\":\"JobManagerCheckpointStorage\","
		"\"unaligned_checkpoints\":false,"
		"\"tolerable_failed_checkpoints\":0,"
		"\"aligned_checkpoint_timeout\":0,"
		"\"checkpoints_after_tasks_finish\":true,"
		"\"state_changelog_enabled\":false,"
		"\"changelog_periodic_materialization_interval\":600000,"
		"\"changelog_storage\":\"memory\"}",
		interval, (long long)c.timeout_s * 1000) == -1) {
		http_error(r, ERR_INTERNAL);
		return;
	}
	r->status = HTTP_200;
}

/*
 * GET /jobs/:jobid/status: Flink's JobStatusInfo, the job's registered
 * state (RestClusterClient.getJobStatus).
 */
void
jobs_get_status(struct exchange *x)
{
	struct response *r = x->res;
	struct buf state = { 0 };
	struct store *s;
	struct id job;
	enum store_rc rc;

	if ((s = exchange_job(x, &job)) == NULL)
		return;
	rc = store_job_state(s, &job, &state);
	if (rc == STORE_NOTFOUND)
		http_error(r, ERR_NO_JOB, job.s);
	else if (rc != STORE_OK)
		exchange_store_failed(x, rc);
	else {
		buf_reset(&r->body);
		if (buf_printf(&r->body, "{\"status\":\"%s\"}",
			buf_str(&state)) == -1)
			http_error(r, ERR_INTERNAL);
		else
			r->status = HTTP_200;
	}
	buf_free(&state);
}

/* A string or JSON null. */
int
jobs_opt_string(struct buf *b, const char *v)
{
	if (v == NULL)
		return buf_adds(b, "null");
	return buf_add_json_string(b, v, strlen(v));
}

/* A time in ms, or JSON null for 0 (not yet). */
int
jobs_opt_ms(struct buf *b, int64_t v)
{
	if (v == 0)
		return buf_adds(b, "null");
	return buf_printf(b, "%lld", (long long)v);
}

/* The entries of a list: a comma before all but the first. */
struct listing {
	struct buf *b;
	int n;
	int err;
	int64_t now_ms;
};

/*
 * One schedule of GET /jobs/:jobid/triggers: its rule, in words and as
 * set, when it last fired and fires next (none while the job is not
 * RUNNING), the slots it missed, and who set it.
 */
static int
jobs_schedule(const struct schedule_row *e, void *arg)
{
	struct listing *l = arg;
	struct buf *b = l->b;
	struct schedule_rule rule = { e->every_ms, e->cron, e->since_ms };
	char what[SCHEDULE_CRON_MAX + 16];
	int64_t next = e->job_state != NULL &&
		strcmp(e->job_state, "RUNNING") == 0 ?
	    schedule_next(&rule, l->now_ms) :
	    0;

	schedule_describe(&rule, what, sizeof(what));
	if ((l->n++ > 0 && buf_add(b, ",", 1) == -1) ||
	    buf_printf(b, "{\"kind\":\"%s\",\"rule\":", e->kind) == -1 ||
	    jobs_opt_string(b, what) == -1 ||
	    buf_adds(b, ",\"every_ms\":") == -1 ||
	    jobs_opt_ms(b, e->every_ms) == -1 ||
	    buf_adds(b, ",\"cron\":") == -1 ||
	    jobs_opt_string(b, e->cron) == -1 ||
	    buf_adds(b, ",\"last_slot_ms\":") == -1 ||
	    jobs_opt_ms(b,
		e->last_slot_ms > e->since_ms ? e->last_slot_ms : 0) == -1 ||
	    buf_adds(b, ",\"next_slot_ms\":") == -1 ||
	    jobs_opt_ms(b, next) == -1 ||
	    buf_printf(b, ",\"missed\":%lld", (long long)e->missed) == -1 ||
	    buf_adds(b, ",\"set_by\":") == -1 ||
	    jobs_opt_string(b, e->set_by) == -1 || buf_adds(b, "}") == -1)
		return l->err = 1;
	return 0;
}

/* One entry of GET /jobs/:jobid/triggers. */
static int
jobs_trigger(const struct trigger_row *t, void *arg)
{
	struct listing *l = arg;
	struct buf *b = l->b;

	if ((l->n++ > 0 && buf_add(b, ",", 1) == -1) ||
	    buf_printf(b, "{\"trigger_id\":\"%s\",\"status\":", t->trigger.s) ==
		-1 ||
	    jobs_opt_string(b, t->status) == -1 ||
	    buf_adds(b, ",\"requested_type\":") == -1 ||
	    jobs_opt_string(b, t->requested_type) == -1 ||
	    buf_adds(b, ",\"checkpoint_id\":") == -1 ||
	    jobs_opt_ms(b, t->checkpoint_id) == -1 ||
	    buf_printf(b, ",\"created_ms\":%lld,\"claimed_ms\":",
		(long long)t->created_ms) == -1 ||
	    jobs_opt_ms(b, t->claimed_ms) == -1 ||
	    buf_adds(b, ",\"completed_ms\":") == -1 ||
	    jobs_opt_ms(b, t->completed_ms) == -1 ||
	    buf_adds(b, ",\"location\":") == -1 ||
	    jobs_opt_string(b, t->location) == -1 ||
	    buf_adds(b, ",\"failure_class\":") == -1 ||
	    jobs_opt_string(b, t->failure_class) == -1 ||
	    buf_adds(b, ",\"failure_trace\":") == -1 ||
	    jobs_opt_string(b, t->failure_trace) == -1 ||
	    buf_adds(b, ",\"remote_user\":") == -1 ||
	    jobs_opt_string(b, t->remote_user) == -1 ||
	    buf_adds(b, ",\"remote_addr\":") == -1 ||
	    jobs_opt_string(b, t->remote_addr) == -1 ||
	    buf_add(b, "}", 1) == -1) {
		l->err = 1;
		return 1;
	}
	return 0;
}

/*
 * The ?limit= of GET /jobs/:jobid/triggers into *limit, the first if
 * repeated, other parameters ignored: decimal digits from 1 to
 * JOBS_TRIGGERS_MAX, else -1 with the 400 answered, the value echoed as
 * sent (the web server bounds a query's length).
 */
static int
jobs_limit(struct exchange *x, int64_t *limit)
{
	const char *q = x->req->query, *v, *end;
	struct buf raw = { 0 };
	int rc = 0;

	*limit = JOBS_TRIGGERS;
	for (; q != NULL && *q != '\0'; q = *end == '&' ? end + 1 : end) {
		end = q + strcspn(q, "&");
		if (strncmp(q, "limit", 5) != 0 ||
		    (q[5] != '=' && q + 5 != end))
			continue;
		v = q + 5 + (q[5] == '=');
		if (buf_add(&raw, v, (size_t)(end - v)) == -1) {
			http_error(x->res, ERR_INTERNAL);
			rc = -1;
		} else if (settings_parse_int(buf_str(&raw), 1,
			       JOBS_TRIGGERS_MAX, limit) == -1) {
			http_error(x->res, ERR_QUERY_PARAM, "limit",
			    buf_str(&raw));
			rc = -1;
		}
		break;
	}
	buf_free(&raw);
	return rc;
}

/*
 * GET /jobs/:jobid/triggers, beyond Flink (checkpoint-api(7)): what
 * waits for the runner, which Flink's counts never show (they count
 * claimed triggers only), and each failure's whole trace.
 */
void
jobs_get_triggers(struct exchange *x)
{
	struct response *r = x->res;
	struct listing l = { &r->body, 0, 0, x->now_ms };
	struct store *s;
	struct id job;
	enum store_rc rc;
	int64_t n = 0, oldest = 0, pass = 0, limit;

	if ((s = exchange_job(x, &job)) == NULL || jobs_limit(x, &limit) == -1)
		return;
	/* One snapshot: the count agrees with the list. */
	if ((rc = store_read_begin(s)) != STORE_OK) {
		exchange_store_failed(x, rc);
		return;
	}
	buf_reset(&r->body);
	if ((rc = store_job_known(s, &job)) == STORE_OK &&
	    (rc = store_trigger_waiting(s, &job, &n, &oldest, &pass)) ==
		STORE_OK) {
		if (buf_printf(&r->body,
			"{\"in_progress\":%lld,"
			"\"oldest_in_progress_ms\":",
			(long long)n) == -1 ||
		    jobs_opt_ms(&r->body, n > 0 ? oldest : 0) == -1 ||
		    buf_adds(&r->body, ",\"runner_last_pass_ms\":") == -1 ||
		    jobs_opt_ms(&r->body, pass) == -1 ||
		    buf_adds(&r->body, ",\"triggers\":[") == -1)
			rc = STORE_ERROR;
		else
			rc = store_trigger_recent(s, &job, limit, jobs_trigger,
			    &l);
		if (rc == STORE_OK &&
		    (l.err || buf_adds(&r->body, "],\"schedules\":[") == -1))
			rc = STORE_ERROR;
		l.n = 0;
		if (rc == STORE_OK)
			rc = store_schedule_list(s, &job, jobs_schedule, &l);
		if (rc == STORE_OK && (l.err || buf_adds(&r->body, "]}") == -1))
			rc = STORE_ERROR;
	}
	store_rollback(s);
	if (rc == STORE_OK)
		r->status = HTTP_200;
	else if (rc == STORE_NOTFOUND)
		http_error(r, ERR_NO_JOB, job.s);
	else
		exchange_store_failed(x, rc);
}

/*
 * GET /jobs or /jobs/overview: every registered job, by id, as Flink's
 * clients read them; or a page of them when asked ?limit=, ?after= or
 * ?q= (checkpoint-api(7), "Paged lists").
 */
struct jobs {
	struct buf *b;
	int overview;
	int n;
	int64_t now_ms;
	int err;
	int64_t limit; /* a page's rows; 0: not paged */
	struct id last; /* the page's last job */
	int more; /* a job follows the page */
};

static int
jobs_entry(const struct job *j, void *arg)
{
	struct jobs *l = arg;
	int64_t end = -1;

	/* The row past the page only says there is a next one. */
	if (l->limit > 0 && l->n == l->limit) {
		l->more = 1;
		return 1;
	}
	l->last = j->id;
	if (l->n++ > 0 && buf_add(l->b, ",", 1) == -1)
		goto fail;
	if (!l->overview) {
		if (buf_printf(l->b, "{\"id\":\"%s\",\"status\":\"%s\"}",
			j->id.s, job_state_name(j->state)) == -1)
			goto fail;
		return 0;
	}
	/* Globally terminal states only: SUSPENDED has no end (Flink). */
	if (j->state == JOB_FINISHED || j->state == JOB_CANCELED ||
	    j->state == JOB_FAILED)
		end = j->updated_ms;
	/*
	 * Flink 2's JobDetails, which 1.20's clients read too (they skip
	 * what they do not know): a streaming job, the default scheduler,
	 * and no operator waiting for resources.
	 */
	if (buf_printf(l->b, "{\"jid\":\"%s\",\"name\":", j->id.s) == -1 ||
	    buf_add_json_string(l->b, j->name, strlen(j->name)) == -1 ||
	    buf_printf(l->b,
		",\"jobType\":\"STREAMING\",\"schedulerType\":\"Default\","
		"\"start-time\":%lld,\"end-time\":%lld,\"duration\":%lld,"
		"\"state\":\"%s\",\"last-modification\":%lld,"
		/*
		 * No tasks, and so none short of running: the operator
		 * keeps a RUNNING job RUNNING while total equals
		 * running + finished.  Java's HashMap order.
		 */
		"\"tasks\":{\"running\":0,\"canceling\":0,\"canceled\":0,"
		"\"total\":0,\"created\":0,\"scheduled\":0,"
		"\"deploying\":0,\"reconciling\":0,\"finished\":0,"
		"\"initializing\":0,\"failed\":0},\"pending-operators\":0}",
		(long long)j->created_ms, (long long)end,
		(long long)((end >= 0 ? end : l->now_ms) - j->created_ms),
		job_state_name(j->state), (long long)j->updated_ms) == -1)
		goto fail;
	return 0;
fail:
	l->err = 1;
	return 1;
}

/* The page asked for, into l and like ("" after, "%" like: all). */
static int
jobs_page_args(struct exchange *x, struct jobs *l, struct buf *after,
    struct buf *like)
{
	const char *query = x->req->query;
	struct buf v = { 0 };
	int rc = 0, paged = 0;
	size_t i;

	if ((paged = fleet_param(query, "limit", &v)) == 1 &&
	    settings_parse_int(buf_str(&v), 1, JOBS_PAGE_MAX, &l->limit) ==
		-1) {
		http_error(x->res, ERR_QUERY_PARAM, "limit", buf_str(&v));
		rc = -1;
	}
	if (rc == 0 && fleet_param(query, "after", after) == 1) {
		paged = 1;
		if (id_parse_str(buf_str(after), &l->last) == -1) {
			http_error(x->res, ERR_QUERY_PARAM, "after",
			    buf_str(after));
			rc = -1;
		}
	}
	paged |= fleet_param(query, "q", &v) == 1;
	/* Matched as a LIKE pattern: its own wildcards escaped. */
	if (rc == 0 && paged && buf_adds(like, "%") == -1)
		rc = -2;
	for (i = 0; rc == 0 && paged && i < v.len; i++) {
		char c = (char)tolower((unsigned char)v.p[i]);
		if ((strchr("!%_", c) != NULL && buf_add(like, "!", 1) == -1) ||
		    buf_add(like, &c, 1) == -1)
			rc = -2;
	}
	if (rc == 0 && like->len > 1 && buf_adds(like, "%") == -1)
		rc = -2;
	if (rc == -2)
		http_error(x->res, ERR_INTERNAL);
	if (paged && l->limit == 0)
		l->limit = JOBS_PAGE;
	buf_free(&v);
	return rc < 0 ? -1 : 0;
}

static enum store_rc
jobs_read(struct store *s, struct jobs *l, const char *after, const char *like)
{
	if (l->limit == 0)
		return store_job_overview(s, jobs_entry, l);
	return store_job_page(s, after, like, l->limit + 1, jobs_entry, l);
}

void
jobs_get(struct exchange *x)
{
	struct response *r = x->res;
	struct jobs l = { &r->body, x->route->id == ROUTE_OVERVIEW, 0,
		x->now_ms, 0, 0, { "" }, 0 };
	struct buf after = { 0 }, like = { 0 };
	struct store *s;
	enum store_rc rc;

	if (jobs_page_args(x, &l, &after, &like) == -1 ||
	    (s = exchange_store(x)) == NULL)
		goto out;
	buf_reset(&r->body);
	if (buf_adds(&r->body, "{\"jobs\":[") == -1) {
		http_error(r, ERR_INTERNAL);
		goto out;
	}
	if ((rc = jobs_read(s, &l, buf_str(&after), buf_str(&like))) !=
	    STORE_OK) {
		exchange_store_failed(x, rc);
		goto out;
	}
	/* A page's next cursor: a field Flink's clients never ask for. */
	if (l.err || buf_adds(&r->body, "]") == -1 ||
	    (l.limit > 0 &&
		(!l.more ? buf_adds(&r->body, ",\"next\":null") :
			   buf_printf(&r->body, ",\"next\":\"%s\"",
			       l.last.s)) == -1) ||
	    buf_adds(&r->body, "}") == -1) {
		http_error(r, ERR_INTERNAL);
		goto out;
	}
	r->status = HTTP_200;
out:
	buf_free(&after);
	buf_free(&like);
}
