/*
 * Routing on PATH_INFO, which the web server has already percent-decoded
 * (never decode it again).  checkpoint-api(7), "ROUTING".  A route names
 * the handler that answers it: the one dispatch is api_handle's call.
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
	ROUTE_TRIGGERS, /* GET /jobs/:jobid/triggers, beyond Flink */
	ROUTE_SAVEPOINT, /* POST /jobs/:jobid/savepoints */
	ROUTE_STOP, /* POST /jobs/:jobid/stop */
	ROUTE_SAVEPOINT_STATUS, /* /jobs/:jobid/savepoints/:triggerid */
	ROUTE_DISPOSAL, /* POST /savepoint-disposal */
	ROUTE_DISPOSAL_STATUS, /* /savepoint-disposal/:triggerid */
	ROUTE_SAVEPOINTS, /* GET /jobs/:jobid/savepoints, beyond Flink */
	ROUTE_JOB_STATUS, /* GET /jobs/:jobid/status */
	ROUTE_FLEET /* GET /ui/fleet, the page's summary */
};

/* A path segment: points into the routed string, not NUL-terminated. */
struct segment {
	const char *p;
	size_t len;
};

struct exchange;

/*
 * Answers the request of an exchange (exchange.h) in its response, or
 * sets its deferred for an answer that comes later.
 */
typedef void route_handler(struct exchange *);

struct route {
	enum route_id id;
	route_handler *handler; /* NULL for ROUTE_NONE */
	int method_ok; /* the route takes this method */
	const char *allow; /* the methods its path takes */
	struct segment jobid; /* raw, not yet validated */
	struct segment triggerid; /* raw, of a status route */
	struct segment checkpointid; /* raw, ROUTE_DETAILS only */
	struct segment asset; /* ROUTE_UI: the file, empty for the page */
};

void route_match(const char *method, const char *path, struct route *);

#endif /* ROUTE_H */
