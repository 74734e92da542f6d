/*
 * GET /ui/fleet: the fleet's health summed by the server, so that the
 * page asks one request for its summary however many jobs there are,
 * and a page of jobs, worst first or by id, found by name or id
 * (checkpoint-api(7), "GET /ui/fleet").  One statement reads every job's
 * row; what is kept is the page's rows, never the fleet's.
 */
#include <config.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "fleet.h"
#include "jobs.h"
#include "runner_late.h"
#include "schedule.h"
#include "settings.h"

#define FLEET_ROWS 50 /* the page's rows, unless ?limit= */
#define FLEET_ROWS_MAX 500
/*
 * Stale: a scheduled job whose last checkpoint is older than this many
 * of its schedule's intervals, and never less than a minute (the page's
 * rule before the server summed it).
 */
#define FLEET_STALE_GAPS 3
#define FLEET_STALE_MIN_MS 60000

const char *const fleet_health_names[FH__MAX] = {
	[FH_FAILING] = "failing",
	[FH_NORUNNER] = "norunner",
	[FH_STALE] = "stale",
	[FH_NEW] = "new",
	[FH_OK] = "ok",
	[FH_OFF] = "off",
};

/* How long the job's checkpoints may be apart: 0, no expectation. */
static int64_t
fleet_due(const struct fleet_job *j, int64_t stale_ms)
{
	struct schedule_rule rule = { j->every_ms, j->cron, j->since_ms };
	int64_t every = j->every_ms;

	if (stale_ms > 0)
		return stale_ms;
	if (every == 0 && j->cron != NULL) {
		int64_t from = j->last_slot_ms > 0 ? j->last_slot_ms :
						     j->since_ms;
		int64_t next = schedule_next(&rule, from);
		every = next > from ? next - from : 0;
	}
	if (every <= 0)
		return 0;
	return every * FLEET_STALE_GAPS > FLEET_STALE_MIN_MS ?
	    every * FLEET_STALE_GAPS :
	    FLEET_STALE_MIN_MS;
}

enum fleet_health
fleet_health(const struct fleet_job *j, int64_t now_ms, int64_t pass_ms,
    int64_t stale_ms, int64_t *due_ms)
{
	int64_t last;

	*due_ms = 0;
	if (j->state != JOB_RUNNING)
		return FH_OFF;
	if (j->last_failed > j->last_completed)
		return FH_FAILING;
	if (j->queued > 0 &&
	    (pass_ms == 0 || now_ms - pass_ms > RUNNER_LATE_MS))
		return FH_NORUNNER;
	*due_ms = fleet_due(j, stale_ms);
	/* A schedule with nothing done yet counts from when it was set. */
	if ((last = j->completed_ms) == 0 && stale_ms == 0)
		last = j->since_ms;
	if (*due_ms > 0 && last > 0 && now_ms - last > *due_ms)
		return FH_STALE;
	return j->last_completed == 0 && j->last_failed == 0 ? FH_NEW : FH_OK;
}

static int
fleet_hex(int c)
{
	return isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
}

/* Percent-decodes v (n bytes) into out. */
static int
fleet_decode(const char *v, size_t n, struct buf *out)
{
	size_t i;
	char c;

	for (i = 0; i < n; i++) {
		c = v[i];
		if (c == '+')
			c = ' ';
		else if (c == '%' && i + 2 < n &&
		    isxdigit((unsigned char)v[i + 1]) &&
		    isxdigit((unsigned char)v[i + 2])) {
			c = (char)(fleet_hex((unsigned char)v[i + 1]) * 16 +
			    fleet_hex((unsigned char)v[i + 2]));
			i += 2;
		}
		if (buf_add(out, &c, 1) == -1)
			return -1;
	}
	return 0;
}

