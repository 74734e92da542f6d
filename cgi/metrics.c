/*
 * The exposition of GET /metrics.  See metrics.h.
 *
 * Flink's PrometheusReporter (flink-metrics-prometheus,
 * AbstractPrometheusReporter) names a metric "flink_" + its group's logical
 * scope + "_" + its name; the checkpoint statistics are registered by the
 * JobManager's job group, whose logical scope is jobmanager_job, with the
 * labels host, job_id and job_name.  Every metric is a Prometheus gauge,
 * counts included, with the help text "<name> (scope: jobmanager_job)".
 * With its default filterLabelValueCharacters=true, each character of a
 * label value outside [a-zA-Z0-9:_] becomes '_' (one per UTF-16 unit, as
 * Java's regex sees the string); CHECKPOINT_METRICS_FILTER=0 leaves them,
 * escaped as the format requires.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "exchange.h"
#include "fleet.h"
#include "metrics.h"
#include "schedule.h"

/*
 * Flink's job-scope checkpoint gauges (DefaultCheckpointStatsTracker) and
 * how each is had from a job's figures.  The last completed checkpoint's
 * gauges are -1 until there is one, as in Flink; sizes are 0 once there
 * is one, since an action reports none (as GET .../checkpoints says).
 */
enum flink_gauge {
	FG_COMPLETED,
	FG_FAILED,
	FG_IN_PROGRESS,
	FG_TOTAL,
	FG_DURATION,
	FG_LAST_ID,
	FG_SIZE,
	FG_FULL_SIZE,
	FG__MAX
};

static const char *const flink_gauges[FG__MAX] = {
	[FG_COMPLETED] = "numberOfCompletedCheckpoints",
	[FG_FAILED] = "numberOfFailedCheckpoints",
	[FG_IN_PROGRESS] = "numberOfInProgressCheckpoints",
	[FG_TOTAL] = "totalNumberOfCheckpoints",
	[FG_DURATION] = "lastCheckpointDuration",
	[FG_LAST_ID] = "lastCompletedCheckpointId",
	[FG_SIZE] = "lastCheckpointSize",
	[FG_FULL_SIZE] = "lastCheckpointFullSize",
};

/*
 * Flink's host label names the JobManager.  Ours is one name for every
 * process on every host, since they all answer from the one store: a label
 * that changed with the process scraped would split each job's series.
 */
#define METRICS_HOST "checkpoint_api"

static int64_t
metrics_flink_value(const struct job_metrics *j, enum flink_gauge g)
{
	switch (g) {
	case FG_COMPLETED:
		return j->completed;
	case FG_FAILED:
		return j->failed;
	case FG_IN_PROGRESS:
		return j->in_progress;
	case FG_TOTAL:
		return j->completed + j->failed + j->in_progress;
	case FG_DURATION:
		return j->last_duration_ms;
	case FG_LAST_ID:
		return j->last_id;
	default:
		return j->last_id < 0 ? -1 : 0;
	}
}

/* Whether Flink's reporter keeps c in a label value. */
static int
metrics_label_keeps(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == ':' || c == '_';
}

/* The text format's escape of c in a label value, or NULL. */
static const char *
metrics_label_escape(unsigned char c)
{
	switch (c) {
	case '\\':
		return "\\\\";
	case '"':
		return "\\\"";
	case '\n':
		return "\\n";
	default:
		return NULL;
	}
}

/*
 * Appends v as a label value between its quotes: filtered as Flink does by
 * default, or escaped as the format says (backslash, double quote and
 * line feed; the rest as it is, if it is UTF-8).
 */
int
metrics_label_value(struct buf *b, const char *v, int filter)
{
	const unsigned char *s = (const unsigned char *)v;
	const char *esc;
	size_t i, n = strlen(v), len;
	int rc = buf_add(b, "\"", 1);

	for (i = 0; i < n && rc == 0; i += len) {
		len = 1;
		if (filter && !metrics_label_keeps(s[i])) {
			/* Four bytes: beyond the BMP, two UTF-16 units. */
			if ((len = buf_utf8_len(s + i, n - i)) == 0)
				len = 1;
			rc = buf_add(b, "__", len == 4 ? 2 : 1);
		} else if (!filter &&
		    (esc = metrics_label_escape(s[i])) != NULL)
			rc = buf_add(b, esc, 2);
		else if (!filter && (len = buf_utf8_len(s + i, n - i)) == 0) {
			/*
			 * The format is UTF-8, and Prometheus refuses a whole
			 * scrape over one bad byte: '?', as buf_utf8_clean.
			 */
			len = 1;
			rc = buf_add(b, "?", 1);
		} else
			rc = buf_add(b, s + i, len);
	}
	return rc == 0 ? buf_add(b, "\"", 1) : -1;
}

