/*
 * libFuzzer harness for route_match (cgi/route.c; checkpoint-api(7),
 * "ROUTING"), the page's /ui routes and /metrics included.  The first byte
 * picks the method (GET, POST, PUT, DELETE, HEAD, none, or the bytes up to
 * the first newline); the rest, NUL-terminated, is PATH_INFO.
 * A match must be exactly one of the route shapes rebuilt from the segments
 * it returns, and those segments must lie inside the path.  The harness
 * only checks what it matched: tests/unit-route.c has the misses.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "route.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Whether seg is a non-empty, slash-free part of path[0..len). */
static int
segment_inside(const struct segment *seg, const char *path, size_t len)
{
	return seg->p != NULL && seg->len > 0 && seg->p > path &&
	    seg->p + seg->len <= path + len &&
	    memchr(seg->p, '/', seg->len) == NULL;
}

/*
 * Whether path is one of the shapes of a route: slashes at both ends (as
 * Flink's router drops them), an optional "v1/", then the literals around
 * the segments.
 */
static int
route_shape(const struct route *r, const char *path, size_t len)
{
	static const char *const prefixes[] = { "", "v1/" };
	const char *core, *end;
	char *want;
	size_t i, n;
	int found = 0;

	if (path[0] != '/')
		return 0;
	for (core = path; *core == '/'; core++)
		;
	for (end = path + len; end > core && end[-1] == '/'; end--)
		;
	n = len + 64;
	FUZZ_CHECK((want = malloc(n)) != NULL);
	for (i = 0; i < 2 && !found; i++) {
		switch (r->id) {
		case ROUTE_TRIGGER:
		case ROUTE_STATS:
			snprintf(want, n, "%sjobs/%.*s/checkpoints",
			    prefixes[i], (int)r->jobid.len, r->jobid.p);
			break;
		case ROUTE_CONFIG:
			snprintf(want, n, "%sjobs/%.*s/checkpoints/config",
			    prefixes[i], (int)r->jobid.len, r->jobid.p);
			break;
		case ROUTE_TRIGGERS:
			snprintf(want, n, "%sjobs/%.*s/triggers", prefixes[i],
			    (int)r->jobid.len, r->jobid.p);
			break;
		case ROUTE_JOB_STATUS:
			snprintf(want, n, "%sjobs/%.*s/status", prefixes[i],
			    (int)r->jobid.len, r->jobid.p);
			break;
		case ROUTE_STATUS:
			snprintf(want, n, "%sjobs/%.*s/checkpoints/%.*s",
			    prefixes[i], (int)r->jobid.len, r->jobid.p,
			    (int)r->triggerid.len, r->triggerid.p);
			break;
		case ROUTE_DETAILS:
			snprintf(want, n,
			    "%sjobs/%.*s/checkpoints/details/%.*s", prefixes[i],
			    (int)r->jobid.len, r->jobid.p,
			    (int)r->checkpointid.len, r->checkpointid.p);
			break;
		case ROUTE_SAVEPOINT:
		case ROUTE_SAVEPOINTS:
			snprintf(want, n, "%sjobs/%.*s/savepoints", prefixes[i],
			    (int)r->jobid.len, r->jobid.p);
			break;
		case ROUTE_STOP:
			snprintf(want, n, "%sjobs/%.*s/stop", prefixes[i],
			    (int)r->jobid.len, r->jobid.p);
			break;
		case ROUTE_SAVEPOINT_STATUS:
			snprintf(want, n, "%sjobs/%.*s/savepoints/%.*s",
			    prefixes[i], (int)r->jobid.len, r->jobid.p,
			    (int)r->triggerid.len, r->triggerid.p);
			break;
		case ROUTE_DISPOSAL:
			snprintf(want, n, "%ssavepoint-disposal", prefixes[i]);
			break;
		case ROUTE_DISPOSAL_STATUS:
			snprintf(want, n, "%ssavepoint-disposal/%.*s",
			    prefixes[i], (int)r->triggerid.len, r->triggerid.p);
			break;
		case ROUTE_JOBS:
			snprintf(want, n, "%sjobs", prefixes[i]);
			break;
		case ROUTE_OVERVIEW:
			snprintf(want, n, "%sjobs/overview", prefixes[i]);
			break;
		case ROUTE_METRICS:
			/* Never under /v1. */
			if (i == 0)
				snprintf(want, n, "metrics");
			else
				want[0] = '\0';
			break;
		case ROUTE_UI:
			if (r->asset.len == 0)
				snprintf(want, n, "%sui", prefixes[i]);
			else
				snprintf(want, n, "%sui/%.*s", prefixes[i],
				    (int)r->asset.len, r->asset.p);
			break;
		default:
			want[0] = '\0';
			break;
		}
		found = strlen(want) == (size_t)(end - core) &&
		    memcmp(want, core, (size_t)(end - core)) == 0;
	}
	free(want);
	return found;
}

/*
 * What each API route must answer, written here from checkpoint-api(7)
 * rather than read from route.c: the method it takes, every method of its
 * path, and which ids it carries.  A GET on a path that also takes POST is
 * that path's listing (the statistics, the savepoints).
 */