int
fleet_param(const char *query, const char *name, struct buf *out)
{
	const char *q, *end;
	size_t n = strlen(name);

	buf_reset(out);
	for (q = query; q != NULL && *q != '\0';
	     q = *end == '&' ? end + 1 : end) {
		end = q + strcspn(q, "&");
		if (strncmp(q, name, n) != 0 || (q[n] != '=' && q + n != end))
			continue;
		q += n + (q[n] == '=');
		return fleet_decode(q, (size_t)(end - q), out) == -1 ? -1 : 1;
	}
	return 0;
}

/* What GET /ui/fleet was asked. */
struct fleet_args {
	int64_t limit;
	int by_id; /* ?order=id, else worst first */
	int after_rank; /* the cursor's health; -1: none */
	struct id after; /* the cursor's job */
	const char *after_name; /* and its name, worst first (in cursor) */
	struct buf cursor; /* ?after= */
	struct buf q; /* ?q=, lowercased */
	int64_t stale_ms; /* ?stale=MINUTES */
};

/* A row of the page, kept until it is written. */
struct fleet_row {
	int rank;
	struct fleet_job j; /* its name a copy of the row's own */
	int64_t due_ms;
};

struct fleet_scan {
	const struct fleet_args *a;
	int64_t now_ms, pass_ms;
	int64_t n, matched, in_progress, missing, health[FH__MAX];
	struct fleet_row *rows; /* a->limit of them, in order */
	size_t nrows;
	int more; /* a row beyond the page matched */
	int failed; /* out of memory */
};

/* Whether the lowercase q is in s, any case. */
static int
fleet_has(const char *s, const char *q)
{
	size_t i, n = strlen(q);

	for (; s != NULL && *s != '\0'; s++) {
		for (i = 0; i < n && s[i] != '\0' &&
		     tolower((unsigned char)s[i]) == (unsigned char)q[i];
		     i++)
			;
		if (i == n)
			return 1;
	}
	return n == 0;
}

/* Orders rows and cursors: health and name (unless by id), then id. */
static int
fleet_cmp(const struct fleet_args *a, int rank, const struct fleet_job *j,
    int rank2, const char *name2, const struct id *id2)
{
	int c;

	if (!a->by_id && rank != rank2)
		return rank < rank2 ? -1 : 1;
	if (!a->by_id && (c = strcmp(j->name, name2)) != 0)
		return c;
	return strcmp(j->id.s, id2->s);
}

/* Keeps j in the page if it belongs there, in order. */
static void
fleet_keep(struct fleet_scan *sc, const struct fleet_job *j, int rank,
    int64_t due)
{
	const struct fleet_args *a = sc->a;
	size_t at = sc->nrows;
	char *name;

	if (a->after_rank >= 0 &&
	    fleet_cmp(a, rank, j, a->after_rank, a->after_name, &a->after) <= 0)
		return;
	while (at > 0 &&
	    fleet_cmp(a, rank, j, sc->rows[at - 1].rank,
		sc->rows[at - 1].j.name, &sc->rows[at - 1].j.id) < 0)
		at--;
	if (at == (size_t)a->limit) {
		sc->more = 1;
		return;
	}
	if ((name = strdup(j->name != NULL ? j->name : "")) == NULL) {
		sc->failed = 1;
		return;
	}
	if (sc->nrows == (size_t)a->limit) {
		sc->more = 1;
		free((char *)sc->rows[--sc->nrows].j.name);
	}
	memmove(&sc->rows[at + 1], &sc->rows[at],
	    (sc->nrows - at) * sizeof(sc->rows[0]));
	sc->rows[at] = (struct fleet_row){ rank, *j, due };
	sc->rows[at].j.name = name;
	sc->rows[at].j.cron = NULL;
	sc->nrows++;
}

static int
fleet_scan_job(const struct fleet_job *row, void *arg)
{
	struct fleet_scan *sc = arg;
	struct fleet_job named = *row, *j = &named;
	int64_t due;
	enum fleet_health h = fleet_health(j, sc->now_ms, sc->pass_ms,
	    sc->a->stale_ms, &due);

	if (j->name == NULL)
		j->name = "";
	sc->n++;
	sc->health[h]++;
	sc->in_progress += j->queued + j->claimed > 0;
	sc->missing += j->missed > 0;
	if (!fleet_has(j->name, buf_str(&sc->a->q)) &&
	    !fleet_has(j->id.s, buf_str(&sc->a->q)))
		return 0;
	sc->matched++;
	fleet_keep(sc, j, (int)h, due);
	return sc->failed;
}