/* One family's samples, gathered job by job, written family by family. */
struct render {
	struct buf family[FG__MAX];
	int filter;
	int failed; /* out of memory */
};

static int
metrics_job(const struct job_metrics *j, void *arg)
{
	struct render *r = arg;
	struct buf labels = { 0 };
	int g;

	if (buf_adds(&labels, "{job_id=\"") == -1 ||
	    buf_adds(&labels, j->job.s) == -1 ||
	    buf_adds(&labels, "\",job_name=") == -1 ||
	    metrics_label_value(&labels, j->name != NULL ? j->name : "",
		r->filter) == -1 ||
	    buf_adds(&labels, ",host=") == -1 ||
	    metrics_label_value(&labels, METRICS_HOST, r->filter) == -1 ||
	    buf_adds(&labels, "}") == -1)
		r->failed = 1;
	for (g = 0; g < FG__MAX && !r->failed; g++)
		if (buf_printf(&r->family[g],
			"flink_jobmanager_job_%s%s %lld\n", flink_gauges[g],
			buf_str(&labels),
			(long long)metrics_flink_value(j, g)) == -1)
			r->failed = 1;
	buf_free(&labels);
	return r->failed;
}

/*
 * The service's own figures, named as Prometheus advises; a row without
 * help continues the family above it.
 */
static int
metrics_service(struct buf *b, const struct service_metrics *m, int64_t now_ms)
{
	const struct {
		const char *name, *type, *help, *labels;
		int64_t v;
		int ms; /* v is in milliseconds, shown in seconds */
	} f[] = {
		{ "checkpoint_api_triggers_queued", "gauge",
		    "Triggers recorded and not yet taken by a runner.", "",
		    m->queued, 0 },
		{ "checkpoint_api_triggers_queued_oldest_seconds", "gauge",
		    "Age of the oldest queued trigger; 0 when none.", "",
		    m->queued > 0 && now_ms > m->oldest_queued_ms ?
			now_ms - m->oldest_queued_ms :
			0,
		    1 },
		{ "checkpoint_api_triggers_claimed", "gauge",
		    "Triggers whose checkpoint action is running.", "",
		    m->claimed, 0 },
		{ "checkpoint_api_triggers_completed_total", "counter",
		    "Triggers completed with a checkpoint.", "", m->completed,
		    0 },
		{ "checkpoint_api_triggers_failed_total", "counter",
		    "Triggers completed with a failure, by kind.",
		    "{kind=\"declined\"}", m->declined, 0 },
		{ "checkpoint_api_triggers_failed_total", NULL, NULL,
		    "{kind=\"expired\"}", m->expired, 0 },
		{ "checkpoint_api_triggers_failed_total", NULL, NULL,
		    "{kind=\"job_not_found\"}", m->job_not_found, 0 },
		{ "checkpoint_api_triggers_refused_total", "counter",
		    "Triggers failed at once: their job had "
		    "CHECKPOINT_MAX_QUEUED triggers waiting.",
		    "", m->queue_refused, 0 },
		{ "checkpoint_api_runner_last_pass_timestamp_seconds", "gauge",
		    "When a runner last recorded a pass: each that advanced "
		    "triggers, others at most every 10 s; 0: never.",
		    "", m->pass_ms, 1 },
		{ "checkpoint_api_runner_last_pass_advanced", "gauge",
		    "Triggers that pass completed or failed.", "",
		    m->pass_advanced, 0 },
		{ "checkpoint_api_runner_last_pass_duration_seconds", "gauge",
		    "How long that pass took.", "", m->pass_duration_ms, 1 },
	};
	size_t i;
	int rc = 0;

	for (i = 0; i < sizeof(f) / sizeof(f[0]) && rc == 0; i++) {
		if (f[i].help != NULL)
			rc = buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n",
			    f[i].name, f[i].help, f[i].name, f[i].type);
		if (rc == 0 && f[i].ms)
			rc = buf_printf(b, "%s%s %.3f\n", f[i].name,
			    f[i].labels, (double)f[i].v / 1000);
		else if (rc == 0)
			rc = buf_printf(b, "%s%s %lld\n", f[i].name,
			    f[i].labels, (long long)f[i].v);
	}
	return rc;
}

/* A schedule's next slot, in seconds; none for a job not RUNNING. */
struct slots {
	struct buf *b;
	int64_t now_ms;
	int n, failed;
	int schedules; /* of any job */
};

