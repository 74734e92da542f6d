/*
 * Flink's checkpoint statistics over the store: see stats.h.  Bodies are
 * written by hand, as Flink's Jackson writes them: compact, keys in
 * creator order, nulls written, doubles as Java's Double.toString, NaN as
 * the string "NaN".
 *
 * What the store does not know is Flink's value for "none": sizes and
 * subtask counts are 0, tasks {}, every checkpoint a plain CHECKPOINT,
 * never a savepoint nor discarded, nothing restored (checkpoint-api(7)).
 */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "stats.h"
#include "throwable.h"

/* Flink's sentinel for a checkpoint with no external location. */
#define STATS_NO_PATH "<checkpoint-not-externally-addressable>"

/* The five quantiles of StatsSummaryDto, in key order. */
static const struct {
	const char *key;
	double q;
} stats_quantiles[] = {
	{ "p50", 0.5 },
	{ "p90", 0.9 },
	{ "p95", 0.95 },
	{ "p99", 0.99 },
	{ "p999", 0.999 },
};

/*
 * Commons-Math's Percentile with LEGACY estimation, as Flink's histogram
 * statistics use it: q goes through q * 100 and back, pos = p * (n + 1),
 * linear between neighbours.  NaN for no data.
 */
double
stats_quantile(const int64_t *x, size_t n, double q)
{
	double p = q * 100.0 / 100.0, pos, fpos;
	size_t k;

	if (n == 0)
		return NAN;
	if (p == 0)
		pos = 0;
	else if (p == 1)
		pos = (double)n;
	else
		pos = p * (double)(n + 1);
	if (pos < 1)
		return (double)x[0];
	if (pos >= (double)n)
		return (double)x[n - 1];
	k = (size_t)pos; /* pos >= 1: floor */
	fpos = (double)k;
	return (double)x[k - 1] + (pos - fpos) * (double)(x[k] - x[k - 1]);
}

/*
 * v as Java's Double.toString writes it (the shortest digits that read
 * back as v): "0.0", "57.5", "1.2345678E7", "1.0E-4"; NaN as Jackson
 * writes it, the string "NaN".
 */
int
stats_add_double(struct buf *b, double v)
{
	char s[40], digits[24];
	int prec, exp, nd, i;
	char *e;

	if (isnan(v))
		return buf_adds(b, "\"NaN\"");
	if (v == 0)
		return buf_adds(b, signbit(v) ? "-0.0" : "0.0");
	for (prec = 1; prec <= 17; prec++) {
		snprintf(s, sizeof(s), "%.*e", prec - 1, v);
		if (strtod(s, NULL) == v)
			break;
	}
	/* s is [-]d[.ddd]e[+-]xx */
	nd = 0;
	for (i = s[0] == '-'; s[i] != 'e'; i++)
		if (s[i] != '.')
			digits[nd++] = s[i];
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = '\0';
	exp = (int)strtol(strchr(s, 'e') + 1, &e, 10);
	if (v < 0 && buf_add(b, "-", 1) == -1)
		return -1;
	if ((v < 0 ? -v : v) >= 1e-3 && (v < 0 ? -v : v) < 1e7) {
		if (exp < 0) {
			if (buf_add(b, "0.", 2) == -1)
				return -1;
			for (i = exp + 1; i < 0; i++)
				if (buf_add(b, "0", 1) == -1)
					return -1;
			return buf_adds(b, digits);
		}
		if (buf_add(b, digits, (size_t)(nd < exp + 1 ? nd : exp + 1)) ==
		    -1)
			return -1;
		for (i = nd; i < exp + 1; i++)
			if (buf_add(b, "0", 1) == -1)
				return -1;
		return buf_printf(b, ".%s",
		    nd > exp + 1 ? digits + exp + 1 : "0");
	}
	return buf_printf(b, "%c.%sE%d", digits[0], nd > 1 ? digits + 1 : "0",
	    exp);
}

/*
 * Java's Long.parseLong: an optional sign and decimal digits, in range.
 * Returns 0, or -1 for anything else.
 */
