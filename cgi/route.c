/*
 * The route table.  Flink's router (checkpoint-api(7), "ROUTING"):
 * every route also answers under /v1, slashes at both ends are dropped, literal
 * segments are case-sensitive, and the query string never reaches us in
 * PATH_INFO.
 */
#include <config.h>

#include <string.h>

#include "fleet.h"
#include "jobs.h"
#include "metrics.h"
#include "route.h"
#include "savepoint.h"
#include "stats.h"
#include "trigger.h"
#include "ui.h"

#define ROUTE_MAXSEG 6

/*
 * First match wins, so a literal comes before a parameter in the same
 * place, as Flink orders them (config is not a trigger id).  Routes that
 * share a path each list all its methods in allow.
 */
static const struct {
	enum route_id id;
	route_handler *handler;
	const char *method;
	const char *allow; /* every method of this path */
	int no_v1; /* not Flink's REST API: one path for an auth rule */
	size_t nseg;
	/* Literal segments; NULL marks a parameter. */
	const char *seg[ROUTE_MAXSEG];
} routes[] = {
	{ ROUTE_TRIGGER, trigger_post, "POST", "GET, POST", 0, 3,
	    { "jobs", NULL, "checkpoints" } },
	{ ROUTE_STATS, stats_get, "GET", "GET, POST", 0, 3,
	    { "jobs", NULL, "checkpoints" } },
	{ ROUTE_CONFIG, jobs_get_config, "GET", "GET", 0, 4,
	    { "jobs", NULL, "checkpoints", "config" } },
	{ ROUTE_STATUS, trigger_get, "GET", "GET", 0, 4,
	    { "jobs", NULL, "checkpoints", NULL } },
	{ ROUTE_DETAILS, stats_get, "GET", "GET", 0, 5,
	    { "jobs", NULL, "checkpoints", "details", NULL } },
	{ ROUTE_TRIGGERS, jobs_get_triggers, "GET", "GET", 0, 3,
	    { "jobs", NULL, "triggers" } },
	{ ROUTE_JOB_STATUS, jobs_get_status, "GET", "GET", 0, 3,
	    { "jobs", NULL, "status" } },
	{ ROUTE_JOBS, jobs_get, "GET", "GET", 0, 1, { "jobs" } },
	{ ROUTE_OVERVIEW, jobs_get, "GET", "GET", 0, 2,
	    { "jobs", "overview" } },
	{ ROUTE_METRICS, metrics_get, "GET", "GET", 1, 1, { "metrics" } },
	{ ROUTE_UI, ui_get, "GET", "GET", 1, 1, { "ui" } },
	{ ROUTE_FLEET, fleet_get, "GET", "GET", 1, 2, { "ui", "fleet" } },
	{ ROUTE_UI, ui_get, "GET", "GET", 1, 2, { "ui", NULL } },
	{ ROUTE_SAVEPOINT, savepoint_post, "POST", "GET, POST", 0, 3,
	    { "jobs", NULL, "savepoints" } },
	{ ROUTE_SAVEPOINTS, savepoint_list, "GET", "GET, POST", 0, 3,
	    { "jobs", NULL, "savepoints" } },
	{ ROUTE_STOP, savepoint_post, "POST", "POST", 0, 3,
	    { "jobs", NULL, "stop" } },
	{ ROUTE_SAVEPOINT_STATUS, savepoint_get, "GET", "GET", 0, 4,
	    { "jobs", NULL, "savepoints", NULL } },
	{ ROUTE_DISPOSAL, disposal_post, "POST", "POST", 0, 1,
	    { "savepoint-disposal" } },
	{ ROUTE_DISPOSAL_STATUS, disposal_get, "GET", "GET", 0, 2,
	    { "savepoint-disposal", NULL } },
};

/*
 * Splits path into at most max segments.  Returns the count, or -1 for a
 * path that cannot match anything: not starting with '/', an empty segment
 * in the middle, or too many segments.  Slashes at both ends are dropped,
 * as Flink's router does (PathPattern.removeSlashesAtBothEnds).
 */
static int
route_split(const char *path, struct segment *seg, size_t max)
{
	const char *p, *end;
	size_t n = 0;

	if (path == NULL || path[0] != '/')
		return -1;
	for (p = path; *p == '/'; p++)
		;
	end = p + strlen(p);
	while (end > p && end[-1] == '/')
		end--;
	while (p < end) {
		const char *q = memchr(p, '/', (size_t)(end - p));
		if (q == NULL)
			q = end;
		if (q == p || n == max)
			return -1;
		seg[n].p = p;
		seg[n].len = (size_t)(q - p);
		n++;
		p = q + 1;
	}
	return (int)n;
}

static int
segment_is(const struct segment *s, const char *lit)
{
	return s->len == strlen(lit) && memcmp(s->p, lit, s->len) == 0;
}

void
route_match(const char *method, const char *path, struct route *r)
{
	struct segment seg[ROUTE_MAXSEG + 1], *s = seg;
	size_t i, j;
	int n, ok, v1 = 0;

	memset(r, 0, sizeof(*r));
	r->id = ROUTE_NONE;
	if ((n = route_split(path, seg, ROUTE_MAXSEG + 1)) <= 0)
		return;
	if (segment_is(&seg[0], "v1")) {
		s++;
		n--;
		v1 = 1;
	}
	for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		if ((size_t)n != routes[i].nseg || (v1 && routes[i].no_v1))
			continue;
		for (j = 0; j < routes[i].nseg; j++)
			if (routes[i].seg[j] != NULL &&
			    !segment_is(&s[j], routes[i].seg[j]))
				break;
		if (j < routes[i].nseg)
			continue;
		ok = method != NULL && strcmp(method, routes[i].method) == 0;
		/* The path's first route, unless another takes the method. */
		if (r->id != ROUTE_NONE && !ok)
			continue;
		r->id = routes[i].id;
		r->handler = routes[i].handler;
		r->allow = routes[i].allow;
		r->method_ok = ok;
		if (r->id == ROUTE_UI && n == 2)
			r->asset = s[1];
		else if (r->id == ROUTE_DISPOSAL_STATUS)
			r->triggerid = s[1];
		else if (routes[i].nseg > 1 && routes[i].seg[1] == NULL)
			r->jobid = s[1];
		if (r->id == ROUTE_STATUS || r->id == ROUTE_SAVEPOINT_STATUS)
			r->triggerid = s[3];
		if (r->id == ROUTE_DETAILS)
			r->checkpointid = s[4];
		if (ok)
			return;
	}
}
