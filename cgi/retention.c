/*
 * Retention's verdicts: see retention.h.  A job's live snapshots of a kind
 * are its completed ones with a location, not disposed, newest (highest
 * checkpoint id) first.  Its newest is never disposed, nor a savepoint
 * marked kept; of the others, those among the newest keep_last and those
 * younger than keep_ms stay, so that with both rules a snapshot goes when
 * it is past the count and past the age.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "retention.h"
#include "schedule.h"

static int64_t
retention_backoff(int64_t attempts)
{
	int64_t ms = RETENTION_BACKOFF_MS;

	while (--attempts > 0 && ms < RETENTION_BACKOFF_MAX_MS)
		ms *= 2;
	return ms < RETENTION_BACKOFF_MAX_MS ? ms : RETENTION_BACKOFF_MAX_MS;
}

/* Which rule lets r go, in words. */
static void
retention_why(const struct retention_row *r, char *buf, size_t len)
{
	char age[32];

	schedule_duration(r->keep_ms, age, sizeof(age));
	if (r->keep_last > 0 && r->keep_ms > 0)
		snprintf(buf, len, "past the newest %lld and older than %s",
		    (long long)r->keep_last, age);
	else if (r->keep_last > 0)
		snprintf(buf, len, "past the newest %lld",
		    (long long)r->keep_last);
	else
		snprintf(buf, len, "older than %s", age);
}

void
retention_decide(const struct retention_row *r, size_t index, int64_t now_ms,
    struct retention_decision *d)
{
	memset(d, 0, sizeof(*d));
	if (index == 0)
		d->verdict = RETAIN_LATEST;
	else if (r->kept_ms > 0)
		d->verdict = RETAIN_KEPT;
	else if (r->keep_last > 0 && index < (size_t)r->keep_last)
		d->verdict = RETAIN_NEWEST;
	else if (r->keep_ms > 0 && now_ms - r->completed_ms < r->keep_ms)
		d->verdict = RETAIN_YOUNG;
	else if (r->disposal_status != NULL &&
	    strcmp(r->disposal_status, "IN_PROGRESS") == 0)
		d->verdict = RETAIN_IN_FLIGHT;
	else if (r->disposal_failed &&
	    now_ms < r->disposal_completed_ms +
		    retention_backoff(r->disposal_attempts)) {
		d->verdict = RETAIN_BACKOFF;
		d->retry_ms = r->disposal_completed_ms +
		    retention_backoff(r->disposal_attempts);
	} else {
		d->verdict = RETAIN_GO;
		retention_why(r, d->why, sizeof(d->why));
	}
}

int
retention_describe(const struct retention_decision *d, char *buf, size_t len)
{
	switch (d->verdict) {
	case RETAIN_LATEST:
		return snprintf(buf, len, "kept: the newest");
	case RETAIN_KEPT:
		return snprintf(buf, len, "kept: marked kept");
	case RETAIN_NEWEST:
		return snprintf(buf, len, "kept: among the newest");
	case RETAIN_YOUNG:
		return snprintf(buf, len, "kept: young enough");
	case RETAIN_IN_FLIGHT:
		return snprintf(buf, len, "disposal in progress");
	case RETAIN_BACKOFF: {
		struct tm tm;
		time_t t = (time_t)(d->retry_ms / 1000);
		char when[32] = "later";

		if (gmtime_r(&t, &tm) != NULL)
			strftime(when, sizeof(when), "at %Y-%m-%d %H:%M:%S",
			    &tm);
		return snprintf(buf, len, "disposal failed; tried again %s",
		    when);
	}
	case RETAIN_GO:
	default:
		return snprintf(buf, len, "goes: %s", d->why);
	}
}

size_t
retention_index(struct id *job, char *kind, size_t len, size_t *next,
    const struct retention_row *r)
{
	if (strcmp(job->s, r->job.s) != 0 || strcmp(kind, r->kind) != 0) {
		*job = r->job;
		snprintf(kind, len, "%s", r->kind);
		*next = 0;
	}
	return (*next)++;
}

/* Retention's kinds, as slots of what a scan found of each. */
static int
retain_slot(const char *kind)
{
	return strcmp(kind, "SAVEPOINT") == 0;
}

/*
 * When a verdict on r could change with no new snapshot of its job: a
 * young one ageing past keep_ms, a failed disposal's retry, a disposal
 * under way (or asked for now) looked at again; never for the others.
 */
static int64_t
retain_due_ms(const struct retention_row *r, const struct retention_decision *d,
    int64_t now_ms)
{
	switch (d->verdict) {
	case RETAIN_YOUNG:
		return r->completed_ms + r->keep_ms;
	case RETAIN_BACKOFF:
		return d->retry_ms;
	case RETAIN_IN_FLIGHT:
	case RETAIN_GO:
		return now_ms + RETENTION_BACKOFF_MS;
	default:
		return INT64_MAX;
	}
}

/* The rows retention lets go, gathered before any is written. */
struct retain_scan {
	int64_t now_ms;
	struct id job; /* the job of the rows so far */
	char kind[16]; /* and their kind */
	size_t index; /* the next row's place among them */
	struct retention_go *go;
	size_t n, cap;
	int oom;
	int64_t due_ms[2]; /* by retain_slot: the next look's time */
};