/* A bad parameter: the contract's 400, its value as sent. */
static int
fleet_bad(struct exchange *x, const char *name, struct buf *v)
{
	http_error(x->res, ERR_QUERY_PARAM, name, buf_str(v));
	return -1;
}

/*
 * ?after=: a job id; worst first, a health's rank, '-', the id, '-' and
 * the job's name (next as the answer gave it).
 */
static int
fleet_after(struct fleet_args *a, char *v)
{
	a->after_rank = 0;
	a->after_name = "";
	if (a->by_id)
		return id_parse_str(v, &a->after);
	if (v[0] < '0' || v[0] >= '0' + FH__MAX || v[1] != '-' ||
	    strlen(v) < 2 + ID_LEN + 1 || v[2 + ID_LEN] != '-')
		return -1;
	a->after_rank = v[0] - '0';
	a->after_name = v + 2 + ID_LEN + 1;
	return id_parse(v + 2, ID_LEN, &a->after);
}

/* The query into a, else -1 with the 400 (or 500) answered. */
static int
fleet_args(struct exchange *x, struct fleet_args *a)
{
	const char *query = x->req->query;
	struct buf v = { 0 };
	int rc = 0;
	size_t i;

	a->limit = FLEET_ROWS;
	a->after_rank = -1;
	if (fleet_param(query, "order", &v) == 1) {
		a->by_id = strcmp(buf_str(&v), "id") == 0;
		if (!a->by_id && strcmp(buf_str(&v), "health") != 0)
			rc = fleet_bad(x, "order", &v);
	}
	if (rc == 0 && fleet_param(query, "limit", &v) == 1 &&
	    settings_parse_int(buf_str(&v), 1, FLEET_ROWS_MAX, &a->limit) == -1)
		rc = fleet_bad(x, "limit", &v);
	if (rc == 0 && fleet_param(query, "stale", &v) == 1) {
		if (settings_parse_int(buf_str(&v), 1, 1000000, &a->stale_ms) ==
		    -1)
			rc = fleet_bad(x, "stale", &v);
		a->stale_ms *= 60000;
	}
	if (rc == 0 && fleet_param(query, "after", &a->cursor) == 1 &&
	    fleet_after(a, a->cursor.p != NULL ? a->cursor.p : "") == -1)
		rc = fleet_bad(x, "after", &a->cursor);
	if (rc == 0 && fleet_param(query, "q", &a->q) == -1) {
		http_error(x->res, ERR_INTERNAL);
		rc = -1;
	}
	for (i = 0; i < a->q.len; i++)
		a->q.p[i] = (char)tolower((unsigned char)a->q.p[i]);
	buf_free(&v);
	return rc;
}

/* One job of the page. */
static int
fleet_row_json(struct buf *b, const struct fleet_row *r, int comma)
{
	const struct fleet_job *j = &r->j;

	return (comma && buf_add(b, ",", 1) == -1) ||
		buf_printf(b, "{\"jid\":\"%s\",\"name\":", j->id.s) == -1 ||
		buf_add_json_string(b, j->name, strlen(j->name)) == -1 ||
		buf_printf(b,
		    ",\"state\":\"%s\",\"health\":\"%s\",\"queued\":%lld,"
		    "\"running\":%lld,\"missed\":%lld,\"due_ms\":%lld,"
		    "\"last_completed_ms\":",
		    job_state_name(j->state), fleet_health_names[r->rank],
		    (long long)j->queued, (long long)j->claimed,
		    (long long)j->missed, (long long)r->due_ms) == -1 ||
		jobs_opt_ms(b, j->completed_ms) == -1 ||
		buf_adds(b, ",\"last_failed_ms\":") == -1 ||
		jobs_opt_ms(b, j->failed_ms) == -1 || buf_adds(b, "}") == -1 ?
	    -1 :
	    0;
}