static const struct expect {
	const char *method, *allow;
	int jobid, triggerid;
} expected[] = {
	[ROUTE_TRIGGER] = { "POST", "GET, POST", 1, 0 },
	[ROUTE_STATS] = { "GET", "GET, POST", 1, 0 },
	[ROUTE_STATUS] = { "GET", "GET", 1, 1 },
	[ROUTE_CONFIG] = { "GET", "GET", 1, 0 },
	[ROUTE_DETAILS] = { "GET", "GET", 1, 0 },
	[ROUTE_JOBS] = { "GET", "GET", 0, 0 },
	[ROUTE_OVERVIEW] = { "GET", "GET", 0, 0 },
	[ROUTE_TRIGGERS] = { "GET", "GET", 1, 0 },
	[ROUTE_JOB_STATUS] = { "GET", "GET", 1, 0 },
	[ROUTE_SAVEPOINT] = { "POST", "GET, POST", 1, 0 },
	[ROUTE_SAVEPOINTS] = { "GET", "GET, POST", 1, 0 },
	[ROUTE_STOP] = { "POST", "POST", 1, 0 },
	[ROUTE_SAVEPOINT_STATUS] = { "GET", "GET", 1, 1 },
	[ROUTE_DISPOSAL] = { "POST", "POST", 0, 0 },
	[ROUTE_DISPOSAL_STATUS] = { "GET", "GET", 0, 1 },
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const methods[] = { "GET", "POST", "PUT", "DELETE",
		"HEAD", NULL };
	struct route r;
	const char *method;
	char *copy, *path, *nl;
	size_t len, pick;

	if (size == 0)
		return 0;
	pick = data[0] % (sizeof(methods) / sizeof(methods[0]) + 1);
	/* An exact-size copy, so that ASan sees any read past the NUL. */
	FUZZ_CHECK((copy = malloc(size)) != NULL);
	memcpy(copy, data + 1, size - 1);
	copy[size - 1] = '\0';
	path = copy;
	if (pick < sizeof(methods) / sizeof(methods[0]))
		method = methods[pick];
	else {
		method = copy;
		if ((nl = strchr(copy, '\n')) != NULL) {
			*nl = '\0';
			path = nl + 1;
		} else
			path = copy + strlen(copy);
	}
	len = strlen(path);

	route_match(method, path, &r);
	switch (r.id) {
	case ROUTE_NONE:
		FUZZ_CHECK(!r.method_ok && r.allow == NULL);
		FUZZ_CHECK(r.jobid.p == NULL && r.triggerid.p == NULL &&
		    r.checkpointid.p == NULL && r.asset.p == NULL);
		break;
	case ROUTE_UI:
	case ROUTE_METRICS:
		/*
		 * The page (/ui or /ui/ASSET) and /metrics: GET only, no ids,
		 * an asset only for the page.
		 */
		FUZZ_CHECK(r.allow != NULL && strcmp(r.allow, "GET") == 0);
		FUZZ_CHECK(r.method_ok ==
		    (method != NULL && strcmp(method, "GET") == 0));
		FUZZ_CHECK(r.jobid.p == NULL && r.triggerid.p == NULL &&
		    r.checkpointid.p == NULL);
		FUZZ_CHECK(r.asset.len == 0 ||
		    (r.id == ROUTE_UI && segment_inside(&r.asset, path, len)));
		FUZZ_CHECK(route_shape(&r, path, len));
		break;
	case ROUTE_TRIGGER:
	case ROUTE_STATS:
	case ROUTE_STATUS:
	case ROUTE_CONFIG:
	case ROUTE_DETAILS:
	case ROUTE_JOBS:
	case ROUTE_OVERVIEW:
	case ROUTE_TRIGGERS:
	case ROUTE_JOB_STATUS:
	case ROUTE_SAVEPOINT:
	case ROUTE_SAVEPOINTS:
	case ROUTE_STOP:
	case ROUTE_SAVEPOINT_STATUS:
	case ROUTE_DISPOSAL:
	case ROUTE_DISPOSAL_STATUS: {
		const struct expect *e = &expected[r.id];

		FUZZ_CHECK(e->allow != NULL);
		FUZZ_CHECK(r.allow != NULL && strcmp(r.allow, e->allow) == 0);
		FUZZ_CHECK(r.method_ok ==
		    (method != NULL && strcmp(method, e->method) == 0));
		/* A shared path's POST route never answers its GET. */
		FUZZ_CHECK(strcmp(e->method, "POST") != 0 || method == NULL ||
		    strcmp(method, "GET") != 0 ||
		    strcmp(e->allow, "POST") == 0);
		if (e->jobid)
			FUZZ_CHECK(segment_inside(&r.jobid, path, len));
		else
			FUZZ_CHECK(r.jobid.p == NULL && r.jobid.len == 0);
		if (e->triggerid)
			FUZZ_CHECK(segment_inside(&r.triggerid, path, len));
		else
			FUZZ_CHECK(
			    r.triggerid.p == NULL && r.triggerid.len == 0);
		if (r.id == ROUTE_DETAILS)
			FUZZ_CHECK(segment_inside(&r.checkpointid, path, len));
		else
			FUZZ_CHECK(r.checkpointid.p == NULL &&
			    r.checkpointid.len == 0);
		FUZZ_CHECK(r.asset.p == NULL);
		FUZZ_CHECK(route_shape(&r, path, len));
		break;
	}
	default:
		FUZZ_CHECK(!"route id out of range");
	}

	/* No path at all (PATH_INFO unset) is never a route. */
	route_match(method, NULL, &r);
	FUZZ_CHECK(r.id == ROUTE_NONE);
	free(copy);
	return 0;
}