int
stats_parse_long(const char *p, size_t len, int64_t *out)
{
	char s[24];
	size_t i;
	long long v;
	char *end;

	if (len == 0 || len >= sizeof(s))
		return -1;
	for (i = p[0] == '-' || p[0] == '+'; i < len; i++)
		if (p[i] < '0' || p[i] > '9')
			return -1;
	if (len == 1 && (p[0] == '-' || p[0] == '+'))
		return -1;
	memcpy(s, p, len);
	s[len] = '\0';
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

/* A StatsSummaryDto: min, max, avg, then the quantiles of sorted x. */
static int
stats_summary_dto(struct buf *b, int64_t min, int64_t max, int64_t avg,
    const int64_t *x, size_t n)
{
	size_t i;

	if (buf_printf(b, "{\"min\":%lld,\"max\":%lld,\"avg\":%lld",
		(long long)min, (long long)max, (long long)avg) == -1)
		return -1;
	for (i = 0; i < sizeof(stats_quantiles) / sizeof(stats_quantiles[0]);
	     i++)
		if (buf_printf(b, ",\"%s\":", stats_quantiles[i].key) == -1 ||
		    stats_add_double(b,
			stats_quantile(x, n, stats_quantiles[i].q)) == -1)
			return -1;
	return buf_add(b, "}", 1);
}

/*
 * Flink's failure_message, the coordinator's CheckpointException's
 * getMessage(): what our traces carry after "<class>: " on their first
 * line, up to the first frame.  A savepoint's failure is that exception
 * inside the scheduler's CompletionException (store_savepoint_complete):
 * its statistics show the cause's, as Flink's do.
 */
static int
stats_failure_message(struct buf *b, const char *class, const char *trace)
{
	static const char cause[] = "\nCaused by: ";
	const char *p = trace, *end, *c;
	size_t cl = class != NULL ? strlen(class) : 0;

	if (trace == NULL)
		return buf_adds(b, "null");
	if (cl > 0 && strcmp(class, THROWABLE_COMPLETION_CLASS) == 0 &&
	    (c = strstr(p, cause)) != NULL) {
		p = c + sizeof(cause) - 1;
		class = p; /* the cause's line begins with its class */
		cl = strcspn(p, ":\n");
	}
	if (cl > 0 && strncmp(p, class, cl) == 0 && p[cl] == ':' &&
	    p[cl + 1] == ' ')
		p += cl + 2;
	if ((end = strstr(p, "\n\tat ")) == NULL)
		end = p + strlen(p);
	while (end > p && end[-1] == '\n')
		end--;
	return buf_add_json_string(b, p, (size_t)(end - p));
}

/*
 * One checkpoint as Flink's CheckpointStatistics (className first, then
 * the creator's order; tasks {}, as the statistics and, without tasks,
 * the details show it).
 */
static int
stats_checkpoint(const struct ckpt *c, void *arg)
{
	static const char *const names[][2] = {
		[CKPT_IN_PROGRESS] = { "in_progress", "IN_PROGRESS" },
		[CKPT_COMPLETED] = { "completed", "COMPLETED" },
		[CKPT_FAILED] = { "failed", "FAILED" },
	};
	static const char *const types[] = {
		[CKPT_KIND_CHECKPOINT] = "CHECKPOINT",
		[CKPT_KIND_SAVEPOINT] = "SAVEPOINT",
		[CKPT_KIND_STOP] = "SYNC_SAVEPOINT",
	};
	struct buf *b = arg;
	int running = c->status == CKPT_IN_PROGRESS;
	int savepoint = c->kind != CKPT_KIND_CHECKPOINT;

	if (buf_printf(b,
		"{\"className\":\"%s\",\"id\":%lld,\"status\":\"%s\","
		"\"is_savepoint\":%s,\"savepointFormat\":%s%s%s,"
		"\"trigger_timestamp\":%lld,\"latest_ack_timestamp\":%lld,"
		"\"checkpointed_size\":0,\"state_size\":0,"
		"\"end_to_end_duration\":%lld,\"alignment_buffered\":0,"
		"\"processed_data\":0,\"persisted_data\":0,\"num_subtasks\":0,"
		"\"num_acknowledged_subtasks\":0,"
		"\"checkpoint_type\":\"%s\",\"tasks\":{}",
		names[c->status][0], (long long)c->id, names[c->status][1],
		savepoint ? "true" : "false", savepoint ? "\"" : "",
		savepoint && c->format != NULL ?
		    c->format :
		    (savepoint ? "CANONICAL" : "null"),
		savepoint ? "\"" : "", (long long)c->trigger_ms,
		(long long)(c->status == CKPT_COMPLETED ? c->end_ms : -1),
		(long long)(running ? -1 : c->duration_ms),
		types[c->kind <= CKPT_KIND_STOP ? c->kind : 0]) == -1)
		return -1;
	switch (c->status) {
	case CKPT_COMPLETED:
		if (buf_adds(b, ",\"external_path\":") == -1 ||
		    buf_add_json_string(b,
			c->location != NULL ? c->location : STATS_NO_PATH,
			strlen(c->location != NULL ? c->location :
						     STATS_NO_PATH)) == -1 ||
		    buf_adds(b, ",\"discarded\":false") == -1)
			return -1;
		break;
	case CKPT_FAILED:
		if (buf_printf(b, ",\"failure_timestamp\":%lld",
			(long long)c->end_ms) == -1 ||
		    buf_adds(b, ",\"failure_message\":") == -1 ||
		    stats_failure_message(b, c->failure_class,
			c->failure_trace) == -1)
			return -1;
		break;
	default:
		break;
	}
	return buf_add(b, "}", 1);
}

/* A history entry: a comma before all but the first. */
struct history {
	struct buf *b;
	int n;
	int err;
};

static int
stats_history_entry(const struct ckpt *c, void *arg)
{
	struct history *h = arg;

	if ((h->n++ > 0 && buf_add(h->b, ",", 1) == -1) ||
	    stats_checkpoint(c, h->b) == -1) {
		h->err = 1;
		return 1;
	}
	return 0;
}

/* latest.completed, .savepoint and .failed, each rendered apart. */
struct latest {
	struct buf completed;
	struct buf savepoint;
	struct buf failed;
	int only; /* details: only checkpoint id */
	int64_t id;
	int err;
};

static int
stats_latest_entry(const struct ckpt *c, void *arg)
{
	struct latest *l = arg;

	if (l->only && c->id != l->id)
		return 0;
	if (stats_checkpoint(c,
		c->kind != CKPT_KIND_CHECKPOINT ? &l->savepoint :
		    c->status == CKPT_COMPLETED ? &l->completed :
						  &l->failed) == -1)
		l->err = 1;
	return l->err;
}

/* "latest":{...}, from what the store keeps of the latest two. */
static enum store_rc
stats_latest(struct store *s, const struct id *job, struct buf *b)
{
	struct latest l;
	enum store_rc rc;

	memset(&l, 0, sizeof(l));
	rc = store_ckpt_latest(s, job, stats_latest_entry, &l);
	if (rc == STORE_OK && !l.err)
		rc = store_savepoint_latest(s, job, stats_latest_entry, &l);
	if (rc == STORE_OK &&
	    (l.err ||
		buf_printf(b,
		    ",\"latest\":{\"completed\":%s,\"savepoint\":%s,"
		    "\"failed\":%s,\"restored\":null}",
		    l.completed.len > 0 ? buf_str(&l.completed) : "null",
		    l.savepoint.len > 0 ? buf_str(&l.savepoint) : "null",
		    l.failed.len > 0 ? buf_str(&l.failed) : "null") == -1))
		rc = STORE_ERROR;
	buf_free(&l.completed);
	buf_free(&l.savepoint);
	buf_free(&l.failed);
	return rc;
}

/*
 * details of a checkpoint no longer stored but still the job's latest
 * completed or failed one (Flink's details look there too).
 */
static enum store_rc
stats_latest_details(struct store *s, const struct id *job, int64_t id,
    struct buf *b)
{
	struct latest l;
	enum store_rc rc;

	memset(&l, 0, sizeof(l));
	l.only = 1;
	l.id = id;
	rc = store_ckpt_latest(s, job, stats_latest_entry, &l);
	if (rc == STORE_OK && !l.err && l.completed.len + l.failed.len == 0)
		rc = STORE_NOTFOUND;
	else if (rc == STORE_OK &&
	    (l.err ||
		buf_adds(b,
		    buf_str(l.completed.len > 0 ? &l.completed : &l.failed)) ==
		    -1))
		rc = STORE_ERROR;
	buf_free(&l.completed);
	buf_free(&l.savepoint);
	buf_free(&l.failed);
	return rc;
}

static int
stats_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * counts and summary.  Counts and min/max/avg are the job's counters;
 * the duration quantiles run over the newest STATS_WINDOW completed
 * checkpoints still stored.  Sizes are 0 for every completed checkpoint,
 * so their quantiles are 0.0 once there is one, and NaN before.
 */
static enum store_rc
stats_counts(struct store *s, const struct id *job, const struct ckpt_counts *c,
    struct buf *b)
{
	static const int64_t zero = 0;
	int64_t *d;
	size_t n = 0, nz = c->completed > 0;
	struct buf size = { 0 };
	enum store_rc rc;
	int err;

	if ((d = malloc(STATS_WINDOW * sizeof(*d))) == NULL)
		return STORE_ERROR;
	rc = store_ckpt_durations(s, job, STATS_WINDOW, d, &n);
	if (rc != STORE_OK) {
		free(d);
		return rc;
	}
	qsort(d, n, sizeof(*d), stats_cmp);
	/* A size's window: a single 0 stands for all its zeros, or none. */
	err = stats_summary_dto(&size, 0, 0, 0, &zero, nz) == -1 ||
	    buf_printf(b,
		"{\"counts\":{\"restored\":0,\"total\":%lld,"
		"\"in_progress\":%lld,\"completed\":%lld,\"failed\":%lld},"
		"\"summary\":{\"checkpointed_size\":%s,\"state_size\":%s,"
		"\"end_to_end_duration\":",
		(long long)c->in_progress + c->completed + c->failed,
		(long long)c->in_progress, (long long)c->completed,
		(long long)c->failed, buf_str(&size), buf_str(&size)) == -1 ||
	    stats_summary_dto(b, c->duration_min, c->duration_max,
		c->completed > 0 ? c->duration_sum / c->completed : 0, d,
		n) == -1 ||
	    buf_adds(b, ",\"alignment_buffered\":") == -1 ||
	    stats_summary_dto(b, 0, 0, 0, &zero, 1) == -1 ||
	    buf_printf(b, ",\"processed_data\":%s,\"persisted_data\":%s}",
		buf_str(&size), buf_str(&size)) == -1;
	buf_free(&size);
	free(d);
	return err ? STORE_ERROR : STORE_OK;
}

/* The body of GET /jobs/:jobid/checkpoints, c read already. */
static enum store_rc
stats_body(const struct api *a, struct store *s, const struct id *job,
    const struct ckpt_counts *c, struct buf *b)
{
	struct history h = { b, 0, 0 };
	enum store_rc rc;

	if ((rc = stats_counts(s, job, c, b)) != STORE_OK ||
	    (rc = stats_latest(s, job, b)) != STORE_OK)
		return rc;
	if (buf_adds(b, ",\"history\":[") == -1)
		return STORE_ERROR;
	if (a->settings->history > 0 &&
	    (rc = store_ckpt_history(s, job, a->settings->history,
		 stats_history_entry, &h)) != STORE_OK)
		return rc;
	if (h.err || buf_adds(b, "]}") == -1)
		return STORE_ERROR;
	return STORE_OK;
}

/* GET /jobs/:jobid/checkpoints and .../details/:checkpointid. */
void
stats_get(struct exchange *x)
{
	const struct route *rt = x->route;
	struct response *r = x->res;
	struct ckpt_counts c;
	struct history h = { &r->body, 0, 0 };
	struct store *s;
	struct id job;
	enum store_rc rc;
	int64_t id = 0;
	enum api_error err = ERR_INTERNAL;
	char num[24];

	if (exchange_path_id(x, &rt->jobid, "jobid", &job) == -1)
		return;
	if (rt->id == ROUTE_DETAILS &&
	    stats_parse_long(rt->checkpointid.p, rt->checkpointid.len, &id) ==
		-1) {
		exchange_path_error(x, &rt->checkpointid, "checkpointid");
		return;
	}
	if ((s = exchange_store(x)) == NULL)
		return;
	/* One snapshot: counts, latest and history agree. */
	if ((rc = store_read_begin(s)) != STORE_OK) {
		exchange_store_failed(x, rc);
		return;
	}
	buf_reset(&r->body);
	rc = store_ckpt_counts(s, &job, &c);
	if (rc == STORE_NOTFOUND)
		err = ERR_NO_JOB;
	else if (rc == STORE_OK && rt->id == ROUTE_DETAILS) {
		rc = store_ckpt_get(s, &job, id, stats_history_entry, &h);
		if (rc == STORE_NOTFOUND)
			rc = stats_latest_details(s, &job, id, &r->body);
		if (rc == STORE_NOTFOUND)
			err = ERR_NO_CHECKPOINT;
	} else if (rc == STORE_OK)
		rc = stats_body(x->api, s, &job, &c, &r->body);
	if (h.err)
		rc = STORE_ERROR;
	store_rollback(s);
	if (rc == STORE_OK)
		r->status = HTTP_200;
	else if (rc == STORE_NOTFOUND) {
		snprintf(num, sizeof(num), "%lld", (long long)id);
		http_error(r, err, err == ERR_NO_JOB ? job.s : num);
	} else
		exchange_store_failed(x, rc);
}
