/*
 * Routing on PATH_INFO (cgi/route.c; checkpoint-api(7), "ROUTING"): every
 * route, with and without /v1 (but /metrics, only without), a trailing slash
 * tolerated, literals case-sensitive, and everything else ROUTE_NONE.  Each
 * row gives the
 * expected route, whether the method fits, the Allow value and the raw id
 * segments.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "route.h"
#include "tap.h"

#define J "0123456789abcdef0123456789abcdef"
#define T "fedcba9876543210fedcba9876543210"

static const struct route_case {
	int line;
	const char *method;
	const char *path;
	enum route_id id;
	int method_ok;
	const char *allow; /* NULL for ROUTE_NONE */
	const char *jobid; /* "" when none */
	const char *second; /* triggerid or checkpointid; "" when none */
} cases[] = {
	/* The page (ui.c): /ui and /ui/ alike, the asset in its own field. */
	{ __LINE__, "GET", "/ui", ROUTE_UI, 1, "GET", "", "" },
	{ __LINE__, "GET", "/ui/", ROUTE_UI, 1, "GET", "", "" },
	{ __LINE__, "GET", "/ui/app.js", ROUTE_UI, 1, "GET", "", "" },
	/* One prefix, for one auth rule: never under /v1, as /metrics. */
	{ __LINE__, "GET", "/v1/ui/app.js", ROUTE_NONE, 0, NULL, "", "" },
	{ __LINE__, "GET", "/v1/ui/", ROUTE_NONE, 0, NULL, "", "" },
	{ __LINE__, "GET", "/v1/ui", ROUTE_NONE, 0, NULL, "", "" },
	/* The page's summary, an asset's path taken first. */
	{ __LINE__, "GET", "/ui/fleet", ROUTE_FLEET, 1, "GET", "", "" },
	{ __LINE__, "GET", "/ui/fleet/", ROUTE_FLEET, 1, "GET", "", "" },
	{ __LINE__, "POST", "/ui/fleet", ROUTE_FLEET, 0, "GET", "", "" },
	{ __LINE__, "GET", "/v1/ui/fleet", ROUTE_NONE, 0, NULL, "", "" },
	{ __LINE__, "GET", "//ui//", ROUTE_UI, 1, "GET", "", "" },
	{ __LINE__, "POST", "/ui/", ROUTE_UI, 0, "GET", "", "" },
	{ __LINE__, "GET", "/ui/a/b", ROUTE_NONE, 0, NULL, "", "" },
	/* The trigger route. */
	{ __LINE__, "POST", "/jobs/" J "/checkpoints", ROUTE_TRIGGER, 1,
	    "GET, POST", J, "" },
	{ __LINE__, "POST", "/v1/jobs/" J "/checkpoints", ROUTE_TRIGGER, 1,
	    "GET, POST", J, "" },
	{ __LINE__, "POST", "/jobs/" J "/checkpoints/", ROUTE_TRIGGER, 1,
	    "GET, POST", J, "" },
	{ __LINE__, "POST", "/v1/jobs/" J "/checkpoints/", ROUTE_TRIGGER, 1,
	    "GET, POST", J, "" },
	{ __LINE__, "GET", "/jobs/" J "/checkpoints", ROUTE_STATS, 1,
	    "GET, POST", J, "" },
	{ __LINE__, "PUT", "/jobs/" J "/checkpoints", ROUTE_TRIGGER, 0,
	    "GET, POST", J, "" },
	{ __LINE__, "post", "/jobs/" J "/checkpoints", ROUTE_TRIGGER, 0,
	    "GET, POST", J, "" },
	{ __LINE__, NULL, "/jobs/" J "/checkpoints", ROUTE_TRIGGER, 0,
	    "GET, POST", J, "" },
	/* Path ids are raw segments: validating them is the handler's job. */
	{ __LINE__, "POST", "/jobs/not-an-id/checkpoints", ROUTE_TRIGGER, 1,
	    "GET, POST", "not-an-id", "" },
	{ __LINE__, "POST", "/jobs/a%2Fb/checkpoints", ROUTE_TRIGGER, 1,
	    "GET, POST", "a%2Fb", "" },

	/* The job's triggers, beyond Flink: GET only. */
	{ __LINE__, "GET", "/jobs/" J "/triggers", ROUTE_TRIGGERS, 1, "GET", J,
	    "" },
	{ __LINE__, "GET", "/v1/jobs/" J "/triggers/", ROUTE_TRIGGERS, 1, "GET",
	    J, "" },
	{ __LINE__, "POST", "/jobs/" J "/triggers", ROUTE_TRIGGERS, 0, "GET", J,
	    "" },
	{ __LINE__, "GET", "/jobs/" J "/Triggers", ROUTE_NONE, 0, NULL, "",
	    "" },

	/* The job's status, as Flink's (RestClusterClient.getJobStatus). */
	{ __LINE__, "GET", "/jobs/" J "/status", ROUTE_JOB_STATUS, 1, "GET", J,
	    "" },
	{ __LINE__, "GET", "/v1/jobs/" J "/status/", ROUTE_JOB_STATUS, 1, "GET",
	    J, "" },
	{ __LINE__, "POST", "/jobs/" J "/status", ROUTE_JOB_STATUS, 0, "GET", J,
	    "" },

	/* The status route. */
	{ __LINE__, "GET", "/jobs/" J "/checkpoints/" T, ROUTE_STATUS, 1, "GET",
	    J, T },
	{ __LINE__, "GET", "/v1/jobs/" J "/checkpoints/" T, ROUTE_STATUS, 1,
	    "GET", J, T },
	{ __LINE__, "GET", "/jobs/" J "/checkpoints/" T "/", ROUTE_STATUS, 1,
	    "GET", J, T },
	{ __LINE__, "POST", "/jobs/" J "/checkpoints/" T, ROUTE_STATUS, 0,
	    "GET", J, T },
	{ __LINE__, "HEAD", "/jobs/" J "/checkpoints/" T, ROUTE_STATUS, 0,
	    "GET", J, T },
	{ __LINE__, "GET", "/jobs/x/checkpoints/y", ROUTE_STATUS, 1, "GET", "x",
	    "y" },

	/* The statistics, sharing the trigger's path: Allow names both. */
	{ __LINE__, "GET", "/v1/jobs/" J "/checkpoints/", ROUTE_STATS, 1,
	    "GET, POST", J, "" },
	{ __LINE__, "DELETE", "/jobs/" J "/checkpoints", ROUTE_TRIGGER, 0,
	    "GET, POST", J, "" },
	{ __LINE__, "HEAD", "/jobs/" J "/checkpoints", ROUTE_TRIGGER, 0,
	    "GET, POST", J, "" },

	/* config is a literal: it comes before a trigger id (Flink). */
	{ __LINE__, "GET", "/jobs/" J "/checkpoints/config", ROUTE_CONFIG, 1,
	    "GET", J, "" },
	{ __LINE__, "GET", "/v1/jobs/" J "/checkpoints/config/", ROUTE_CONFIG,
	    1, "GET", J, "" },
	{ __LINE__, "POST", "/jobs/" J "/checkpoints/config", ROUTE_CONFIG, 0,
	    "GET", J, "" },
	{ __LINE__, "GET", "/jobs/" J "/checkpoints/Config", ROUTE_STATUS, 1,
	    "GET", J, "Config" },
	/* details without an id is a trigger id, as in Flink (then a 400). */
	{ __LINE__, "GET", "/jobs/" J "/checkpoints/details", ROUTE_STATUS, 1,
	    "GET", J, "details" },

	/* One checkpoint's details. */
	{ __LINE__, "GET", "/jobs/" J "/checkpoints/details/42", ROUTE_DETAILS,
	    1, "GET", J, "42" },
	{ __LINE__, "GET", "/v1/jobs/" J "/checkpoints/details/-1/",
	    ROUTE_DETAILS, 1, "GET", J, "-1" },
	{ __LINE__, "PUT", "/jobs/x/checkpoints/details/y", ROUTE_DETAILS, 0,
	    "GET", "x", "y" },
	{ __LINE__, "GET", "/jobs/" J "/checkpoints/details/1/x", ROUTE_NONE, 0,
	    NULL, "", "" },

	/* The job lists. */
	{ __LINE__, "GET", "/jobs", ROUTE_JOBS, 1, "GET", "", "" },
	{ __LINE__, "GET", "/v1/jobs/", ROUTE_JOBS, 1, "GET", "", "" },
	{ __LINE__, "POST", "/jobs", ROUTE_JOBS, 0, "GET", "", "" },
	{ __LINE__, "GET", "/jobs/overview", ROUTE_OVERVIEW, 1, "GET", "", "" },
	{ __LINE__, "GET", "/v1/jobs/overview/", ROUTE_OVERVIEW, 1, "GET", "",
	    "" },
	{ __LINE__, "DELETE", "/jobs/overview", ROUTE_OVERVIEW, 0, "GET", "",
	    "" },
	{ __LINE__, "GET", "/jobs/Overview", ROUTE_NONE, 0, NULL, "", "" },

	/* Unknown version prefixes. */
	{ __LINE__, "POST", "/v0/jobs/" J "/checkpoints", ROUTE_NONE, 0, NULL,
	    "", "" },
	{ __LINE__, "POST", "/v2/jobs/" J "/checkpoints", ROUTE_NONE, 0, NULL,
	    "", "" },
	{ __LINE__, "GET", "/v2/jobs/" J "/checkpoints/" T, ROUTE_NONE, 0, NULL,
	    "", "" },
	{ __LINE__, "POST", "/V1/jobs/" J "/checkpoints", ROUTE_NONE, 0, NULL,
	    "", "" },
	{ __LINE__, "POST", "/v1/v1/jobs/" J "/checkpoints", ROUTE_NONE, 0,
	    NULL, "", "" },
	{ __LINE__, "GET", "/v1", ROUTE_NONE, 0, NULL, "", "" },
	{ __LINE__, "GET", "/v1/", ROUTE_NONE, 0, NULL, "", "" },

	/* Literals are case-sensitive. */
	{ __LINE__, "POST", "/JOBS/" J "/checkpoints", ROUTE_NONE, 0, NULL, "",
	    "" },
	{ __LINE__, "POST", "/jobs/" J "/Checkpoints", ROUTE_NONE, 0, NULL, "",
	    "" },
	{ __LINE__, "POST", "/job/" J "/checkpoints", ROUTE_NONE, 0, NULL, "",
	    "" },
	{ __LINE__, "POST", "/jobs/" J "/savepoint", ROUTE_NONE, 0, NULL, "",
	    "" },

	/* The savepoint family: its own routes, the disposal's id as triggerid. */
	{ __LINE__, "POST", "/jobs/" J "/savepoints", ROUTE_SAVEPOINT, 1,
	    "GET, POST", J, "" },
	{ __LINE__, "GET", "/jobs/" J "/savepoints", ROUTE_SAVEPOINTS, 1,
	    "GET, POST", J, "" },
	{ __LINE__, "POST", "/v1/jobs/" J "/stop/", ROUTE_STOP, 1, "POST", J,
	    "" },
	{ __LINE__, "GET", "/jobs/" J "/stop", ROUTE_STOP, 0, "POST", J, "" },
	{ __LINE__, "GET", "/jobs/" J "/savepoints/" T, ROUTE_SAVEPOINT_STATUS,
	    1, "GET", J, T },
	{ __LINE__, "POST", "/savepoint-disposal", ROUTE_DISPOSAL, 1, "POST",
	    "", "" },
	{ __LINE__, "GET", "/v1/savepoint-disposal/" T, ROUTE_DISPOSAL_STATUS,
	    1, "GET", "", T },
	{ __LINE__, "GET", "/savepoint-disposal/" T "/x", ROUTE_NONE, 0, NULL,
	    "", "" },

	/* Empty segments in the middle; slashes at both ends are dropped. */
	{ __LINE__, "POST", "//jobs/" J "/checkpoints", ROUTE_TRIGGER, 1,
	    "GET, POST", J, "" },
	{ __LINE__, "POST", "/jobs//checkpoints", ROUTE_NONE, 0, NULL, "", "" },
	{ __LINE__, "POST", "/jobs/" J "/checkpoints//", ROUTE_TRIGGER, 1,
	    "GET, POST", J, "" },
	{ __LINE__, "POST", "/jobs/" J "/checkpoints///", ROUTE_TRIGGER, 1,
	    "GET, POST", J, "" },
	{ __LINE__, "GET", "/jobs/" J "/checkpoints/" T "//", ROUTE_STATUS, 1,
	    "GET", J, T },
	{ __LINE__, "GET", "/jobs/" J "//checkpoints/" T, ROUTE_NONE, 0, NULL,
	    "", "" },

	/* GET /metrics, never under /v1 (checkpoint-api.fcgi(8)). */
	{ __LINE__, "GET", "/metrics", ROUTE_METRICS, 1, "GET", "", "" },
	{ __LINE__, "GET", "/metrics/", ROUTE_METRICS, 1, "GET", "", "" },
	{ __LINE__, "GET", "//metrics//", ROUTE_METRICS, 1, "GET", "", "" },
	{ __LINE__, "POST", "/metrics", ROUTE_METRICS, 0, "GET", "", "" },
	{ __LINE__, "HEAD", "/metrics", ROUTE_METRICS, 0, "GET", "", "" },
	{ __LINE__, "GET", "/v1/metrics", ROUTE_NONE, 0, NULL, "", "" },
	{ __LINE__, "GET", "/v1/v1/metrics", ROUTE_NONE, 0, NULL, "", "" },
	{ __LINE__, "GET", "/Metrics", ROUTE_NONE, 0, NULL, "", "" },
	{ __LINE__, "GET", "/metrics/x", ROUTE_NONE, 0, NULL, "", "" },
	{ __LINE__, "GET", "/jobs/metrics", ROUTE_NONE, 0, NULL, "", "" },

	/* Too few or too many segments. */
	{ __LINE__, "GET", "/jobs/" J, ROUTE_NONE, 0, NULL, "", "" },
	{ __LINE__, "GET", "/jobs/" J "/checkpoints/" T "/x", ROUTE_NONE, 0,
	    NULL, "", "" },
	{ __LINE__, "GET", "/v1/jobs/" J "/checkpoints/" T "/x", ROUTE_NONE, 0,
	    NULL, "", "" },
	{ __LINE__, "GET", "/a/b/c/d/e/f/g/h/i/j", ROUTE_NONE, 0, NULL, "",
	    "" },
	{ __LINE__, "GET", "/v1/a/b/c/d/e/f", ROUTE_NONE, 0, NULL, "", "" },

	/* Not a path at all. */
	{ __LINE__, "GET", "", ROUTE_NONE, 0, NULL, "", "" },
	{ __LINE__, "GET", NULL, ROUTE_NONE, 0, NULL, "", "" },
	{ __LINE__, "POST", "jobs/" J "/checkpoints", ROUTE_NONE, 0, NULL, "",
	    "" },
	{ __LINE__, "GET", "/", ROUTE_NONE, 0, NULL, "", "" },
	{ __LINE__, "GET", "//", ROUTE_NONE, 0, NULL, "", "" },
	/* The query string never reaches PATH_INFO; if it did, no match. */
	{ __LINE__, "POST", "/jobs/" J "/checkpoints?x=1", ROUTE_NONE, 0, NULL,
	    "", "" },
};