static int
metrics_slot(const struct schedule_row *r, void *arg)
{
	struct slots *sl = arg;
	struct schedule_rule rule = { r->every_ms, r->cron, r->since_ms };
	int64_t next = schedule_next(&rule, sl->now_ms);

	sl->schedules++;
	if (next <= 0 || r->job_state == NULL ||
	    strcmp(r->job_state, "RUNNING") != 0)
		return 0;
	if ((sl->n++ == 0 &&
		buf_adds(sl->b,
		    "# HELP checkpoint_api_schedule_next_slot_timestamp_seconds "
		    "When a job's schedule fires next, by kind; none for a "
		    "job not RUNNING.\n"
		    "# TYPE checkpoint_api_schedule_next_slot_timestamp_seconds "
		    "gauge\n") == -1) ||
	    buf_printf(sl->b,
		"checkpoint_api_schedule_next_slot_timestamp_seconds"
		"{job_id=\"%s\",kind=\"%s\"} %lld.%03lld\n",
		r->job.s,
		strcmp(r->kind, "SAVEPOINT") == 0 ? "savepoint" : "checkpoint",
		(long long)(next / 1000), (long long)(next % 1000)) == -1)
		return sl->failed = 1;
	return 0;
}

/*
 * The slots every schedule ever missed: a count kept apart from the
 * schedules (schema/0015), so that it never goes down.
 */
static enum store_rc
metrics_missed(struct store *s, struct buf *out)
{
	int64_t n;
	enum store_rc rc;

	if ((rc = store_schedule_missed(s, &n)) != STORE_OK)
		return rc;
	return buf_printf(out,
		   "# HELP checkpoint_api_schedule_slots_missed_total Slots of "
		   "the schedules not fired before the next was due.\n"
		   "# TYPE checkpoint_api_schedule_slots_missed_total counter\n"
		   "checkpoint_api_schedule_slots_missed_total %lld\n",
		   (long long)n) == -1 ?
	    STORE_ERROR :
	    STORE_OK;
}

/*
 * Beyond Flink: the disposals of savepoints by status (the last attempt
 * of each path), then, per job, each schedule's next slot, if there is
 * any, and the slots missed, if there is a schedule; for the fleet, the
 * slots missed always.
 */
static enum store_rc
metrics_beyond(struct store *s, int per_job, int64_t now_ms, struct buf *out)
{
	static const char *const status[] = { "in_progress", "completed",
		"failed" };
	struct slots sl = { out, now_ms, 0, 0, 0 };
	int64_t n[3];
	enum store_rc rc;
	int i;

	if ((rc = store_disposal_counts(s, n)) != STORE_OK)
		return rc;
	if (buf_adds(out,
		"# HELP checkpoint_api_savepoint_disposals Disposals of "
		"savepoints by status, each path's last attempt.\n"
		"# TYPE checkpoint_api_savepoint_disposals gauge\n") == -1)
		return STORE_ERROR;
	for (i = 0; i < 3; i++)
		if (buf_printf(out,
			"checkpoint_api_savepoint_disposals{status=\"%s\"} "
			"%lld\n",
			status[i], (long long)n[i]) == -1)
			return STORE_ERROR;
	if (!per_job)
		return metrics_missed(s, out);
	rc = store_schedule_list(s, NULL, metrics_slot, &sl);
	if (rc == STORE_OK && sl.failed)
		return STORE_ERROR;
	return rc == STORE_OK && sl.schedules > 0 ? metrics_missed(s, out) : rc;
}

/* The fleet's gauges: jobs by state and by health (fleet.h), and more. */
struct fleet_counts {
	int64_t state[JOB__MAX], health[FH__MAX];
	int64_t in_progress, missing, now_ms, pass_ms;
};

static int
metrics_fleet_job(const struct fleet_job *j, void *arg)
{
	struct fleet_counts *c = arg;
	int64_t due;

	if (j->state < JOB__MAX)
		c->state[j->state]++;
	c->health[fleet_health(j, c->now_ms, c->pass_ms, 0, &due)]++;
	c->in_progress += j->queued + j->claimed > 0;
	c->missing += j->missed > 0;
	return 0;
}

/* A family of one label, a sample a value of the label. */
static int
metrics_family(struct buf *b, const char *name, const char *help,
    const char *label, const char *const *values, const int64_t *n, int nv)
{
	int i;

	if (buf_printf(b, "# HELP %s %s\n# TYPE %s gauge\n", name, help,
		name) == -1)
		return -1;
	for (i = 0; i < nv; i++)
		if (buf_printf(b, "%s{%s=\"%s\"} %lld\n", name, label,
			values[i], (long long)n[i]) == -1)
			return -1;
	return 0;
}