static int
retain_collect(const struct retention_row *r, void *arg)
{
	struct retain_scan *sc = arg;
	struct retention_decision d;
	struct retention_go *g;
	int64_t due;

	retention_decide(r,
	    retention_index(&sc->job, sc->kind, sizeof(sc->kind), &sc->index,
		r),
	    sc->now_ms, &d);
	due = retain_due_ms(r, &d, sc->now_ms);
	if (due < sc->due_ms[retain_slot(r->kind)])
		sc->due_ms[retain_slot(r->kind)] = due;
	if (d.verdict != RETAIN_GO)
		return 0;
	if (sc->n == sc->cap) {
		size_t cap = sc->cap > 0 ? sc->cap * 2 : 16;
		void *p = realloc(sc->go, cap * sizeof(*sc->go));

		if (p == NULL)
			return sc->oom = 1;
		sc->go = p;
		sc->cap = cap;
	}
	g = &sc->go[sc->n];
	g->job = r->job;
	memcpy(g->why, d.why, sizeof(g->why));
	if ((g->location = strdup(r->location)) == NULL)
		return sc->oom = 1;
	sc->n++;
	return 0;
}

/*
 * Asks for the disposals retention lets go of job's snapshots (of every
 * job with a policy, for NULL); due_ms (if not NULL) gets, by kind, when
 * they next need a look.
 */
static enum store_rc
retain_run(struct store *s, const struct id *job, int64_t now_ms,
    retention_asked_cb asked, void *arg, int64_t due_ms[2])
{
	struct retain_scan sc;
	struct id fresh, out;
	enum store_rc rc;
	size_t i;
	int created;

	memset(&sc, 0, sizeof(sc));
	sc.now_ms = now_ms;
	sc.due_ms[0] = sc.due_ms[1] = INT64_MAX;
	rc = store_retention_list(s, job, retain_collect, &sc);
	if (sc.oom && rc == STORE_OK)
		rc = STORE_ERROR;
	for (i = 0; i < sc.n && rc == STORE_OK; i++) {
		if (id_random(&fresh) == -1) {
			rc = STORE_ERROR;
			break;
		}
		rc = store_record_disposal(s, &fresh, sc.go[i].location,
		    RETENTION_CALLER, NULL, sc.go[i].why,
		    clock_ms(CLOCK_REALTIME), &out, &created);
		if (rc == STORE_OK && created && asked != NULL)
			asked(&sc.go[i], &out, arg);
	}
	for (i = 0; i < sc.n; i++)
		free(sc.go[i].location);
	free(sc.go);
	if (due_ms != NULL)
		memcpy(due_ms, sc.due_ms, sizeof(sc.due_ms));
	return rc;
}

/* The policies due, gathered before any job is looked at. */
struct retain_due_row {
	struct id job;
	char kind[16];
	int64_t changes, next_ms;
};
struct retain_due_list {
	struct retain_due_row *row;
	size_t n, cap;
	int oom;
};

static int
retain_due_collect(const struct retention_due *d, void *arg)
{
	struct retain_due_list *l = arg;

	if (l->n == l->cap) {
		size_t cap = l->cap > 0 ? l->cap * 2 : 16;
		void *p = realloc(l->row, cap * sizeof(*l->row));

		if (p == NULL)
			return l->oom = 1;
		l->row = p;
		l->cap = cap;
	}
	l->row[l->n].job = d->job;
	snprintf(l->row[l->n].kind, sizeof(l->row[l->n].kind), "%s", d->kind);
	l->row[l->n++].changes = d->changes;
	return 0;
}

/* When each policy of l is next due, written in one transaction. */
static enum store_rc
retain_due_write(struct store *s, const struct retain_due_list *l)
{
	enum store_rc rc;
	size_t i;

	if (l->n == 0)
		return STORE_OK;
	if ((rc = store_begin(s)) != STORE_OK)
		return rc;
	for (i = 0; i < l->n && rc == STORE_OK; i++)
		rc = store_retention_next(s, &l->row[i].job, l->row[i].kind,
		    l->row[i].changes, l->row[i].next_ms);
	if (rc != STORE_OK) {
		store_rollback(s);
		return rc;
	}
	return store_commit(s);
}

/*
 * Each due job looked at once, then each policy told when it is next
 * due, all in one commit.
 */
static enum store_rc
retain_due(struct store *s, int64_t now_ms, retention_asked_cb asked, void *arg)
{
	struct retain_due_list l = { 0 };
	int64_t due_ms[2] = { INT64_MAX, INT64_MAX };
	enum store_rc rc;
	size_t i;

	rc = store_retention_due(s, now_ms, retain_due_collect, &l);
	if (l.oom && rc == STORE_OK)
		rc = STORE_ERROR;
	for (i = 0; i < l.n && rc == STORE_OK; i++) {
		struct retain_due_row *d = &l.row[i];

		if (i == 0 || strcmp(d->job.s, l.row[i - 1].job.s) != 0)
			rc = retain_run(s, &d->job, now_ms, asked, arg, due_ms);
		d->next_ms = due_ms[retain_slot(d->kind)];
	}
	if (rc == STORE_OK)
		rc = retain_due_write(s, &l);
	free(l.row);
	return rc;
}

enum store_rc
retention_dispose(struct store *s, const struct id *job, int64_t now_ms,
    retention_asked_cb asked, void *arg)
{
	return retain_run(s, job, now_ms, asked, arg, NULL);
}

enum store_rc
retention_dispose_due(struct store *s, int64_t now_ms, retention_asked_cb asked,
    void *arg)
{
	return retain_due(s, now_ms, asked, arg);
}