/*
 * Worst first, the next page's cursor: the last row's rank, id and name
 * (which orders a health's jobs), and the answer's end.
 */
static int
fleet_cursor(struct buf *b, const struct fleet_row *last)
{
	struct buf c = { 0 };
	int rc = buf_printf(&c, "%d-%s-%s", last->rank, last->j.id.s,
		     last->j.name) == -1 ||
		buf_adds(b, "],\"next\":") == -1 ||
		buf_add_json_string(b, c.p, c.len) == -1 ||
		buf_adds(b, "}") == -1 ?
	    -1 :
	    0;

	buf_free(&c);
	return rc;
}

/* The summary, the page's rows and the next page's cursor. */
static int
fleet_json(struct buf *b, const struct fleet_scan *sc, int64_t missed)
{
	const struct fleet_row *last;
	int h,
	    late = sc->pass_ms == 0 ||
	    sc->now_ms - sc->pass_ms > RUNNER_LATE_MS;
	size_t i;

	buf_reset(b);
	if (buf_printf(b, "{\"now_ms\":%lld,\"runner_last_pass_ms\":",
		(long long)sc->now_ms) == -1 ||
	    jobs_opt_ms(b, sc->pass_ms) == -1 ||
	    buf_printf(b,
		",\"runner_late\":%s,\"runner_late_ms\":%d,\"jobs\":%lld,"
		"\"health\":{",
		late ? "true" : "false", RUNNER_LATE_MS,
		(long long)sc->n) == -1)
		return -1;
	for (h = 0; h < FH__MAX; h++)
		if (buf_printf(b, "%s\"%s\":%lld", h > 0 ? "," : "",
			fleet_health_names[h], (long long)sc->health[h]) == -1)
			return -1;
	if (buf_printf(b,
		"},\"in_progress\":%lld,\"missing_slots\":%lld,"
		"\"slots_missed\":%lld,\"matched\":%lld,\"page\":[",
		(long long)sc->in_progress, (long long)sc->missing,
		(long long)missed, (long long)sc->matched) == -1)
		return -1;
	for (i = 0; i < sc->nrows; i++)
		if (fleet_row_json(b, &sc->rows[i], i > 0) == -1)
			return -1;
	if (!sc->more || sc->nrows == 0)
		return buf_adds(b, "],\"next\":null}");
	last = &sc->rows[sc->nrows - 1];
	if (sc->a->by_id)
		return buf_printf(b, "],\"next\":\"%s\"}", last->j.id.s);
	return fleet_cursor(b, last);
}

void
fleet_get(struct exchange *x)
{
	struct fleet_args a;
	struct fleet_scan sc;
	struct store *s;
	enum store_rc rc = STORE_OK;
	int64_t missed = 0;
	size_t i;

	memset(&a, 0, sizeof(a));
	memset(&sc, 0, sizeof(sc));
	if (fleet_args(x, &a) == -1 || (s = exchange_store(x)) == NULL) {
		buf_free(&a.q);
		buf_free(&a.cursor);
		return;
	}
	sc.a = &a;
	sc.now_ms = x->now_ms;
	if ((sc.rows = calloc((size_t)a.limit, sizeof(*sc.rows))) == NULL)
		sc.failed = 1;
	else
		rc = store_fleet(s, &sc.pass_ms, &missed, fleet_scan_job, &sc);
	if (sc.failed ||
	    (rc == STORE_OK && fleet_json(&x->res->body, &sc, missed) == -1))
		http_error(x->res, ERR_INTERNAL);
	else if (rc != STORE_OK)
		exchange_store_failed(x, rc);
	else
		x->res->status = HTTP_200;
	for (i = 0; i < sc.nrows; i++)
		free((char *)sc.rows[i].j.name);
	free(sc.rows);
	buf_free(&a.q);
	buf_free(&a.cursor);
}