static enum store_rc
metrics_fleet(struct store *s, int64_t now_ms, struct buf *out)
{
	struct fleet_counts c;
	const char *states[JOB__MAX];
	int64_t missed;
	enum store_rc rc;
	int i;

	memset(&c, 0, sizeof(c));
	c.now_ms = now_ms;
	if ((rc = store_fleet(s, &c.pass_ms, &missed, metrics_fleet_job, &c)) !=
	    STORE_OK)
		return rc;
	for (i = 0; i < JOB__MAX; i++)
		states[i] = job_state_name((enum job_state)i);
	if (metrics_family(out, "checkpoint_api_jobs",
		"Registered jobs by state.", "state", states, c.state,
		JOB__MAX) == -1 ||
	    metrics_family(out, "checkpoint_api_jobs_health",
		"Jobs by health, as the status page sums them.", "health",
		fleet_health_names, c.health, FH__MAX) == -1 ||
	    buf_printf(out,
		"# HELP checkpoint_api_jobs_in_progress Jobs with triggers "
		"waiting or running.\n"
		"# TYPE checkpoint_api_jobs_in_progress gauge\n"
		"checkpoint_api_jobs_in_progress %lld\n"
		"# HELP checkpoint_api_jobs_missed_slots Jobs whose schedules "
		"ever missed a slot.\n"
		"# TYPE checkpoint_api_jobs_missed_slots gauge\n"
		"checkpoint_api_jobs_missed_slots %lld\n",
		(long long)c.in_progress, (long long)c.missing) == -1)
		return STORE_ERROR;
	return STORE_OK;
}

/* Flink's job families, gathered job by job, written family by family. */
static enum store_rc
metrics_flink(struct render *r, struct buf *out)
{
	enum store_rc rc = STORE_OK;
	char name[128];
	int g;

	/* Flink registers a family with its first job: none, no family. */
	for (g = 0; g < FG__MAX && rc == STORE_OK; g++) {
		if (r->family[g].len == 0)
			continue;
		snprintf(name, sizeof(name), "flink_jobmanager_job_%s",
		    flink_gauges[g]);
		if (buf_printf(out,
			"# HELP %s %s (scope: jobmanager_job)\n# TYPE %s gauge\n",
			name, flink_gauges[g], name) == -1 ||
		    buf_add(out, r->family[g].p, r->family[g].len) == -1)
			rc = STORE_ERROR;
	}
	return rc;
}

/*
 * Writes the whole exposition into out (reset first): each job's series
 * only when per_job, the fleet's always.  STORE_ERROR also stands for
 * memory exhausted.
 */
enum store_rc
metrics_write(struct store *s, int filter, int per_job, int64_t now_ms,
    struct buf *out)
{
	struct render r;
	struct service_metrics m;
	enum store_rc rc;
	int g;

	memset(&r, 0, sizeof(r));
	r.filter = filter;
	buf_reset(out);
	rc = store_metrics(s, &m, per_job ? metrics_job : NULL, &r);
	if (rc == STORE_OK && r.failed)
		rc = STORE_ERROR;
	if (rc == STORE_OK)
		rc = metrics_flink(&r, out);
	if (rc == STORE_OK && metrics_service(out, &m, now_ms) == -1)
		rc = STORE_ERROR;
	if (rc == STORE_OK)
		rc = metrics_beyond(s, per_job, now_ms, out);
	if (rc == STORE_OK)
		rc = metrics_fleet(s, now_ms, out);
	for (g = 0; g < FG__MAX; g++)
		buf_free(&r.family[g]);
	return rc;
}

/*
 * ?per-job= into *per_job: 1 or empty (each job's series), 0 (the
 * fleet's), else -1 with the 400 answered.
 */
static int
metrics_per_job(struct exchange *x, int *per_job)
{
	struct buf v = { 0 };
	int rc = 0, found = fleet_param(x->req->query, "per-job", &v);

	*per_job = found == 1 && strcmp(buf_str(&v), "0") != 0;
	if (found == -1) {
		http_error(x->res, ERR_INTERNAL);
		rc = -1;
	} else if (*per_job && strcmp(buf_str(&v), "1") != 0 && v.len > 0) {
		http_error(x->res, ERR_QUERY_PARAM, "per-job", buf_str(&v));
		rc = -1;
	}
	buf_free(&v);
	return rc;
}

/* GET /metrics, the handler. */
void
metrics_get(struct exchange *x)
{
	struct store *s;
	enum store_rc rc;
	int per_job;

	if (metrics_per_job(x, &per_job) == -1 ||
	    (s = exchange_store(x)) == NULL)
		return;
	rc = metrics_write(s, x->api->settings->metrics_filter, per_job,
	    x->now_ms, &x->res->body);
	if (rc != STORE_OK) {
		exchange_store_failed(x, rc);
		return;
	}
	x->res->status = HTTP_200;
	x->res->content_type = METRICS_CONTENT_TYPE;
}
