/*
 * Routing on PATH_INFO, which the web server has already percent-decoded
 * (never decode it again).  checkpoint-api(7), "ROUTING".
 */
#ifndef ROUTE_H
#define ROUTE_H

#include <stddef.h>

enum route_id {
	ROUTE_NONE, /* no such path */
	ROUTE_TRIGGER, /* /jobs/:jobid/checkpoints */
	ROUTE_STATUS, /* /jobs/:jobid/checkpoints/:triggerid */
	ROUTE_STATS, /* GET /jobs/:jobid/checkpoints */
	ROUTE_CONFIG, /* /jobs/:jobid/checkpoints/config */
	ROUTE_DETAILS, /* /jobs/:jobid/checkpoints/details/:checkpointid */
	ROUTE_JOBS, /* /jobs */
	ROUTE_OVERVIEW, /* /jobs/overview */
	ROUTE_METRICS, /* /metrics, never under /v1 */
	ROUTE_UI, /* /ui/ and /ui/:asset, the page */
	ROUTE_TRIGGERS /* GET /jobs/:jobid/triggers, beyond Flink */
};

/* A path segment: points into the routed string, not NUL-terminated. */
struct segment {
	const char *p;
	size_t len;
};

struct route {
	enum route_id id;
	int method_ok; /* the route takes this method */
	const char *allow; /* the methods its path takes */
	struct segment jobid; /* raw, not yet validated */
	struct segment triggerid; /* raw, ROUTE_STATUS only */
	struct segment checkpointid; /* raw, ROUTE_DETAILS only */
	struct segment asset; /* ROUTE_UI: the file, empty for the page */
};

void route_match(const char *method, const char *path, struct route *);

#endif /* ROUTE_H */