/* A segment as a string, for comparison. */
static const char *
segment_str(const struct segment *s, char *buf, size_t len)
{
	if (s->p == NULL)
		return s->len == 0 ? "" : "(NULL with a length)";
	snprintf(buf, len, "%.*s", (int)s->len, s->p);
	return buf;
}

static void
test_routes(void)
{
	const struct route_case *c;
	struct route r;
	char b1[128], b2[128];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		c = &cases[i];
		memset(&r, 0x5a, sizeof(r));
		route_match(c->method, c->path, &r);
		tap_is_int_at(__FILE__, c->line, r.id, c->id,
		    "case %zu: %s %s: route", i + 1,
		    c->method ? c->method : "(null)",
		    c->path ? c->path : "(null)");
		tap_is_int_at(__FILE__, c->line, r.method_ok, c->method_ok,
		    "case %zu: method_ok", i + 1);
		tap_is_str_at(__FILE__, c->line, r.allow, c->allow,
		    "case %zu: allow", i + 1);
		tap_is_str_at(__FILE__, c->line,
		    segment_str(&r.jobid, b1, sizeof(b1)), c->jobid,
		    "case %zu: jobid segment", i + 1);
		tap_is_str_at(__FILE__, c->line,
		    segment_str(r.id == ROUTE_DETAILS ? &r.checkpointid :
							&r.triggerid,
			b2, sizeof(b2)),
		    c->second, "case %zu: second id segment", i + 1);
	}
}

/* Segments point into the routed string (never a copy). */
static void
test_segments_point_into_path(void)
{
	static const char path[] = "/v1/jobs/" J "/checkpoints/" T;
	struct route r;

	route_match("GET", path, &r);
	tap_ok(r.jobid.p == path + strlen("/v1/jobs/"),
	    "jobid points into the path");
	tap_ok(r.triggerid.p == path + strlen("/v1/jobs/" J "/checkpoints/"),
	    "triggerid points into the path");
}

int
main(void)
{
	test_routes();
	test_segments_point_into_path();
	return tap_done();
}
