/*
 * The fleet's health summed by the server (GET /ui/fleet), the rule
 * that gives each job its health, which GET /metrics counts too, and
 * the query parameters the fleet's lists take (checkpoint-api(7)).
 */
#ifndef FLEET_H
#define FLEET_H

#include <stdint.h>

#include "store.h"

/* Worst first: the order of GET /ui/fleet and of the page. */
enum fleet_health {
	FH_FAILING, /* its last checkpoint failed */
	FH_NORUNNER, /* triggers wait, and no runner was at work lately */
	FH_STALE, /* its schedule's checkpoints are overdue */
	FH_NEW, /* no checkpoint yet */
	FH_OK,
	FH_OFF, /* not RUNNING */
	FH__MAX
};

extern const char *const fleet_health_names[FH__MAX];

/*
 * The job's health at now_ms, with the runner's last pass (0: never)
 * and stale_ms, a threshold for every job (0: each schedule's own).
 * *due_ms is what stale was judged against (0: nothing).
 */
enum fleet_health fleet_health(const struct fleet_job *, int64_t now_ms,
    int64_t pass_ms, int64_t stale_ms, int64_t *due_ms);

/*
 * The query's parameter name, percent-decoded ('+' a space), into out
 * (reset first), the first if repeated: 1 found, 0 not, -1 no memory.
 */
int fleet_param(const char *query, const char *name, struct buf *out);

struct exchange;

void fleet_get(struct exchange *);

#endif /* FLEET_H */
